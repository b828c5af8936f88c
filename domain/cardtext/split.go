package cardtext

import "strings"

// row is one record of delimited text: its fields and the 1-based line it
// starts on.
type row struct {
	line   int
	fields []string
}

// splitRows splits text (with "\n" line ends) into rows of fields separated
// by sep. A field that starts with a double quote is quoted: it runs to the
// next lone double quote, may contain the separator and line breaks, and
// writes a double quote as two. A field whose closing quote is followed by
// more text, or whose quote never closes, is read as written (quotes
// kept), so nothing is lost.
func splitRows(text string, sep byte, firstLine int) []row {
	var rows []row
	line := firstLine
	i, n := 0, len(text)
	for i < n {
		startLine := line
		var fields []string
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
				if !closed || (j < n && text[j] != sep && text[j] != '\n') {
					// Not a quoted field after all ("Guten Tag" sagen, or a
					// quote that never closes): read it as written, up to
					// the next separator or line end after the closing
					// quote (after the opening one when none closes).
					from := j
					if !closed {
						from = i + 1
					}
					k := from
					for k < n && text[k] != sep && text[k] != '\n' {
						k++
					}
					raw := text[i:k]
					if closed {
						line += strings.Count(raw, "\n")
					}
					field, i = raw, k
				} else {
					field, i, line = b.String(), j, l
				}
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
		rows = append(rows, row{line: startLine, fields: fields})
	}
	return rows
}
