package kernel

import (
	"context"
	"encoding/base64"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
)

// Actor returns the acting principal, or unauthenticated.
func Actor(ctx context.Context) (contracts.Principal, error) {
	p, ok := contracts.PrincipalFrom(ctx)
	if !ok {
		return contracts.Principal{}, contracts.Errorf(contracts.KindUnauthenticated, "no authenticated user: sign in or present an API key")
	}
	return p, nil
}

// UserID returns the acting user's id, or unauthenticated.
func UserID(ctx context.Context) (string, error) {
	p, err := Actor(ctx)
	return p.UserID, err
}

// CheckBatch refuses a bulk call whose list field holds no items or more
// than max, naming the field and the limit.
func CheckBatch(field string, n, max int) error {
	if n == 0 || n > max {
		return contracts.Errorf(contracts.KindInvalid, "%s holds %d items; send 1-%d per call", field, n, max)
	}
	return nil
}

// Fail wraps an unexpected error as internal and passes *contracts.Error through.
func Fail(err error) error { return contracts.Internal(err) }

// maxIDLen bounds ids taken from callers before they reach a store.
const maxIDLen = 128

// PlausibleID reports whether s can be an id: non-empty, short, printable
// ASCII without spaces. Anything else cannot exist and is reported as not
// found without asking the store.
func PlausibleID(s string) bool {
	if s == "" || len(s) > maxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// NotFound is the not-found error of the what named by id.
func NotFound(what, id string) error {
	return contracts.Errorf(contracts.KindNotFound, "%s %s not found", what, QuoteID(id))
}

// QuoteID shows an id in a message, shortened and quoted when odd.
func QuoteID(id string) string {
	if PlausibleID(id) {
		return id
	}
	if len(id) > 40 {
		id = id[:40] + "…"
	}
	return `"` + strings.ToValidUTF8(id, "?") + `"`
}

// DeckNotFound is the not-found error of deck id, pointing at list_decks.
func DeckNotFound(id string) error {
	return contracts.Errorf(contracts.KindNotFound, "deck %s not found; list_decks shows the user's decks", QuoteID(id))
}

// Cursors are opaque to callers: base64url of the last id of a page.

// BadCursor is the message of a cursor that does not decode.
const BadCursor = "cursor is not valid; omit it to start from the first page"

// EncodeCursor returns the opaque cursor of a page that continues after
// (or before) the item with id.
func EncodeCursor(id string) string { return base64.RawURLEncoding.EncodeToString([]byte(id)) }

// DecodeCursor returns the id a cursor carries; "" for an empty cursor.
func DecodeCursor(c string) (string, error) {
	if c == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) == 0 || !utf8.Valid(b) || !PlausibleID(string(b)) {
		return "", contracts.Errorf(contracts.KindInvalid, BadCursor)
	}
	return string(b), nil
}

// PageLimit applies a default and checks the range 1..max (0 means default).
func PageLimit(limit, def, max int) (int, error) {
	if limit == 0 {
		return def, nil
	}
	if limit < 0 || limit > max {
		return 0, contracts.Errorf(contracts.KindInvalid, "limit must be 1-%d, got %d", max, limit)
	}
	return limit, nil
}

// Page cuts a fetched slice of up to limit+1 items into a page.
func Page[T any](items []T, limit int, idOf func(T) string) contracts.Page[T] {
	if items == nil {
		items = []T{}
	}
	if len(items) <= limit {
		return contracts.Page[T]{Items: items}
	}
	items = items[:limit]
	return contracts.Page[T]{Items: items, NextCursor: EncodeCursor(idOf(items[len(items)-1]))}
}

// Day is 24 hours, the length of a learner's day.
const Day = 24 * time.Hour
