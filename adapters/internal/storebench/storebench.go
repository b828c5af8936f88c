// Package storebench holds the store benchmarks both SQL adapters run: a
// bulk insert of 10,000 cards in one transaction, the due queue and
// full-text search on an account of 100,000 cards (with p50/p99 latencies
// reported next to ns/op), and the review write pattern.
package storebench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Sizes of the benchmark data.
const (
	BulkCards    = 10_000  // cards per InsertCards10k operation
	AccountCards = 100_000 // cards of the seeded account
	mainShare    = 0.8     // share of the account's cards in the main deck
	vocabulary   = 4000    // distinct words in card text
	queueLimit   = 100     // DueCards limit
	pageLimit    = 20      // Search limit
)

var now = time.Date(2026, time.March, 10, 12, 0, 0, 0, time.UTC)

// Run runs the benchmarks. open returns an empty store with the schema in
// place and registers its cleanup; it is called once for the seeded
// account and once per benchmark that needs a store of its own.
func Run(b *testing.B, open func(b *testing.B) ports.Database) {
	b.Run("InsertCards10k", func(b *testing.B) { benchInsert(b, open(b)) })
	b.Run("ReviewWrite", func(b *testing.B) { benchReview(b, open(b), false) })
	b.Run("ReviewWriteParallel", func(b *testing.B) { benchReview(b, open(b), true) })
	acct := seedAccount(b, open(b))
	small := seedSmall(b, acct.s)
	b.Run("DueCards100k", func(b *testing.B) { benchDue(b, acct) })
	b.Run("Search100k", func(b *testing.B) { benchSearch(b, acct, false) })
	b.Run("Search100kCommonWord", func(b *testing.B) { benchSearch(b, acct, true) })
	// get_deck and list_decks on the 100,000-card account and on a
	// 100-card account in the same database (issue 12: the first should
	// cost at most 1.5× the second).
	b.Run("CountDeck100k", func(b *testing.B) { benchCounts(b, acct) })
	b.Run("CountDeck100", func(b *testing.B) { benchCounts(b, small) })
	b.Run("ListDecks100k", func(b *testing.B) { benchList(b, acct) })
	b.Run("ListDecks100", func(b *testing.B) { benchList(b, small) })
}

// smallCards is the size of the small account the account-size
// benchmarks compare with.
const smallCards = 100

// seedSmall adds an account of smallCards cards, split like the big one,
// to the store.
func seedSmall(b *testing.B, s ports.Database) *account {
	b.Helper()
	a := &account{s: s, cards: smallCards}
	a.userID, a.mainID = setup(b, s, "small main")
	a.sideID = deck(b, s, a.userID, "small side")
	r := rand.New(rand.NewPCG(9, 10))
	cards := make([]ports.CardRow, smallCards)
	for i := range cards {
		d := a.mainID
		if float64(i) >= mainShare*smallCards {
			d = a.sideID
		}
		cards[i] = makeCard(r, d, i)
	}
	insertAll(b, s, a.userID, cards)
	return a
}

func benchList(b *testing.B, a *account) {
	ctx := context.Background()
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		ds, err := a.s.Decks().ListDecks(ctx, a.userID, "", 50, now)
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		total := 0
		for _, d := range ds {
			total += d.Counts.Total
		}
		if len(ds) != 2 || total != a.cards {
			b.Fatalf("ListDecks: %d decks, %d cards, want 2 and %d", len(ds), total, a.cards)
		}
	}
	report(b, lat)
}

// ids makes unique, time-ordered ids for one process.
var idSeq atomic.Int64

func newID(prefix string) string {
	return fmt.Sprintf("%s-%013d-%08d", prefix, time.Now().UnixMilli(), idSeq.Add(1))
}

// words is the vocabulary of card text: pronounceable pseudo-words.
var words = func() []string {
	cons, vows := "bcdfgklmnprstvz", "aeiou"
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[string]bool{}
	var out []string
	for len(out) < vocabulary {
		var w strings.Builder
		for range 2 + r.IntN(3) {
			w.WriteByte(cons[r.IntN(len(cons))])
			w.WriteByte(vows[r.IntN(len(vows))])
		}
		if s := w.String(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}()

// commonWord appears in half of the seeded cards.
const commonWord = "common"

// user creates a user and a deck.
func setup(b *testing.B, s ports.Database, deckName string) (userID, deckID string) {
	b.Helper()
	ctx := context.Background()
	userID = newID("usr")
	if err := s.Users().CreateUser(ctx, contracts.User{ID: userID, Email: userID + "@example.com", CreatedAt: now}); err != nil {
		b.Fatal(err)
	}
	return userID, deck(b, s, userID, deckName)
}

// deck creates a deck.
func deck(b *testing.B, s ports.Database, userID, name string) string {
	b.Helper()
	id := newID("dck")
	err := s.Decks().CreateDeck(context.Background(), userID, contracts.Deck{ID: id, Name: name, Settings: contracts.DefaultDeckSettings(),
		CreatedAt: now, UpdatedAt: now})
	if err != nil {
		b.Fatal(err)
	}
	return id
}

// makeCard builds a random card: three words on the front, five on the
// back, one or two tags, a phase and a due time spread around now.
func makeCard(r *rand.Rand, deckID string, i int) ports.CardRow {
	pick := func(n int) string {
		ws := make([]string, n)
		for k := range ws {
			ws[k] = words[r.IntN(len(words))]
		}
		return strings.Join(ws, " ")
	}
	back := pick(5)
	if r.IntN(2) == 0 {
		back += " " + commonWord
	}
	c := ports.CardRow{
		Card: contracts.Card{ID: newID("crd"), DeckID: deckID, Front: pick(3) + " " + fmt.Sprint(i), Back: back,
			Tags: []string{"tag" + fmt.Sprint(r.IntN(50))}, CreatedAt: now.Add(-time.Duration(r.IntN(90*24)) * time.Hour), UpdatedAt: now},
		Hash: fmt.Sprintf("h%x-%d", r.Uint64(), i),
	}
	switch p := r.IntN(100); {
	case p < 30:
		c.State = contracts.CardState{Phase: contracts.PhaseNew, Due: c.CreatedAt}
	default:
		// A review-phase card is due from the start of its due day (the
		// learner's day; UTC here), as the scheduler stores it: overdue
		// by up to 30 days or due within 60.
		last := now.Add(-time.Duration(r.IntN(30*24)) * time.Hour)
		c.State = contracts.CardState{Phase: contracts.PhaseReview, Due: now.Truncate(24*time.Hour).AddDate(0, 0, r.IntN(90)-30),
			Stability: 1 + 30*r.Float64(), Difficulty: 1 + 9*r.Float64(), ScheduledDays: 1 + r.IntN(60), Reps: 1 + r.IntN(20), LastReview: &last}
		if p < 31 {
			// A learning step is an exact instant, within hours of its
			// review; the daily new-card limit keeps such cards few
			// (1% of the account).
			c.State.Phase = contracts.PhaseLearning
			c.State.Due = now.Add(time.Duration(r.IntN(24*60)-12*60) * time.Minute).Add(time.Duration(r.IntN(60000)) * time.Millisecond)
		}
		c.Suspended = p >= 95
	}
	return c
}

// insertAll inserts cards in transactions of up to 10,000.
func insertAll(b *testing.B, s ports.Database, userID string, cards []ports.CardRow) {
	b.Helper()
	ctx := context.Background()
	for len(cards) > 0 {
		n := min(len(cards), BulkCards)
		batch := cards[:n]
		cards = cards[n:]
		if err := s.InTx(ctx, func(tx ports.Stores) error { return tx.Cards().InsertCards(ctx, userID, batch) }); err != nil {
			b.Fatal(err)
		}
	}
}

func benchInsert(b *testing.B, s ports.Database) {
	ctx := context.Background()
	userID, _ := setup(b, s, "bulk")
	r := rand.New(rand.NewPCG(3, 4))
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		d := deck(b, s, userID, "bulk "+fmt.Sprint(i))
		cards := make([]ports.CardRow, BulkCards)
		for k := range cards {
			cards[k] = makeCard(r, d, k)
		}
		b.StartTimer()
		start := time.Now()
		if err := s.InTx(ctx, func(tx ports.Stores) error { return tx.Cards().InsertCards(ctx, userID, cards) }); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.ReportMetric(float64(BulkCards)*float64(len(lat))/sum(lat).Seconds(), "cards/s")
	report(b, lat)
}

// account is the seeded account of AccountCards cards.
type account struct {
	s              ports.Database
	userID         string
	mainID, sideID string
	cards          int
}

func seedAccount(b *testing.B, s ports.Database) *account {
	b.Helper()
	start := time.Now()
	a := &account{s: s, cards: AccountCards}
	a.userID, a.mainID = setup(b, s, "main")
	a.sideID = deck(b, s, a.userID, "side")
	r := rand.New(rand.NewPCG(5, 6))
	cards := make([]ports.CardRow, AccountCards)
	for i := range cards {
		d := a.mainID
		if float64(i) >= mainShare*AccountCards {
			d = a.sideID
		}
		cards[i] = makeCard(r, d, i)
	}
	insertAll(b, s, a.userID, cards)
	// Refresh the planner's statistics, as autovacuum (Postgres) or
	// PRAGMA optimize on close (SQLite) would after a bulk load.
	if an, ok := s.(interface{ Analyze(context.Context) error }); ok {
		if err := an.Analyze(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("seeded %d cards in %v", AccountCards, time.Since(start).Round(time.Millisecond))
	return a
}

func benchDue(b *testing.B, a *account) {
	ctx := context.Background()
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		at := now.Add(time.Duration(i%48) * time.Hour) // the queue moves with time
		start := time.Now()
		got, err := a.s.Cards().DueCards(ctx, a.userID, a.mainID, at, queueLimit)
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != queueLimit {
			b.Fatalf("DueCards returned %d cards, want %d", len(got), queueLimit)
		}
	}
	report(b, lat)
}

func benchSearch(b *testing.B, a *account, common bool) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 8))
	var lat []time.Duration
	found := 0
	for i := 0; b.Loop(); i++ {
		q := words[r.IntN(len(words))]
		if common {
			q = commonWord
		}
		start := time.Now()
		got, err := a.s.Cards().Search(ctx, a.userID, contracts.CardFilter{Query: q, DeckID: a.mainID}, "", pageLimit, now)
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		found += len(got)
	}
	if found == 0 {
		b.Fatal("no search found anything")
	}
	b.ReportMetric(float64(found)/float64(len(lat)), "hits/op")
	report(b, lat)
}

func benchCounts(b *testing.B, a *account) {
	ctx := context.Background()
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		d, err := a.s.Decks().GetDeck(ctx, a.userID, a.mainID, now)
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		if d.Counts.Total != int(mainShare*float64(a.cards)) {
			b.Fatalf("deck counts %d cards", d.Counts.Total)
		}
	}
	report(b, lat)
}

// benchReview measures the review write pattern: in one transaction,
// complete the session item, store the card's new state (version checked)
// and append the review log. In parallel, every goroutine studies its own
// session, as separate users would.
func benchReview(b *testing.B, s ports.Database, parallel bool) {
	ctx := context.Background()
	userID, deckID := setup(b, s, "study")
	r := rand.New(rand.NewPCG(9, 10))
	// Session queues, made outside the timer.
	const perSession = 2000
	newSession := func(size int) (*studySession, error) {
		cards := make([]ports.CardRow, size)
		for i := range cards {
			cards[i] = makeCard(r, deckID, i)
			cards[i].Version = 1
		}
		err := s.InTx(ctx, func(tx ports.Stores) error { return tx.Cards().InsertCards(ctx, userID, cards) })
		if err != nil {
			return nil, err
		}
		ss := &studySession{id: newID("ses"), cards: cards}
		err = s.Sessions().CreateSession(ctx, ports.StudySessionRow{ID: ss.id, UserID: userID, DeckID: deckID, StartedAt: now,
			ExpiresAt: now.Add(contracts.SessionTTL)}, ids(cards))
		return ss, err
	}
	review := func(ss *studySession) error {
		c := ss.cards[ss.next]
		pos := ss.next
		ss.next++
		at := now.Add(time.Duration(pos) * time.Second)
		last := at
		st := contracts.CardState{Phase: contracts.PhaseReview, Due: at.Add(72 * time.Hour), Stability: 3, Difficulty: 5, ScheduledDays: 3,
			Reps: c.State.Reps + 1, LastReview: &last}
		return s.InTx(ctx, func(tx ports.Stores) error {
			if err := tx.Sessions().CompleteItem(ctx, userID, ss.id, pos, at); err != nil {
				return err
			}
			if err := tx.Cards().UpdateState(ctx, userID, c.ID, c.Version, st, at); err != nil {
				return err
			}
			return tx.Reviews().AppendReview(ctx, ports.ReviewLog{ID: newID("rev"), UserID: userID, CardID: c.ID, DeckID: deckID,
				SessionID: ss.id, Rating: contracts.RatingGood, PrevPhase: c.State.Phase, State: st, ReviewedAt: at, DurationMs: 4000})
		})
	}
	var done atomic.Int64
	start := time.Now()
	if !parallel {
		ss, err := newSession(perSession)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		start = time.Now()
		for b.Loop() {
			if ss.next == perSession {
				b.StopTimer()
				if ss, err = newSession(perSession); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			if err := review(ss); err != nil {
				b.Fatal(err)
			}
			done.Add(1)
		}
	} else {
		const parallelism = 4 // 4×GOMAXPROCS writers
		g := parallelism * runtime.GOMAXPROCS(0)
		size := max(20, min(perSession, b.N/g+1))
		pool := make(chan *studySession, b.N/size+g+1)
		for range cap(pool) {
			ss, err := newSession(size)
			if err != nil {
				b.Fatal(err)
			}
			pool <- ss
		}
		b.SetParallelism(parallelism)
		b.ResetTimer()
		start = time.Now()
		b.RunParallel(func(pb *testing.PB) {
			var ss *studySession
			for pb.Next() {
				if ss == nil || ss.next == len(ss.cards) {
					select {
					case ss = <-pool:
					default:
						b.Error("out of session queues")
						return
					}
				}
				if err := review(ss); err != nil {
					b.Error(err)
					return
				}
				done.Add(1)
			}
		})
	}
	b.ReportMetric(float64(done.Load())/time.Since(start).Seconds(), "reviews/s")
}

// studySession is one session's queue and how far it got.
type studySession struct {
	id    string
	cards []ports.CardRow
	next  int
}

func ids(cards []ports.CardRow) []string {
	out := make([]string, len(cards))
	for i, c := range cards {
		out[i] = c.ID
	}
	return out
}

func sum(lat []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range lat {
		t += d
	}
	return t
}

// report adds p50 and p99 latencies in milliseconds.
func report(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	q := func(p float64) float64 {
		i := int(p * float64(len(s)-1))
		return float64(s[i].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}
