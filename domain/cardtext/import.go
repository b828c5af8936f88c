package cardtext

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/notes"
)

// Record is one card read from pasted text, not yet validated, or the
// reason its line could not be read.
type Record struct {
	Line int               // 1-based line the record starts on
	Card contracts.NewCard // front, back (further fields appended) and tags as read
	// Anki format only: the note's fields in column order, its note type,
	// deck and GUID (from their columns or the "#notetype:", "#deck:"
	// headers; empty when not given).
	Fields   []string
	Notetype string
	Deck     string
	GUID     string
	Err      string // set when the line could not be read; starts with "line N:"
}

// Parsed is the result of Parse.
type Parsed struct {
	Format  contracts.ImportFormat // the format read (never auto)
	HTML    bool                   // Anki format with "#html:true": fields are Anki HTML
	Records []Record               // in text order, blank lines and header rows left out
}

// Parse reads pasted CSV, TSV or Anki "Notes in Plain Text" export.
//
// Anki files may start with header lines such as "#separator:tab",
// "#html:true", "#tags column:3", "#columns:Front<TAB>Back<TAB>Tags",
// "#notetype column:1", "#deck column:2", "#guid column:1", "#tags:a b"
// (tags for every note), "#notetype:Cloze" and "#deck:German"; older
// exports start with a line "tags:a b". The notetype, deck and guid
// columns are read into the record; the other columns are the note's
// fields, the first two also front and back (further fields appended to
// the back). Without a "#tags column" or "#columns" header, the last
// column of a row with more columns than its note type has fields (more
// than two for an unknown type) is the tags column, as in older exports.
// No header row is guessed in an Anki file.
//
// CSV and TSV rows are front, back and an optional tags column; a first
// row of column names (e.g. "front,back,tags", "question,answer",
// "Frage;Antwort", "Recto;Verso") is recognised and skipped. Tags are
// separated by spaces (or commas) and kept as written. Quoted fields may
// hold separators, line breaks and doubled quotes; a field that only
// starts with a quote ("Guten Tag" sagen) is read as written.
//
// ImportAuto (or "") picks Anki when the text starts with Anki header
// lines, else the separator found on most of the first lines: tab (TSV),
// comma or semicolon (CSV).
//
// Parse fails (invalid) only for the whole text: an unknown format, text
// over contracts.MaxImportBytes, or text without a single card line.
// Lines that cannot be read become records with Err set.
func Parse(text string, format contracts.ImportFormat) (Parsed, error) {
	if len(text) > contracts.MaxImportBytes {
		return Parsed{}, contracts.Errorf(contracts.KindInvalid, "text is %d bytes; the limit is %d: split it into several imports", len(text), contracts.MaxImportBytes)
	}
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")

	h, body, bodyLine := readHeader(text)
	if format == "" {
		format = contracts.ImportAuto
	}
	var sep byte
	switch format {
	case contracts.ImportAuto:
		if h.anki {
			format = contracts.ImportAnki
		} else {
			sep = detectSeparator(body)
			if sep == 0 {
				return Parsed{}, contracts.Errorf(contracts.KindInvalid, "could not tell the format: write one card per line, front and back separated by a tab or a comma (or pass format)")
			}
			format = contracts.ImportCSV
			if sep == '\t' {
				format = contracts.ImportTSV
			}
		}
	case contracts.ImportTSV:
		sep = '\t'
	case contracts.ImportCSV:
		sep = ','
		if d := detectSeparator(body); d == ';' {
			sep = ';'
		}
	case contracts.ImportAnki:
	default:
		return Parsed{}, contracts.Errorf(contracts.KindInvalid, "format must be one of auto, csv, tsv, anki; got %q", format)
	}
	if format == contracts.ImportAnki {
		h.anki = true
		sep = h.sep
		if sep == 0 {
			if sep = detectSeparator(body); sep == 0 {
				sep = '\t'
			}
		}
	}

	rows := splitRows(body, sep, bodyLine)
	m := h.mapping(format == contracts.ImportAnki)
	out := Parsed{Format: format, HTML: format == contracts.ImportAnki && h.html}
	first := format != contracts.ImportAnki
	for _, r := range rows {
		if blank(r.fields) {
			continue
		}
		if first {
			first = false
			if hm, ok := headerRow(r.fields); ok {
				m = hm
				continue
			}
		}
		rec := m.record(r, sep)
		if format == contracts.ImportAnki && rec.Err == "" {
			rec.Card.Tags = append(slices.Clone(h.tags), rec.Card.Tags...)
			if rec.Notetype == "" {
				rec.Notetype = h.notetype
			}
			if rec.Deck == "" {
				rec.Deck = h.deck
			}
		}
		out.Records = append(out.Records, rec)
	}
	if len(out.Records) == 0 {
		return Parsed{}, contracts.Errorf(contracts.KindInvalid, "no cards found in the text: write one card per line, front and back separated by a tab or a comma")
	}
	return out, nil
}

// header holds what Anki header lines said.
type header struct {
	anki        bool
	html        bool
	sep         byte
	tagsCol     int // 1-based; 0 when absent
	notetypeCol int // 1-based; 0 when absent
	deckCol     int
	guidCol     int
	columnNames []string
	hasColumns  bool
	tags        []string // "#tags:" or a legacy "tags:" line
	notetype    string   // "#notetype:"
	deck        string   // "#deck:"
}

var ankiKeys = map[string]bool{
	"separator": true, "html": true, "tags column": true, "columns": true, "notetype column": true,
	"deck column": true, "guid column": true, "notetype": true, "deck": true, "tags": true, "if matches": true,
}

// readHeader consumes the leading "#key:value" lines and returns them, the
// rest of the text and the line number the rest starts on.
func readHeader(text string) (header, string, int) {
	h := header{}
	line := 1
	var rawColumns string
	// Exports of Anki 2.0 and early 2.1 start with a line "tags:a b"
	// naming tags for every note.
	if first, rest, _ := strings.Cut(text, "\n"); len(first) >= 5 && strings.EqualFold(first[:5], "tags:") && !strings.ContainsAny(first, "\t,;") {
		h.anki = true
		h.tags = splitTags(first[5:])
		text, line = rest, 2
	}
	for strings.HasPrefix(text, "#") {
		end := strings.IndexByte(text, '\n')
		l := text
		if end >= 0 {
			l = text[:end]
		}
		key, value, ok := strings.Cut(l[1:], ":")
		key = strings.ToLower(strings.TrimSpace(key))
		if !ok || !ankiKeys[key] {
			break
		}
		h.anki = true
		switch key {
		case "separator":
			h.sep = separatorByName(value)
		case "html":
			h.html = strings.EqualFold(strings.TrimSpace(value), "true")
		case "tags column":
			h.tagsCol = column(value)
		case "notetype column":
			h.notetypeCol = column(value)
		case "deck column":
			h.deckCol = column(value)
		case "guid column":
			h.guidCol = column(value)
		case "tags":
			h.tags = splitTags(value)
		case "notetype":
			h.notetype = strings.TrimSpace(value)
		case "deck":
			h.deck = strings.TrimSpace(value)
		case "columns":
			rawColumns, h.hasColumns = value, true
		}
		if end < 0 {
			text = ""
		} else {
			text = text[end+1:]
		}
		line++
	}
	if h.hasColumns {
		sep := h.sep
		if sep == 0 {
			sep = '\t'
		}
		h.columnNames = strings.Split(rawColumns, string(sep))
	}
	return h, text, line
}

// column reads a 1-based column number; 0 when it is not one.
func column(v string) int {
	c, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || c < 1 || c > 1000 {
		return 0
	}
	return c
}

func separatorByName(v string) byte {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "tab", `\t`:
		return '\t'
	case "comma":
		return ','
	case "semicolon":
		return ';'
	case "space":
		return ' '
	case "pipe":
		return '|'
	case "colon":
		return ':'
	}
	if len(v) == 1 {
		return v[0]
	}
	if v == "" {
		return '\t' // "#separator:<TAB>" trimmed away
	}
	return 0
}

// detectSeparator looks at the first non-blank records (up to
// detectLines), outside quoted fields, and returns the separator found on
// most of them: tab, comma or semicolon, ties in that order; 0 when none
// has any of them.
func detectSeparator(body string) byte {
	const detectLines = 50
	var lines [256]int
	var seen [256]bool
	inQuotes, nonBlank, records := false, false, 0
	endRecord := func() {
		for _, c := range []byte{'\t', ',', ';'} {
			if seen[c] {
				lines[c]++
			}
			seen[c] = false
		}
		if nonBlank {
			records++
		}
		nonBlank = false
	}
	for i := 0; i < len(body) && records < detectLines; i++ {
		c := body[i]
		switch {
		case c == '"':
			inQuotes = !inQuotes
		case inQuotes:
		case c == '\n':
			endRecord()
			continue
		case c == '\t' || c == ',' || c == ';':
			seen[c] = true
		}
		if c != ' ' && c != '\r' {
			nonBlank = true
		}
	}
	endRecord()
	best := byte(0)
	for _, c := range []byte{'\t', ',', ';'} {
		if lines[c] > 0 && (best == 0 || lines[c] > lines[best]) {
			best = c
		}
	}
	return best
}

func blank(fields []string) bool {
	for _, f := range fields {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

// Column names recognised in a first row, lower-cased: English, German,
// French, Spanish, Italian, Portuguese, Dutch, Polish, Russian, Ukrainian,
// Japanese and Chinese, and Anki's own field names.
var (
	frontNames = setOf("front", "question", "q", "term", "word", "prompt", "cue", "side 1", "side a",
		"frage", "vorderseite", "begriff", "wort", "question", "recto", "devant", "terme", "mot",
		"pregunta", "anverso", "frente", "término", "termino", "palabra", "domanda", "fronte", "parola", "termine",
		"pergunta", "vraag", "voorkant", "term", "pytanie", "przód", "przod", "pojęcie",
		"вопрос", "лицевая сторона", "термин", "слово", "питання", "лицьова сторона",
		"表面", "質問", "問題", "おもて", "问题", "正面", "問")
	backNames = setOf("back", "answer", "a", "definition", "meaning", "response", "side 2", "side b", "translation",
		"antwort", "rückseite", "rueckseite", "bedeutung", "definition", "übersetzung", "uebersetzung",
		"réponse", "reponse", "verso", "dos", "définition", "traduction", "sens",
		"respuesta", "reverso", "definición", "definicion", "significado", "traducción", "traduccion",
		"risposta", "retro", "definizione", "significato", "traduzione",
		"resposta", "tradução", "traducao", "antwoord", "achterkant", "betekenis", "vertaling",
		"odpowiedź", "odpowiedz", "tył", "tyl", "znaczenie", "tłumaczenie",
		"ответ", "оборотная сторона", "значение", "перевод", "определение", "відповідь", "переклад",
		"裏面", "答え", "解答", "うら", "意味", "答案", "背面", "释义", "答")
	tagNames = setOf("tags", "tag", "schlagwörter", "schlagworte", "stichwörter", "etiketten", "étiquettes", "etiquettes",
		"etiquetas", "etichette", "tagi", "теги", "метки", "тэги", "теґи", "タグ", "标签", "標籤")
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// columns says which fields are front, back, tags, note type, deck and
// GUID (0-based; -1 absent).
type columns struct {
	front, back, tags    int
	notetype, deck, guid int
	anki                 bool // Anki: every other column is a note field
	legacyTags           bool // Anki without a tags header: a surplus last column is tags
	maxFields            int  // more fields make the row invalid; 0 for no limit
}

// mapping returns the columns of a file without a header row.
func (h header) mapping(anki bool) columns {
	if !anki {
		return columns{front: 0, back: 1, tags: 2, notetype: -1, deck: -1, guid: -1, maxFields: 3}
	}
	c := columns{front: -1, back: -1, tags: h.tagsCol - 1, notetype: h.notetypeCol - 1, deck: h.deckCol - 1, guid: h.guidCol - 1, anki: true}
	if c.tags < 0 {
		for i, name := range h.columnNames {
			if tagNames[strings.ToLower(strings.TrimSpace(name))] {
				c.tags = i
			}
		}
	}
	c.legacyTags = c.tags < 0 && !h.hasColumns
	return c
}

// headerRow recognises a first row of column names.
func headerRow(fields []string) (columns, bool) {
	c := columns{front: -1, back: -1, tags: -1, notetype: -1, deck: -1, guid: -1}
	for i, f := range fields {
		name := strings.ToLower(strings.TrimSpace(f))
		switch {
		case frontNames[name] && c.front < 0:
			c.front = i
		case backNames[name] && c.back < 0:
			c.back = i
		case tagNames[name] && c.tags < 0:
			c.tags = i
		}
	}
	if c.front < 0 || c.back < 0 {
		return columns{}, false
	}
	c.maxFields = len(fields)
	return c, true
}

func (c columns) record(r row, sep byte) Record {
	if c.anki {
		return c.ankiRecord(r, sep)
	}
	rec := Record{Line: r.line}
	need := max(c.front, c.back) + 1
	if len(r.fields) < need {
		rec.Err = fmt.Sprintf("line %d: expected front and back separated by %s; found %d column(s)", r.line, sepName(sep), len(r.fields))
		return rec
	}
	if c.maxFields > 0 && len(r.fields) > c.maxFields {
		rec.Err = fmt.Sprintf("line %d: expected at most %d columns (front, back, tags), found %d; put fields that contain %s in double quotes", r.line, c.maxFields, len(r.fields), sepName(sep))
		return rec
	}
	rec.Card.Front = r.fields[c.front]
	rec.Card.Back = r.fields[c.back]
	if c.tags >= 0 && c.tags < len(r.fields) {
		rec.Card.Tags = splitTags(r.fields[c.tags])
	}
	return rec
}

// ankiRecord reads a row of an Anki export: the note type, deck and GUID
// columns, the tags column, and every other column as a note field.
func (c columns) ankiRecord(r row, sep byte) Record {
	rec := Record{Line: r.line}
	get := func(i int) string {
		if i >= 0 && i < len(r.fields) {
			return strings.TrimSpace(r.fields[i])
		}
		return ""
	}
	rec.Notetype, rec.Deck, rec.GUID = get(c.notetype), get(c.deck), get(c.guid)
	tagsCol := c.tags
	var fieldCols []int
	for i := range r.fields {
		if i != c.notetype && i != c.deck && i != c.guid && i != tagsCol {
			fieldCols = append(fieldCols, i)
		}
	}
	if c.legacyTags && len(fieldCols) > legacyFieldCount(rec.Notetype) {
		tagsCol = fieldCols[len(fieldCols)-1]
		fieldCols = fieldCols[:len(fieldCols)-1]
	}
	for _, i := range fieldCols {
		rec.Fields = append(rec.Fields, r.fields[i])
	}
	for len(rec.Fields) > 1 && strings.TrimSpace(rec.Fields[len(rec.Fields)-1]) == "" && len(rec.Fields) > legacyFieldCount(rec.Notetype) {
		rec.Fields = rec.Fields[:len(rec.Fields)-1]
	}
	if tagsCol >= 0 && tagsCol < len(r.fields) {
		rec.Card.Tags = splitTags(r.fields[tagsCol])
	}
	if len(rec.Fields) < 2 && !looksCloze(rec) {
		rec.Err = fmt.Sprintf("line %d: expected at least two fields separated by %s; found %d", r.line, sepName(sep), len(rec.Fields))
		return rec
	}
	rec.Card.Front = rec.Fields[0]
	if len(rec.Fields) > 1 {
		rec.Card.Back = rec.Fields[1]
	}
	for _, f := range rec.Fields[min(2, len(rec.Fields)):] {
		if strings.TrimSpace(f) != "" {
			rec.Card.Back += "\n\n" + f
		}
	}
	return rec
}

// looksCloze reports whether a one-field record is a cloze note, which
// needs no second field.
func looksCloze(rec Record) bool {
	if len(rec.Fields) != 1 {
		return false
	}
	if t, ok := notes.StockByName(rec.Notetype); ok {
		return t.Kind == notes.KindCloze
	}
	return len(notes.ClozeNumbers(rec.Fields[0])) > 0
}

// legacyFieldCount is how many fields a row of this note type has before
// a legacy tags column: the stock type's field count, or two.
func legacyFieldCount(notetype string) int {
	if t, ok := notes.StockByName(notetype); ok {
		return len(t.Fields)
	}
	return 2
}

func splitTags(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == ',' })
}

func sepName(sep byte) string {
	switch sep {
	case '\t':
		return "a tab"
	case ',':
		return "a comma"
	case ';':
		return "a semicolon"
	case ' ':
		return "a space"
	}
	return fmt.Sprintf("%q", string(sep))
}
