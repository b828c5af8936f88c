// The Takhtabush study widget: an MCP App (ui://takhtabush/study-session)
// that a host renders for render_study_session. It talks only to its host,
// through the official SDK's App class over postMessage: the host hands it
// the tool result (a study session with its current card rendered and
// sanitised on the server), and every rating goes back through the host as
// a tools/call of submit_review (an undo, as one of the app-only
// undo_last_rating; an export, of export_deck, handed to the host's
// ui/download-file). After each rating or undo it tells the host's model
// where the session stands (ui/update-model-context). It never reaches the
// server itself and holds no credential. Card HTML comes only from the server's renderer
// (structuredContent.frontHtml / backHtml), and a card's note-type CSS only
// from the server's scoper (structuredContent.cardCss, confined to the
// card's .nt-card container, with nothing in it that loads); everything
// else is text.
import {
  App,
  PostMessageTransport,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
} from "@modelcontextprotocol/ext-apps";

const RATINGS = ["again", "hard", "good", "easy"];
const LABELS = { again: "Again", hard: "Hard", good: "Good", easy: "Easy" };
const MAX_DURATION_MS = 3600000;

const $ = (id) => document.getElementById(id);
const ui = {
  root: document.documentElement,
  app: $("app"),
  progress: $("progress"),
  meter: $("meter"),
  card: $("card"),
  front: $("front"),
  answer: $("answer"),
  back: $("back"),
  actions: $("actions"),
  reveal: $("reveal"),
  ratings: $("ratings"),
  status: $("status"),
  done: $("done"),
  doneTitle: $("done-title"),
  doneText: $("done-text"),
  tally: $("tally"),
  recheck: $("recheck"),
  link: $("link"),
  expand: $("expand"),
  undo: $("undo"),
  exportBtn: $("export"),
  exportLine: $("export-line"),
  exportLink: $("export-link"),
  cardStyle: document.createElement("style"),
};
// The current card's note-type CSS goes here, after the widget's own styles.
ui.cardStyle.id = "card-css";
document.head.append(ui.cardStyle);

/** The session as the last tool result showed it (render_study_session's structuredContent). */
let view = null;
/** Whether the answer of the current card is showing. */
let revealed = false;
/** When the current card was shown, for submit_review's durationMs. */
let shownAt = 0;
/** A call to the host is under way: keys and buttons wait. */
let busy = false;
/** What this widget rated, for the summary. */
const tally = { again: 0, hard: 0, good: 0, easy: 0 };
/** The host refused a tools/call: nothing more is asked of it. */
let refusedCalls = false;

const app = new App({ name: "takhtabush-study", version: "1.0.0" }, {}, { autoResize: true });

app.ontoolinput = () => {
  setStatus("Opening the study session…");
};

app.ontoolresult = (result) => {
  if (result.isError) {
    refused(textOf(result) || "The study session could not be opened.");
    return;
  }
  show(result.structuredContent);
};

app.ontoolcancelled = () => {
  setStatus("The study session was not opened.");
};

app.onhostcontextchanged = (ctx) => applyHostContext(ctx);

app.onteardown = async () => ({});

// The host's theme, styles, fonts and display mode.
function applyHostContext(ctx) {
  if (!ctx) return;
  if (ctx.theme === "light" || ctx.theme === "dark") applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
  if (ctx.displayMode) ui.root.dataset.display = ctx.displayMode;
  const dims = ctx.containerDimensions;
  const maxHeight = dims && ("height" in dims ? dims.height : dims.maxHeight);
  if (typeof maxHeight === "number" && maxHeight > 0) {
    ui.root.style.setProperty("--host-max-height", `${Math.floor(maxHeight)}px`);
  }
  if (Array.isArray(ctx.availableDisplayModes)) {
    const mode = ui.root.dataset.display || "inline";
    ui.expand.hidden = !ctx.availableDisplayModes.includes(mode === "fullscreen" ? "inline" : "fullscreen");
    ui.expand.textContent = mode === "fullscreen" ? "Smaller" : "Expand";
  }
}

// show renders a session: its progress, and its current card's front (the
// server's sanitised HTML), or the end of the session.
function show(session) {
  if (!session || typeof session.sessionId !== "string") {
    refused("The host sent no study session.");
    return;
  }
  view = session;
  revealed = false;
  busy = false;
  setStatus("");
  setLink(session.studyUrl);
  setProgress(session.reviewed, session.remaining);
  ui.undo.hidden = refusedCalls || !(session.reviewed > 0);
  ui.undo.disabled = false;
  if (session.current && typeof session.frontHtml === "string") {
    ui.front.innerHTML = session.frontHtml;
    ui.back.innerHTML = session.backHtml || "";
    typeBox();
    setCardStyle(session.cardCss);
    setIntervals(session.ratings || []);
    ui.answer.hidden = true;
    ui.card.hidden = false;
    ui.done.hidden = true;
    ui.actions.hidden = false;
    ui.reveal.hidden = false;
    ui.ratings.hidden = true;
    setButtons(true);
    shownAt = Date.now();
    ui.app.dataset.state = "front";
    ui.reveal.focus({ preventScroll: true });
    return;
  }
  ui.card.hidden = true;
  ui.actions.hidden = true;
  ui.front.textContent = "";
  ui.back.textContent = "";
  setCardStyle("");
  showDone(session);
}

// setCardStyle applies the current card's note-type CSS, which the server
// scoped to .nt-card: the card becomes that container while it has CSS.
// It is set as text, so it can only ever be a style sheet.
function setCardStyle(css) {
  const styled = typeof css === "string" && css !== "";
  ui.cardStyle.textContent = styled ? css : "";
  ui.card.classList.toggle("nt-card", styled);
}

// showDone is the end of the session (or a pause until a learning step is
// due), with what this widget rated.
function showDone(session) {
  const pending = !session.done && session.nextCardAt;
  ui.doneTitle.textContent = pending ? "Waiting for a learning step" : "Session complete";
  const reviewed = session.reviewed || 0;
  if (pending) {
    const at = new Date(session.nextCardAt);
    ui.doneText.textContent = `${plural(reviewed, "card")} reviewed so far. The next card comes back at ${at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}.`;
  } else {
    ui.doneText.textContent = reviewed > 0 ? `${plural(reviewed, "card")} reviewed. Nothing else is due in this session.` : "Nothing is due in this session.";
  }
  ui.tally.replaceChildren();
  for (const r of RATINGS) {
    if (tally[r] === 0) continue;
    const li = document.createElement("li");
    li.className = r;
    li.textContent = `${LABELS[r]}: ${tally[r]}`;
    ui.tally.append(li);
  }
  ui.recheck.hidden = !pending;
  ui.exportBtn.hidden = refusedCalls || typeof session.deckId !== "string" || session.deckId === "";
  ui.exportBtn.disabled = false;
  ui.done.hidden = false;
  ui.app.dataset.state = "done";
}

// typeBox puts a typing box where a type-in card's question asks for the
// answer (the renderer's empty .type-in mark); Enter in it reveals, on the
// key's release, so the press does not also reach the rating button that
// the reveal focuses.
function typeBox() {
  const mark = ui.front.querySelector(".type-in");
  if (!mark) return;
  const input = document.createElement("input");
  input.type = "text";
  input.id = "typed";
  input.autocomplete = "off";
  input.spellcheck = false;
  input.setAttribute("aria-label", "Type the answer");
  input.className = "typein";
  input.addEventListener("keyup", (e) => {
    if (e.key === "Enter") reveal();
  });
  mark.replaceWith(input);
  queueMicrotask(() => input.focus({ preventScroll: true }));
}

// compareTyped replaces the expected answer (.type-answer on the back) with
// what was typed against it, as Anki does: the typed line with its right
// and wrong characters, then the answer with the characters missed; the
// longest common subsequence decides which is which.
function compareTyped() {
  const input = ui.front.querySelector("#typed");
  const el = ui.back.querySelector(".type-answer");
  if (!input || !el) return;
  input.readOnly = true;
  const got = Array.from(input.value.trim()).slice(0, 500);
  const want = Array.from(el.textContent.trim()).slice(0, 500);
  if (got.length === 0) return;
  const L = Array.from({ length: got.length + 1 }, () => new Array(want.length + 1).fill(0));
  for (let i = got.length - 1; i >= 0; i--) {
    for (let j = want.length - 1; j >= 0; j--) {
      L[i][j] = got[i] === want[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    }
  }
  const inGot = got.map(() => false);
  const inWant = want.map(() => false);
  for (let i = 0, j = 0; i < got.length && j < want.length; ) {
    if (got[i] === want[j]) {
      inGot[i++] = inWant[j++] = true;
    } else if (L[i + 1][j] >= L[i][j + 1]) i++;
    else j++;
  }
  const line = (chars, kept, other, label) => {
    const out = document.createElement("span");
    out.className = "typed";
    out.setAttribute("aria-label", `${label}: ${chars.join("")}`);
    chars.forEach((c, k) => {
      const cls = kept[k] ? "typed-ok" : other;
      if (out.lastChild?.className !== cls) out.append(Object.assign(document.createElement("span"), { className: cls }));
      out.lastChild.textContent += c;
    });
    return out;
  };
  if (got.join("") === want.join("")) {
    el.replaceChildren(line(want, inWant, "typed-ok", "You typed it right"));
  } else {
    el.replaceChildren(line(got, inGot, "typed-bad", "You typed"), line(want, inWant, "typed-miss", "The answer"));
  }
}

function reveal() {
  if (!view?.current || revealed || busy) return;
  compareTyped();
  revealed = true;
  ui.answer.hidden = false;
  ui.reveal.hidden = true;
  ui.ratings.hidden = false;
  ui.app.dataset.state = "back";
  ui.ratings.querySelector(".good")?.focus({ preventScroll: true });
}

// rate sends one rating through the host (tools/call submit_review with the
// card's position, so a retried call cannot rate a later showing), then
// asks for the session again to show the next card rendered.
async function rate(rating) {
  if (!view?.current || !revealed || busy || !RATINGS.includes(rating)) return;
  busy = true;
  setButtons(false);
  setStatus("Saving…");
  const { sessionId } = view;
  const { cardId, position } = view.current;
  const durationMs = Math.max(0, Math.min(MAX_DURATION_MS, Date.now() - shownAt));
  let res;
  try {
    res = await app.callServerTool({
      name: "submit_review",
      arguments: { sessionId, cardId, position, rating, durationMs },
    });
  } catch (err) {
    refused("This chat app did not pass the rating on.", err);
    return;
  }
  if (res.isError) {
    // A conflict (rated elsewhere meanwhile) or an expired session: show
    // the reason and where the session is now.
    const reason = textOf(res) || "The rating was not saved.";
    if (!(await refresh(sessionId, reason))) refused(reason);
    return;
  }
  const out = res.structuredContent || {};
  if (!out.replayed) tally[rating]++;
  const note = out.interval ? `${LABELS[rating]}: next in ${out.interval}` : `${LABELS[rating]} saved`;
  const did = `The user rated a card ${rating}${out.interval ? ` (next in ${out.interval})` : ""}.`;
  if (await refresh(sessionId, note)) tellModel(view, did);
}

// undo takes back the session's last rating (the app-only
// undo_last_rating): the card's schedule goes back and the session shows
// it again.
async function undo() {
  if (!view || busy || refusedCalls) return;
  busy = true;
  setButtons(false);
  ui.undo.disabled = true;
  setStatus("Undoing…");
  const { sessionId } = view;
  let res;
  try {
    res = await app.callServerTool({ name: "undo_last_rating", arguments: { sessionId } });
  } catch (err) {
    refused("This chat app did not pass the undo on.", err);
    return;
  }
  if (res.isError) {
    const reason = textOf(res) || "Nothing was undone.";
    if (!(await refresh(sessionId, reason))) refused(reason);
    return;
  }
  const out = res.structuredContent || {};
  const rating = RATINGS.includes(out.rating) ? out.rating : "";
  if (rating && tally[rating] > 0) tally[rating]--;
  const note = rating ? `${LABELS[rating]} undone: the card is back` : "Last rating undone";
  const did = `The user undid their last rating${rating ? ` (${rating})` : ""}; that card is shown again.`;
  if (await refresh(sessionId, note)) tellModel(view, did);
}

// exportDeck exports the session's deck as an Anki package (export_deck)
// and hands its download link to the host (ui/download-file); a host that
// cannot download gets the link itself, and when the export is not
// offered to this widget (its tool is outside the connection's toolsets,
// or refused), the deck's page in Takhtabush, which exports it.
async function exportDeck() {
  if (!view?.deckId || busy) return;
  busy = true;
  ui.exportBtn.disabled = true;
  setStatus("Preparing the export…");
  let res = null;
  try {
    res = await app.callServerTool({ name: "export_deck", arguments: { deckId: view.deckId } });
  } catch (err) {
    console.warn("takhtabush widget:", err);
  }
  busy = false;
  ui.exportBtn.disabled = false;
  const url = res && !res.isError ? res.structuredContent?.downloadUrl : "";
  if (typeof url !== "string" || !/^https?:\/\//.test(url)) {
    const page = deckPage();
    setStatus(page ? "This chat app cannot export the deck here; export it from its page in Takhtabush." : textOf(res) || "The deck could not be exported.");
    if (page) setExportLink(page, "Open the deck in Takhtabush to export it");
    return;
  }
  if (app.getHostCapabilities()?.downloadFile) {
    try {
      const out = await app.downloadFile({
        contents: [{ type: "resource_link", uri: url, name: "deck.apkg", title: "Anki package of the deck", mimeType: "application/octet-stream" }],
      });
      if (!out?.isError) {
        setStatus("The deck's .apkg is on its way to your downloads.");
        return;
      }
    } catch (err) {
      console.warn("takhtabush widget:", err);
    }
  }
  setStatus("");
  setExportLink(url, "Download the deck's .apkg (the link works for 10 minutes)");
}

// deckPage is the session's deck in the web app, on the study link's origin.
function deckPage() {
  try {
    return `${new URL(view.studyUrl).origin}/decks/${encodeURIComponent(view.deckId)}`;
  } catch {
    return "";
  }
}

function setExportLink(url, text) {
  ui.exportLink.href = url;
  ui.exportLink.textContent = text;
  ui.exportLine.hidden = false;
}

// refresh asks the host for the session again (render_study_session with
// the session id changes nothing) and shows it, with note as the status.
async function refresh(sessionId, note) {
  busy = true;
  try {
    const res = await app.callServerTool({ name: "render_study_session", arguments: { sessionId } });
    if (res.isError) {
      refused(textOf(res) || "The session could not be loaded.");
      return false;
    }
    show(res.structuredContent);
    setStatus(note || "");
    return true;
  } catch (err) {
    refused(`${note ? note + ". " : ""}This chat app did not load the next card.`, err);
    return false;
  }
}

// refused is the fallback when the host will not (or cannot) make a call:
// the reason and the session's absolute study link.
function refused(message, err) {
  busy = false;
  if (err) console.warn("takhtabush widget:", err);
  refusedCalls = true;
  ui.app.dataset.state = "refused";
  ui.actions.hidden = true;
  ui.undo.hidden = true;
  ui.exportBtn.hidden = true;
  const link = view?.studyUrl;
  setStatus(link ? `${message} Continue in Takhtabush with the link below.` : message);
  if (link) setLink(link);
}

// tellModel puts where the session stands into the conversation's context
// (ui/update-model-context, when the host accepts it; each update replaces
// the last), after each rating or undo, so the assistant knows what was
// studied, how it was rated and what remains without asking the server.
function tellModel(session, did) {
  if (!session || !app.getHostCapabilities()?.updateModelContext) return;
  const parts = RATINGS.filter((r) => tally[r] > 0).map((r) => `${r} ${tally[r]}`);
  const rated = parts.length ? ` Rated in the widget: ${parts.join(", ")}.` : "";
  const reviewed = session.reviewed || 0;
  const remaining = session.remaining || 0;
  let where;
  if (session.done) {
    where = `The user finished study session ${session.sessionId} in the widget: ${plural(reviewed, "card")} reviewed.`;
  } else if (!session.current && session.nextCardAt) {
    where = `Study session ${session.sessionId} in the widget: ${plural(reviewed, "card")} reviewed; the next comes back at ${session.nextCardAt} (a learning step).`;
  } else {
    where = `Study session ${session.sessionId} in the widget: ${reviewed} of ${reviewed + remaining} cards reviewed, ${remaining} remaining.`;
  }
  const text = `${where}${rated}${did ? ` Last: ${did}` : ""}`;
  const structuredContent = {
    sessionId: session.sessionId, deckId: session.deckId, reviewed, remaining, done: !!session.done,
    ratings: { ...tally }, last: did || "",
  };
  app.updateModelContext({ content: [{ type: "text", text }], structuredContent }).catch(() => {});
}

function setIntervals(previews) {
  const next = {};
  for (const p of previews) if (p && RATINGS.includes(p.rating)) next[p.rating] = p.interval || "";
  for (const btn of ui.ratings.querySelectorAll("button[data-rating]")) {
    const r = btn.dataset.rating;
    btn.querySelector(".next").textContent = next[r] || "";
    btn.setAttribute("aria-label", next[r] ? `${LABELS[r]}, next in ${next[r]} (key ${RATINGS.indexOf(r) + 1})` : `${LABELS[r]} (key ${RATINGS.indexOf(r) + 1})`);
  }
}

function setButtons(enabled) {
  ui.reveal.disabled = !enabled;
  for (const btn of ui.ratings.querySelectorAll("button")) btn.disabled = !enabled;
}

function setProgress(reviewed = 0, remaining = 0) {
  const total = reviewed + remaining;
  ui.progress.textContent = total > 0 ? `${reviewed} of ${total} reviewed` : "";
  ui.meter.style.width = total > 0 ? `${Math.round((reviewed * 100) / total)}%` : "0";
}

function setStatus(text) {
  ui.status.textContent = text;
}

function setLink(url) {
  if (typeof url === "string" && /^https?:\/\//.test(url)) {
    ui.link.href = url;
    ui.link.hidden = false;
  }
}

function textOf(result) {
  return (result?.content || [])
    .filter((c) => c && c.type === "text")
    .map((c) => c.text)
    .join(" ")
    .trim();
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

ui.reveal.addEventListener("click", reveal);
ui.ratings.addEventListener("click", (e) => {
  const btn = e.target.closest("button[data-rating]");
  if (btn) rate(btn.dataset.rating);
});
ui.undo.addEventListener("click", undo);
ui.exportBtn.addEventListener("click", exportDeck);
// The export link opens through the host when it can, as the study link.
ui.exportLink.addEventListener("click", (e) => {
  if (!app.getHostCapabilities()?.openLinks || !ui.exportLink.href) return;
  e.preventDefault();
  app.openLink({ url: ui.exportLink.href }).catch(() => window.open(ui.exportLink.href, "_blank", "noopener"));
});
ui.recheck.addEventListener("click", () => {
  if (view && !busy) refresh(view.sessionId, "");
});
ui.expand.addEventListener("click", async () => {
  const want = ui.root.dataset.display === "fullscreen" ? "inline" : "fullscreen";
  try {
    const { mode } = await app.requestDisplayMode({ mode: want });
    applyHostContext({ displayMode: mode, availableDisplayModes: app.getHostContext()?.availableDisplayModes });
  } catch (err) {
    console.warn("takhtabush widget:", err);
  }
});
// The study link opens through the host when it can (a sandboxed frame may
// not open windows itself); otherwise the link works as a plain link.
ui.link.addEventListener("click", (e) => {
  if (!app.getHostCapabilities()?.openLinks || !ui.link.href) return;
  e.preventDefault();
  app.openLink({ url: ui.link.href }).catch(() => window.open(ui.link.href, "_blank", "noopener"));
});

document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey || e.repeat) return;
  if (e.target instanceof HTMLElement && e.target.closest("a, audio, input, textarea, select")) return;
  if (e.key === " " || e.key === "Enter") {
    if (view?.current && !revealed) {
      e.preventDefault();
      reveal();
    }
    return;
  }
  const n = Number(e.key);
  if (revealed && n >= 1 && n <= 4) {
    e.preventDefault();
    rate(RATINGS[n - 1]);
  }
});

async function main() {
  setStatus("Connecting…");
  try {
    await app.connect(new PostMessageTransport(window.parent, window.parent));
  } catch (err) {
    refused("This page is the Takhtabush study widget; it runs inside a chat app that supports MCP Apps.", err);
    return;
  }
  applyHostContext(app.getHostContext());
  if (!view) setStatus("Waiting for the study session…");
}

main();
