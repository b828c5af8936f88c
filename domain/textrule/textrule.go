// Package textrule is the one rule for every string a user or an agent
// gives Takhtabush (deck names and descriptions, card fronts and backs,
// tags): valid UTF-8, no NUL or other C0 control character except tab and
// newline, CRLF stored as LF. Labels (names and tags) also refuse the
// bidirectional override and isolate controls (U+202A–U+202E,
// U+2066–U+2069), which can make a name read differently from what it is,
// and values made only of invisible characters. Card text keeps
// right-to-left scripts and their marks exactly as written.
package textrule

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind says which strings a rule applies to.
type Kind int

// The kinds of text.
const (
	// Text is free text: card sides and descriptions.
	Text Kind = iota
	// Label is a short identifying string: deck names and tags.
	Label
)

// Error is a refusal by the rule; its message names the field and says
// how to fix the value.
type Error struct {
	Field  string
	Reason string
}

// Error implements error.
func (e *Error) Error() string { return e.Field + " " + e.Reason }

// Clean applies the rule of kind k to s, the value of field (named in the
// error), and returns the value to store: s itself, with CRLF turned into
// LF. It does not trim or limit length; callers do.
func Clean(field, s string, k Kind) (string, error) {
	if !utf8.ValidString(s) {
		return "", &Error{field, "is not valid UTF-8 text"}
	}
	if strings.Contains(s, "\r\n") {
		s = strings.ReplaceAll(s, "\r\n", "\n")
	}
	visible := false
	chars := 0
	for _, r := range s {
		chars++
		switch {
		case r == '\t' || r == '\n':
		case r == 0:
			return "", &Error{field, fmt.Sprintf("contains a NUL character (U+0000, character %d); remove it", chars)}
		case r < 0x20:
			return "", &Error{field, fmt.Sprintf("contains the control character U+%04X (character %d); remove it", r, chars)}
		case k == Label && isBidiControl(r):
			return "", &Error{field, fmt.Sprintf("contains the bidirectional control U+%04X (character %d), which can disguise text; remove it", r, chars)}
		}
		if !visible && !Invisible(r) {
			visible = true
		}
	}
	if k == Label && !visible && strings.TrimSpace(s) != "" { // blank values are the caller's "empty"
		return "", &Error{field, "is made only of invisible characters; use visible text"}
	}
	return s, nil
}

// isBidiControl reports the embedding, override and isolate controls.
func isBidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

// Invisible reports whether r shows nothing on its own: white space,
// format characters (zero-width space and joiners, direction marks, the
// byte order mark), combining marks without a base, and the blank fillers
// some scripts have.
func Invisible(r rune) bool {
	switch r {
	case 0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x180E:
		return true
	}
	return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) ||
		unicode.IsControl(r)
}

// Shown returns s as a person deciding whom to trust should read it (an
// application's self-chosen name on a consent page): without control and
// format characters (bidirectional controls, zero-width spaces and
// joiners, direction marks, tag characters), without the blank fillers
// some scripts have, white space collapsed to single spaces and trimmed.
// Invalid UTF-8 is dropped. What is left may be "".
func Shown(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToValidUTF8(s, "") {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r), r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0, r == 0x2800, r == 0x180E:
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
