package kernel

import (
	"context"
	"sync"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Default per-account limits: above what a heavy user reaches (a
// 100,000-card collection, an import of 20,000 notes), below what would
// let one account fill the database.
const (
	DefaultDailyWrites = 100_000   // cards added, reviews and uploads in one learner's day
	DefaultMaxCards    = 1_000_000 // cards one account holds
	DefaultMaxDecks    = 10_000    // decks one account holds
	DefaultMaxKeys     = 50        // live API keys one account holds
)

// Limits are the per-account quota and caps, kept in the database and so
// shared by every instance. A zero field takes its default; a negative one
// means no limit.
type Limits struct {
	// DailyWrites bounds the cards added (add_cards, add_notes), reviews
	// and media uploads of one account in its learner's day. Imports are
	// not counted here: they count against MaxCards.
	DailyWrites int
	// MaxCards bounds the cards one account holds.
	MaxCards int
	// MaxDecks bounds the decks one account holds.
	MaxDecks int
	// MaxKeys bounds the live (not revoked, not expired) API keys one
	// account holds, so that minting keys cannot multiply its budgets.
	MaxKeys int
	// OnRefusal, when set, is told the limit (contracts.Limit…) of every
	// refusal, for the metrics.
	OnRefusal func(limit string)
}

func (l Limits) withDefaults() Limits {
	pick := func(v, def int) int {
		switch {
		case v == 0:
			return def
		case v < 0:
			return -1
		}
		return v
	}
	l.DailyWrites = pick(l.DailyWrites, DefaultDailyWrites)
	l.MaxCards = pick(l.MaxCards, DefaultMaxCards)
	l.MaxDecks = pick(l.MaxDecks, DefaultMaxDecks)
	l.MaxKeys = pick(l.MaxKeys, DefaultMaxKeys)
	return l
}

// Refuse counts and returns a refusal of the limit named limit.
func (d *Deps) Refuse(limit string, retryAfter time.Duration, format string, args ...any) error {
	if d.Cfg.Limits.OnRefusal != nil {
		d.Cfg.Limits.OnRefusal(limit)
	}
	return contracts.Refused(limit, retryAfter, format, args...)
}

// ChargeWrites counts writes (cards added, reviews, uploads) against the
// account's daily quota and checks that newCards more cards stay within
// its card cap, before the write, on st: inside the write's transaction a
// refused or failed write gives its charge back. It costs one statement.
// day is the learner's day when the caller has it, else nil (it is then
// taken from a short-lived cache of the account's settings).
func (d *Deps) ChargeWrites(ctx context.Context, st ports.Stores, uid string, day *contracts.LearnerDay, writes, newCards int) error {
	lim := d.Cfg.Limits
	if lim.DailyWrites < 0 && lim.MaxCards < 0 {
		return nil
	}
	now := d.Now()
	if day == nil {
		ld, err := d.Days.get(ctx, st, uid, now)
		if err != nil {
			return err
		}
		day = &ld
	}
	max := lim.DailyWrites
	if max < 0 {
		max = int(^uint(0) >> 1)
	}
	resets := day.Next(now)
	if writes > max {
		return d.Refuse(contracts.LimitDailyWrites, resets.Sub(now),
			"this call makes %d writes and the account's daily quota is %d (cards added, reviews and uploads); split it, or wait until the quota resets at %s",
			writes, max, resets.UTC().Format(time.RFC3339))
	}
	_, cards, ok, err := st.Usage().ChargeWrites(ctx, uid, day.DateString(now), writes, max)
	if err != nil {
		return Fail(err)
	}
	if !ok {
		return d.Refuse(contracts.LimitDailyWrites, resets.Sub(now),
			"daily write quota reached: the account may make %d writes a day (cards added, reviews and uploads) and this call would pass it; it resets at %s (in %s)",
			max, resets.UTC().Format(time.RFC3339), resets.Sub(now).Round(time.Minute))
	}
	return d.CheckCards(cards, newCards)
}

// CheckCards refuses adding n cards to an account that holds held.
func (d *Deps) CheckCards(held, n int) error {
	if max := d.Cfg.Limits.MaxCards; max >= 0 && n > 0 && held+n > max {
		return d.Refuse(contracts.LimitCards, 0,
			"card limit reached: the account holds %d cards, the limit is %d, and this call would add %d; delete cards you no longer need (or ask the operator to raise the limit)",
			held, max, n)
	}
	return nil
}

// CheckHoldings refuses, before the write, adding newDecks decks and
// newCards cards to the account beyond its caps (imports, deck creation:
// not counted in the daily quota). It costs one statement.
func (d *Deps) CheckHoldings(ctx context.Context, st ports.Stores, uid string, newDecks, newCards int) (decks int, err error) {
	lim := d.Cfg.Limits
	if lim.MaxDecks < 0 && lim.MaxCards < 0 {
		return 0, nil
	}
	decks, cards, err := st.Usage().Holdings(ctx, uid)
	if err != nil {
		return 0, Fail(err)
	}
	if err := d.CheckDecks(decks, newDecks); err != nil {
		return 0, err
	}
	return decks, d.CheckCards(cards, newCards)
}

// CheckDecks refuses adding n decks to an account that holds held.
func (d *Deps) CheckDecks(held, n int) error {
	if max := d.Cfg.Limits.MaxDecks; max >= 0 && n > 0 && held+n > max {
		return d.Refuse(contracts.LimitDecks, 0,
			"deck limit reached: the account holds %d decks, the limit is %d; delete decks you no longer need (or ask the operator to raise the limit)",
			held, max)
	}
	return nil
}

// dayCacheTTL is how long an account's learner's day (timezone and
// rollover hour) is remembered for the daily quota. A settings change made
// on this instance applies at once; one made on another instance applies
// here within the TTL.
const dayCacheTTL = 5 * time.Minute

// dayCacheMax bounds the accounts remembered; when full it starts over.
const dayCacheMax = 100_000

// dayCache remembers accounts' learner's days, so the daily quota of a
// write that does not read the settings costs no extra statement.
type dayCache struct {
	mu sync.Mutex
	m  map[string]dayEntry
}

type dayEntry struct {
	day   contracts.LearnerDay
	until time.Time
}

// get returns the learner's day of uid, reading the settings on st when
// it is not remembered.
func (c *dayCache) get(ctx context.Context, st ports.Stores, uid string, now time.Time) (contracts.LearnerDay, error) {
	c.mu.Lock()
	e, ok := c.m[uid]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.day, nil
	}
	day, err := LearnerDay(ctx, st, uid)
	if err != nil {
		return day, err
	}
	c.put(uid, day, now)
	return day, nil
}

// put remembers the learner's day of uid.
func (c *dayCache) put(uid string, day contracts.LearnerDay, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= dayCacheMax {
		c.m = map[string]dayEntry{}
	}
	c.m[uid] = dayEntry{day: day, until: now.Add(dayCacheTTL)}
}

// Forget drops uid's remembered day (its settings changed).
func (c *dayCache) Forget(uid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, uid)
}
