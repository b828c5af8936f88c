package stats

import (
	"context"
	"sync"

	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// readCacheMax bounds the answers remembered; when full it starts over.
const readCacheMax = 10_000

// readKey names one answer: the tool and its arguments, the account, and
// the learner's date it was computed for.
type readKey struct {
	tool    string
	userID  string
	deckID  string
	days    int
	minutes float64
	date    string
	advise  bool
}

// readEntry is a remembered answer and the account's data version it was
// computed at (or after).
type readEntry struct {
	version int64
	value   any
}

// readCache remembers answers computed from an account's data (the study
// plan with its forecast simulation, the stats) per learner's day. An
// answer is served only while the account's data version
// (ports.SettingsStore.DataVersion, bumped in the transaction of every
// write of cards, decks, presets, review logs or settings, on any
// instance) is the one read before the answer was computed, so no write
// committed since is ever missed.
type readCache struct {
	mu sync.Mutex
	m  map[readKey]readEntry
}

// version reads the account's data version; call it before reading the
// data an answer is computed from.
func (c *readCache) version(ctx context.Context, st ports.Stores, uid string) (int64, error) {
	v, err := st.Settings().DataVersion(ctx, uid)
	if err != nil {
		return 0, kernel.Fail(err)
	}
	return v, nil
}

// get returns the answer remembered for k at version v.
func (c *readCache) get(k readKey, v int64) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || e.version != v {
		return nil, false
	}
	return e.value, true
}

// put remembers the answer for k computed after reading version v.
func (c *readCache) put(k readKey, v int64, value any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= readCacheMax {
		c.m = make(map[readKey]readEntry)
	}
	c.m[k] = readEntry{version: v, value: value}
}
