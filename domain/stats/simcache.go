package stats

import (
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"math"
	"math/bits"
	"sync"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// simCacheMax bounds the deck simulations remembered; when full it starts
// over.
const simCacheMax = 1_000

// simCache remembers deck simulations by their whole input (the deck's
// cards and settings, the new cards, the days, the budget, the learner's
// date), so a study plan recomputed after a write (which bumps the
// account's data version and so misses the plan cache) simulates again
// only the decks whose cards or settings changed: after one review, one
// deck. An entry can never be stale, since a change of any input is a
// different key; day 0 of a remembered simulation starts at the time of
// its first computation that learner's day, as a remembered plan does.
type simCache struct {
	mu sync.Mutex
	m  map[simKey][]SimDay
	// misses counts the simulations run (for tests).
	misses int
}

// simKey names a simulation: the account and a hash of its input.
type simKey struct {
	userID string
	sum    uint64
}

// simHashSeed seeds this process's input hashes.
var simHashSeed = maphash.MakeSeed()

// cardsSum hashes the states of a deck's scheduled cards.
func cardsSum(cards []contracts.CardState) uint64 {
	var h maphash.Hash
	h.SetSeed(simHashSeed)
	buf := make([]byte, 0, 96)
	for _, c := range cards {
		last := int64(math.MinInt64)
		if c.LastReview != nil {
			last = c.LastReview.UnixNano()
		}
		buf = append(buf[:0], c.Phase...)
		buf = append(buf, 0)
		for _, v := range []uint64{uint64(c.Due.UnixNano()), math.Float64bits(c.Stability), math.Float64bits(c.Difficulty),
			uint64(c.ScheduledDays), uint64(c.Reps), uint64(c.Lapses), uint64(c.Step), uint64(last)} {
			buf = binary.LittleEndian.AppendUint64(buf, v)
		}
		_, _ = h.Write(buf)
	}
	return h.Sum64()
}

// key names the simulation of in, whose cards hash to cards.
func (c *simCache) key(uid string, cards uint64, in SimInput) (simKey, error) {
	set, err := json.Marshal(in.Settings)
	if err != nil {
		return simKey{}, contracts.Internal(err)
	}
	var h maphash.Hash
	h.SetSeed(simHashSeed)
	buf := binary.LittleEndian.AppendUint64(nil, cards)
	for _, v := range []int{len(in.Cards), in.NewCards, in.Days, in.NewPerDay, in.Budget, in.Day.RolloverHour} {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
	}
	// The easy days are not in the settings' JSON.
	for _, v := range append(append(in.Mix.First[:], in.Mix.Recall[:]...), in.Settings.EasyDays...) {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
	}
	buf = binary.LittleEndian.AppendUint64(buf, in.Seed)
	buf = append(buf, set...)
	buf = append(buf, 0)
	buf = append(buf, in.Day.DateString(in.Now)...)
	buf = append(buf, 0)
	if in.Day.Location != nil {
		buf = append(buf, in.Day.Location.String()...)
	}
	_, _ = h.Write(buf)
	return simKey{userID: uid, sum: h.Sum64()}, nil
}

// simulate is simulate(in, sched), remembered for the user's deck whose
// cards hash to cards. A nil cache remembers nothing. The days returned
// are shared: read only.
func (c *simCache) simulate(uid string, cards uint64, in SimInput, sched ports.Scheduler) ([]SimDay, error) {
	if c == nil {
		return simulate(in, sched)
	}
	k, err := c.key(uid, cards, in)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	sim, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return sim, nil
	}
	sim, err = simulate(in, sched)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= simCacheMax {
		c.m = make(map[simKey][]SimDay)
	}
	c.m[k] = sim
	c.misses++
	return sim, nil
}

// coarseBudget rounds a deck's share of a budget down to its three
// leading binary digits (within 25% below it), so that a small change in
// another deck, which moves the shares a little, seldom changes this
// deck's budget and so its remembered simulation's key.
func coarseBudget(b int) int {
	if b <= 7 {
		return max(b, 1)
	}
	shift := bits.Len(uint(b)) - 3
	return b >> shift << shift
}
