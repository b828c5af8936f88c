// Package cardtext is the pure text handling of cards: content
// normalisation and hashing (duplicate detection), side and tag validation,
// and parsing of pasted CSV, TSV and Anki plain-text exports.
package cardtext

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/textrule"
)

// Normalize returns the form of a card side that duplicate detection
// compares: trimmed, internal whitespace runs collapsed to one space, and
// lower-cased. (Unicode normalisation forms are not applied: the standard
// library has no NFC.)
func Normalize(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// Hash returns the content hash of a card: the hex SHA-256 of the
// normalised front and back joined by a unit separator. Two cards with the
// same hash in one deck are duplicates.
func Hash(front, back string) string {
	sum := sha256.Sum256([]byte(Normalize(front) + "\x1f" + Normalize(back)))
	return hex.EncodeToString(sum[:])
}

// CleanSide trims a card side and checks it: the text rule (textrule.Text:
// valid UTF-8, no control characters but tab and newline, CRLF as LF,
// right-to-left text as written), not empty, at most
// contracts.MaxCardSideLen characters. name ("front" or "back") starts the
// error message.
func CleanSide(name, s string) (string, error) {
	s, err := textrule.Clean(name, s, textrule.Text)
	if err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("%s must not be empty", name)
	}
	if n := utf8.RuneCountInString(s); n > contracts.MaxCardSideLen {
		return "", fmt.Errorf("%s is %d characters; the limit is %d", name, n, contracts.MaxCardSideLen)
	}
	return s, nil
}

// NormalizeTags trims tags (keeping their case as written, as Anki does),
// drops empty ones and duplicates (compared case-insensitively, keeping
// the first spelling), and checks each: at most
// contracts.MaxTagLen characters, no whitespace or control characters, and
// at most contracts.MaxTagsPerCard tags. The result is never nil.
func NormalizeTags(tags []string) ([]string, error) {
	out := make([]string, 0, len(tags))
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if _, err := textrule.Clean(fmt.Sprintf("tag %q", t), t, textrule.Label); err != nil {
			return nil, err
		}
		if strings.IndexFunc(t, unicode.IsSpace) >= 0 {
			return nil, fmt.Errorf("tag %q contains whitespace; use %q instead", t, strings.Join(strings.Fields(t), "-"))
		}
		if strings.IndexFunc(t, unicode.IsControl) >= 0 {
			return nil, fmt.Errorf("tag %q contains a control character", t)
		}
		if n := utf8.RuneCountInString(t); n > contracts.MaxTagLen {
			return nil, fmt.Errorf("tag %q is %d characters; the limit is %d", t, n, contracts.MaxTagLen)
		}
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, t) }) {
			out = append(out, t)
		}
	}
	if len(out) > contracts.MaxTagsPerCard {
		return nil, fmt.Errorf("a card has %d tags; the limit is %d", len(out), contracts.MaxTagsPerCard)
	}
	return out, nil
}

// Clean validates and normalises one new card: sides trimmed and checked,
// tags normalised. The error message says what to fix.
func Clean(c contracts.NewCard) (contracts.NewCard, error) {
	front, err := CleanSide("front", c.Front)
	if err != nil {
		return c, err
	}
	back, err := CleanSide("back", c.Back)
	if err != nil {
		return c, err
	}
	tags, err := NormalizeTags(c.Tags)
	if err != nil {
		return c, err
	}
	return contracts.NewCard{Front: front, Back: back, Tags: tags}, nil
}
