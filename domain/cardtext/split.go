package cardtext

import (
	"fmt"
	"strings"
)

// row is one record of delimited text: its fields and the 1-based line it
// starts on, or the reason it could not be read.
type row struct {
	line   int
	fields []string
	err    string
}

// splitRows splits text (with "\n" line ends) into rows of fields separated
// by sep. A field that starts with a double quote is quoted: it runs to the
// next lone double quote, may contain the separator and line breaks, and
// writes a double quote as two. A quoted field that never ends, or is
// followed by anything but the separator or a line end, makes its row
// invalid; reading resumes on the next line.
func splitRows(text string, sep byte, firstLine int) []row {
	var rows []row
	line := firstLine
	i, n := 0, len(text)
	for i < n {
		start, startLine := i, line
		var fields []string
		bad := ""
	fieldsLoop:
		for {
			var field string
			if i < n && text[i] == '"' {
				var b strings.Builder
				j, l, closed := i+1, line, false
				for j < n {
					c := text[j]
					if c == '"' {
						if j+1 < n && text[j+1] == '"' {
							b.WriteByte('"')
							j += 2
							continue
						}
						closed = true
						j++
						break
					}
					if c == '\n' {
						l++
					}
					b.WriteByte(c)
					j++
				}
				switch {
				case !closed:
					bad = "a quoted field starts here but never ends; close it with \" and write a quote inside a quoted field as \"\""
				case j < n && text[j] != sep && text[j] != '\n':
					bad = fmt.Sprintf("unexpected text after a closing quote; quote the whole field and write a quote inside it as \"\" (near %q)", excerpt(text[j:]))
				}
				if bad != "" {
					// Resume after the line the row started on.
					line = startLine
					i = start
					for i < n && text[i] != '\n' {
						i++
					}
					if i < n {
						i++
						line++
					}
					break fieldsLoop
				}
				field, i, line = b.String(), j, l
			} else {
				j := i
				for j < n && text[j] != sep && text[j] != '\n' {
					j++
				}
				field, i = text[i:j], j
			}
			fields = append(fields, field)
			if i >= n {
				break
			}
			if text[i] == '\n' {
				i++
				line++
				break
			}
			i++ // the separator
			if i >= n {
				fields = append(fields, "")
				break
			}
		}
		if bad != "" {
			rows = append(rows, row{line: startLine, err: bad})
			continue
		}
		rows = append(rows, row{line: startLine, fields: fields})
	}
	return rows
}

func excerpt(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 20 {
		s = s[:20]
	}
	return s
}
