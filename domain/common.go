package domain

import (
	"context"
	"encoding/base64"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
)

// actor returns the acting principal, or unauthenticated.
func actor(ctx context.Context) (contracts.Principal, error) {
	p, ok := contracts.PrincipalFrom(ctx)
	if !ok {
		return contracts.Principal{}, contracts.Errorf(contracts.KindUnauthenticated, "no authenticated user: sign in or present an API key")
	}
	return p, nil
}

// userID returns the acting user's id, or unauthenticated.
func userID(ctx context.Context) (string, error) {
	p, err := actor(ctx)
	return p.UserID, err
}

// checkBatch refuses a bulk call whose list field holds no items or more
// than max, naming the field and the limit.
func checkBatch(field string, n, max int) error {
	if n == 0 || n > max {
		return contracts.Errorf(contracts.KindInvalid, "%s holds %d items; send 1-%d per call", field, n, max)
	}
	return nil
}

// fail wraps an unexpected error as internal and passes *contracts.Error through.
func fail(err error) error { return contracts.Internal(err) }

// maxIDLen bounds ids taken from callers before they reach a store.
const maxIDLen = 128

// plausibleID reports whether s can be an id: non-empty, short, printable
// ASCII without spaces. Anything else cannot exist and is reported as not
// found without asking the store.
func plausibleID(s string) bool {
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

func notFound(what, id string) error {
	return contracts.Errorf(contracts.KindNotFound, "%s %s not found", what, quoteID(id))
}

// quoteID shows an id in a message, shortened and quoted when odd.
func quoteID(id string) string {
	if plausibleID(id) {
		return id
	}
	if len(id) > 40 {
		id = id[:40] + "…"
	}
	return `"` + strings.ToValidUTF8(id, "?") + `"`
}

func deckNotFound(id string) error {
	return contracts.Errorf(contracts.KindNotFound, "deck %s not found; list_decks shows the user's decks", quoteID(id))
}

// Cursors are opaque to callers: base64url of the last id of a page.

const badCursor = "cursor is not valid; omit it to start from the first page"

func encodeCursor(id string) string { return base64.RawURLEncoding.EncodeToString([]byte(id)) }

// decodeCursor returns the id a cursor carries; "" for an empty cursor.
func decodeCursor(c string) (string, error) {
	if c == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) == 0 || !utf8.Valid(b) || !plausibleID(string(b)) {
		return "", contracts.Errorf(contracts.KindInvalid, badCursor)
	}
	return string(b), nil
}

// pageLimit applies a default and checks the range 1..max (0 means default).
func pageLimit(limit, def, max int) (int, error) {
	if limit == 0 {
		return def, nil
	}
	if limit < 0 || limit > max {
		return 0, contracts.Errorf(contracts.KindInvalid, "limit must be 1-%d, got %d", max, limit)
	}
	return limit, nil
}

// page cuts a fetched slice of up to limit+1 items into a page.
func page[T any](items []T, limit int, idOf func(T) string) contracts.Page[T] {
	if items == nil {
		items = []T{}
	}
	if len(items) <= limit {
		return contracts.Page[T]{Items: items}
	}
	items = items[:limit]
	return contracts.Page[T]{Items: items, NextCursor: encodeCursor(idOf(items[len(items)-1]))}
}

const day = 24 * time.Hour
