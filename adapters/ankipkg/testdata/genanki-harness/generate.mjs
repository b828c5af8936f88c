// Writes an .apkg with genanki-js. Usage: node generate.mjs OUT [CASE]
//   stock (the default): a reversed note type, a cloze type, subdecks,
//     tags, HTML, an image and audio (testdata/genanki.apkg);
//   custom: a note type of its own — own fields, two templates with
//     {{#Field}} conditionals, CSS (testdata/genanki-custom.apkg).
// The package reader's and the importer's tests read them with exact
// expectations (adapters/ankipkg/genanki_test.go,
// apiserver/internal/domaintest/import_genanki_test.go), so change them
// together.
import { register } from "node:module";
import { writeFileSync } from "node:fs";

register("./hooks.mjs", import.meta.url);
const { Model, ClozeModel, Deck, Package, Note } = await import("genanki-js");
const { default: initSqlJs } = await import("sql.js");
const { default: JSZip } = await import("jszip");
const { APKG_SCHEMA } = await import("genanki-js");

const out = process.argv[2];
const which = process.argv[3] ?? "stock";
if (!out || !["stock", "custom"].includes(which)) throw new Error("usage: node generate.mjs OUT.apkg [stock|custom]");
const SQL = await initSqlJs();
const db = new SQL.Database();
db.run(APKG_SCHEMA);
const pkg = new Package();

if (which === "custom") {
  // A type of its own: what Anki users make when the stock types do not
  // fit. The second card exists only for notes with an example (req).
  const vokabel = new Model({
    id: "1607392330",
    name: "Vokabel (Genus)",
    flds: [{ name: "Wort" }, { name: "Bedeutung" }, { name: "Beispiel" }, { name: "Genus" }],
    req: [[0, "any", [0]], [1, "any", [2]]],
    tmpls: [
      { name: "Erkennen", qfmt: "{{Wort}}{{#Genus}} <small>({{Genus}})</small>{{/Genus}}",
        afmt: "{{FrontSide}}<hr id=answer>{{Bedeutung}}{{#Beispiel}}<br><i>{{Beispiel}}</i>{{/Beispiel}}" },
      { name: "Beispiel", qfmt: "{{#Beispiel}}Im Satz: {{Beispiel}}{{/Beispiel}}",
        afmt: "{{FrontSide}}<hr id=answer>{{Wort}}{{^Genus}} (ohne Genus){{/Genus}}: {{Bedeutung}}" },
    ],
    css: ".card { font-family: Georgia, serif; color: #223; background: url(\"paper.png\"); }\n.card small { color: gray; }",
  });
  const deck = new Deck(2059400120, "Vokabeln");
  deck.addNote(new Note(vokabel, ["Hund", "dog", "Der Hund bellt.", "der"], ["Tiere"], "genanki-vokabel-hund"));
  deck.addNote(new Note(vokabel, ["Katze", "cat", "Die Katze schläft.", ""], ["Tiere"], "genanki-vokabel-katze"));
  deck.addNote(new Note(vokabel, ["Maus", "mouse", "", "die"], null, "genanki-vokabel-maus"));
  pkg.addDeck(deck);
  pkg.write(db);
  await save();
  process.exit(0);
}

const reversed = new Model({
  id: "1607392319",
  name: "Basic (and reversed card)",
  flds: [{ name: "Front" }, { name: "Back" }],
  req: [[0, "any", [0]], [1, "any", [1]]],
  tmpls: [
    { name: "Card 1", qfmt: "{{Front}}", afmt: "{{FrontSide}}<hr id=answer>{{Back}}" },
    { name: "Card 2", qfmt: "{{Back}}", afmt: "{{FrontSide}}<hr id=answer>{{Front}}" },
  ],
  css: ".card { font-family: serif; }",
});
const cloze = new ClozeModel({
  id: "1607392320",
  name: "Cloze",
  flds: [{ name: "Text" }, { name: "Back Extra" }],
  tmpls: [{ name: "Cloze", qfmt: "{{cloze:Text}}", afmt: "{{cloze:Text}}<br>{{Back Extra}}" }],
});

const german = new Deck(2059400110, "German", "Words and grammar");
const vocab = new Deck(2059400111, "German::Vocab");
const grammar = new Deck(2059400112, "German::Grammar");

vocab.addNote(new Note(reversed, ['<b>der Hund</b>&nbsp;<img src="hund.png">', "the dog [sound:hund.mp3]"], ["Animals", "German::Nouns"], "genanki-hund"));
vocab.addNote(new Note(reversed, ["die Katze", ""], ["Animals"], "genanki-katze"));
grammar.addNote(new Note(cloze, ["{{c1::Der}} Hund {{c2::bellt}}.", "<i>bellen</i>: to bark"], ["Grammar"], "genanki-cloze"));
german.addNote(new Note(reversed, ["<ul><li>eins</li><li>zwei</li></ul>", "one, two<br>three &lt;3"], null, "genanki-list"));

for (const d of [german, vocab, grammar]) pkg.addDeck(d);
pkg.write(db);

// A 1x1 PNG and a few bytes standing in for an MP3 frame.
const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000" +
  "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082", "hex");
const mp3 = Buffer.from("494433030000000000000ffffb9064000f", "hex");
pkg.addMedia(png, "hund.png");
pkg.addMedia(mp3, "hund.mp3");

await save();

// save writes the package: Package.writeToFile saves through a browser
// download; the same zip layout (collection.anki2, numbered media, the
// JSON media map) here.
async function save() {
  const zip = new JSZip();
  zip.file("collection.anki2", Buffer.from(db.export()));
  const map = {};
  pkg.media.forEach((m, i) => {
    zip.file(String(i), m.data);
    map[i] = m.name;
  });
  zip.file("media", JSON.stringify(map));
  writeFileSync(out, await zip.generateAsync({ type: "nodebuffer", compression: "DEFLATE" }));
}
