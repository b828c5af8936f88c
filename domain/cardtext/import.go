package cardtext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/takhtabush/takhtabush/contracts"
)

// Record is one card read from pasted text, not yet validated, or the
// reason its line could not be read.
type Record struct {
	Line int               // 1-based line the record starts on
	Card contracts.NewCard // front, back and tags as read
	Err  string            // set when the line could not be read; starts with "line N:"
}

// Parsed is the result of Parse.
type Parsed struct {
	Format  contracts.ImportFormat // the format read (never auto)
	Records []Record               // in text order, blank lines and header rows left out
}

// Parse reads pasted CSV, TSV or Anki "Notes in Plain Text" export.
//
// Anki files may start with header lines such as "#separator:tab",
// "#html:true", "#tags column:3", "#columns:Front<TAB>Back<TAB>Tags",
// "#notetype column:1", "#deck column:2", "#guid column:1"; the notetype,
// deck and guid columns are skipped, the first two remaining columns are
// front and back, and further fields are appended to the back. CSV and TSV
// rows are front, back and an optional tags column; a first row of column
// names (e.g. "front,back,tags" or "question,answer") is recognised and
// skipped. Tags are separated by spaces (or commas). Quoted fields may hold
// separators, line breaks and doubled quotes.
//
// ImportAuto (or "") picks Anki when the text starts with Anki header
// lines, else TSV when the first line has a tab, else CSV (comma, or
// semicolon when the first line has no comma).
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
		sep = h.sep
		if sep == 0 {
			if sep = detectSeparator(body); sep == 0 {
				sep = '\t'
			}
		}
	}

	rows := splitRows(body, sep, bodyLine)
	m := h.mapping(format == contracts.ImportAnki)
	out := Parsed{Format: format}
	first := true
	for _, r := range rows {
		if r.err != "" {
			out.Records = append(out.Records, Record{Line: r.line, Err: fmt.Sprintf("line %d: %s", r.line, r.err)})
			first = false
			continue
		}
		if blank(r.fields) {
			continue
		}
		if first {
			first = false
			if hm, ok := headerRow(r.fields); ok && !h.hasColumns {
				m = hm
				continue
			}
		}
		out.Records = append(out.Records, m.record(r, format, sep))
	}
	if len(out.Records) == 0 {
		return Parsed{}, contracts.Errorf(contracts.KindInvalid, "no cards found in the text: write one card per line, front and back separated by a tab or a comma")
	}
	return out, nil
}

// header holds what Anki header lines said.
type header struct {
	anki        bool
	sep         byte
	tagsCol     int // 1-based; 0 when absent
	skipCols    map[int]bool
	columnNames []string
	hasColumns  bool
}

var ankiKeys = map[string]bool{
	"separator": true, "html": true, "tags column": true, "columns": true, "notetype column": true,
	"deck column": true, "guid column": true, "notetype": true, "deck": true, "tags": true, "if matches": true,
}

// readHeader consumes the leading "#key:value" lines and returns them, the
// rest of the text and the line number the rest starts on.
func readHeader(text string) (header, string, int) {
	h := header{skipCols: map[int]bool{}}
	line := 1
	var rawColumns string
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
		case "tags column":
			h.tagsCol, _ = strconv.Atoi(strings.TrimSpace(value))
		case "notetype column", "deck column", "guid column":
			if c, err := strconv.Atoi(strings.TrimSpace(value)); err == nil {
				h.skipCols[c] = true
			}
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

// detectSeparator looks at the first non-blank record, outside quoted
// fields: tab, then comma, then semicolon; 0 when it has none of them.
func detectSeparator(body string) byte {
	var seen [256]bool
	inQuotes, any := false, false
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '"':
			inQuotes = !inQuotes
		case inQuotes:
		case c == '\n':
			if any {
				i = len(body)
			}
		case c == '\t' || c == ',' || c == ';':
			seen[c] = true
		}
		if c != '\n' && c != ' ' && c != '\r' {
			any = true
		}
	}
	for _, c := range []byte{'\t', ',', ';'} {
		if seen[c] {
			return c
		}
	}
	return 0
}

func blank(fields []string) bool {
	for _, f := range fields {
		if strings.TrimSpace(f) != "" {
			return false
		}
	}
	return true
}

var (
	frontNames = map[string]bool{"front": true, "question": true, "q": true, "term": true, "word": true, "prompt": true}
	backNames  = map[string]bool{"back": true, "answer": true, "a": true, "definition": true, "meaning": true, "response": true}
	tagNames   = map[string]bool{"tags": true, "tag": true}
)

// columns says which fields are front, back and tags (0-based; -1 absent),
// and which are skipped.
type columns struct {
	front, back, tags int
	skip              map[int]bool
	extrasToBack      bool // append other fields to the back (Anki)
	maxFields         int  // more fields make the row invalid; 0 for no limit
}

// mapping returns the columns of a file without a header row.
func (h header) mapping(anki bool) columns {
	if !anki {
		return columns{front: 0, back: 1, tags: 2, maxFields: 3}
	}
	c := columns{front: -1, back: -1, tags: h.tagsCol - 1, skip: map[int]bool{}, extrasToBack: true}
	for k := range h.skipCols {
		c.skip[k-1] = true
	}
	if c.tags < 0 {
		for i, name := range h.columnNames {
			if tagNames[strings.ToLower(strings.TrimSpace(name))] {
				c.tags = i
			}
		}
	}
	if c.tags >= 0 {
		c.skip[c.tags] = true
	}
	for i := 0; c.back < 0; i++ {
		if c.skip[i] {
			continue
		}
		if c.front < 0 {
			c.front = i
		} else {
			c.back = i
		}
	}
	return c
}

// headerRow recognises a first row of column names.
func headerRow(fields []string) (columns, bool) {
	c := columns{front: -1, back: -1, tags: -1, skip: map[int]bool{}}
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

func (c columns) record(r row, format contracts.ImportFormat, sep byte) Record {
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
	if c.extrasToBack {
		for i, f := range r.fields {
			if i == c.front || i == c.back || i == c.tags || c.skip[i] || strings.TrimSpace(f) == "" {
				continue
			}
			rec.Card.Back += "\n\n" + f
		}
	}
	return rec
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
