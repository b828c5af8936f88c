package domain_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/domain/study"
)

// TestMemoryMatchesReference is issue 28 §1's done-when check: a learner
// in UTC+5:30 (days roll over at 04:00 there) studies a deck in real
// sessions for a year, with varied ratings, a Forget of some cards half
// way and a date-only reschedule of others; then update_deck sets new
// weights and the recompute_memory job runs. Every card's stored
// stability and difficulty must then equal a fresh replay of its review
// log under the new weights by the reference implementations (fsrs-rs
// through its npm binding, and ts-fsrs; the FSRS harness), within 1e-4
// relative. The history fed to the harness is built here from the log:
// ratings since the card's last Forget, with elapsed days counted in the
// learner's day. Before the job, the check must find cards that differ.
func TestMemoryMatchesReference(t *testing.T) { eachStore(t, testMemoryMatchesReference) }

// refReview is a rating as the harness's replay.mjs reads it.
type refReview struct {
	Rating int `json:"rating"`
	Delta  int `json:"delta"`
}

// refMemory is a memory state as replay.mjs writes it.
type refMemory struct {
	Stability  float64 `json:"stability"`
	Difficulty float64 `json:"difficulty"`
}

func testMemoryMatchesReference(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	e.setDay(ctx, "Asia/Kolkata", 4)
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Year", NewCardsPerDay: ptr(3)})
	if err != nil {
		t.Fatal(err)
	}
	var cards []contracts.NewCard
	for i := range 60 {
		cards = append(cards, card("q"+string(rune('a'+i%26))+string(rune('a'+i/26)), "a"))
	}
	added := e.add(ctx, d.ID, cards...)
	r := rand.New(rand.NewPCG(28, 1))
	rate := func() contracts.Rating {
		switch x := r.Float64(); {
		case x < 0.13:
			return contracts.RatingAgain
		case x < 0.23:
			return contracts.RatingHard
		case x < 0.9:
			return contracts.RatingGood
		default:
			return contracts.RatingEasy
		}
	}
	days := 365
	if testing.Short() {
		days = 120
	}
	for day := range days {
		if day == days/2 {
			// A Forget (a reset entry: the history starts over) and a
			// reschedule (a manual entry that moves a date, not a memory).
			ids := ids(added)
			for _, args := range []contracts.RescheduleCardsArgs{{CardIDs: ids[:5], Reset: true}, {CardIDs: ids[5:10], Days: []int{1, 3}}} {
				res, err := e.svc.Study.RescheduleCards(ctx, args)
				if err != nil {
					t.Fatal(err)
				}
				if res.Counts["updated"] != 5 {
					t.Fatalf("reschedule_cards: %+v", res.Counts)
				}
			}
		}
		if r.Float64() >= 0.1 { // a tenth of the days are skipped
			s := e.start(ctx, d.ID, nil, nil)
			for n := 0; n < 200 && s.Current != nil; n++ {
				e.clock.Advance(time.Duration(5+r.IntN(60)) * time.Second)
				s.Current = e.review(ctx, s.ID, s.Current.CardID, rate()).Next
			}
		}
		e.clock.Advance(24 * time.Hour)
	}
	weights := append([]float64{}, contracts.DefaultWeights...)
	weights[0], weights[1], weights[2], weights[3] = 0.5, 1.6, 4.1, 11.0
	weights[4], weights[6], weights[8], weights[11], weights[17] = 6.6, 2.5, 1.6, 1.7, 0.7
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, Weights: weights}); err != nil {
		t.Fatal(err)
	}
	uid := mustUser(t, ctx)
	acct, err := e.svc.Settings.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	day := contracts.NewLearnerDay(acct)

	// The reference's histories, from the stored log (newest first).
	hist := map[string][]refReview{}
	resets, reviews := 0, 0
	for _, id := range ids(added) {
		logs, err := e.store.Reviews().CardReviews(context.Background(), uid, id, 5000)
		if err != nil {
			t.Fatal(err)
		}
		slices.Reverse(logs)
		var h []refReview
		var prev time.Time
		for _, l := range logs {
			switch {
			// The card info page's log has no kind; a manual entry's rating
			// says it (this test studies no cram session).
			case l.Rating == study.RatingManual && l.State.Phase == contracts.PhaseNew:
				h = nil
				resets++
			case l.Rating == study.RatingManual:
			default:
				delta := 0
				if len(h) > 0 {
					delta = day.DaysBetween(prev, l.ReviewedAt)
				}
				h = append(h, refReview{Rating: slices.Index(contracts.Ratings, l.Rating) + 1, Delta: delta})
				prev = l.ReviewedAt
				reviews++
			}
		}
		if len(h) > 0 {
			hist[id] = h
		}
	}
	if len(hist) < 55 || resets < 5 || reviews < 800 {
		t.Fatalf("the year left %d cards with a history, %d resets, %d ratings: too little to check", len(hist), resets, reviews)
	}
	var ref map[string]struct{ RS, TS refMemory }
	runFSRSHarness(t, "replay.mjs", "memory", map[string]any{"weights": weights, "cards": hist}, &ref)
	if len(ref) != len(hist) {
		t.Fatalf("the harness replayed %d cards of %d", len(ref), len(hist))
	}
	check := func(after bool) {
		t.Helper()
		rows, err := e.store.Cards().GetCards(context.Background(), uid, ids(added))
		if err != nil {
			t.Fatal(err)
		}
		differ, worst := 0, 0.0
		for _, c := range rows {
			want, ok := ref[c.ID]
			if !ok {
				continue
			}
			if !after {
				// The two references agree with each other.
				if off := math.Max(rel(want.TS.Stability, want.RS.Stability), rel(want.TS.Difficulty, want.RS.Difficulty)); off > 1e-4 {
					t.Errorf("card %s: fsrs-rs S %.6f D %.6f, ts-fsrs S %.6f D %.6f", c.ID, want.RS.Stability, want.RS.Difficulty, want.TS.Stability, want.TS.Difficulty)
				}
			}
			off := math.Max(rel(c.State.Stability, want.RS.Stability), rel(c.State.Difficulty, want.RS.Difficulty))
			worst = math.Max(worst, off)
			if off > 1e-4 {
				differ++
				if after {
					t.Errorf("card %s: stored S %.6f D %.6f, fsrs-rs replay under the new weights S %.6f D %.6f", c.ID, c.State.Stability, c.State.Difficulty, want.RS.Stability, want.RS.Difficulty)
				}
			}
		}
		t.Logf("%s, %d days, %d ratings, %d resets: %d of %d cards off the fsrs-rs replay by more than 1e-4 relative (after the job: %v; worst %.2g)",
			store, days, reviews, resets, differ, len(ref), after, worst)
		if !after && differ < len(ref)/2 {
			t.Errorf("before the job only %d of %d stored states differ from the new weights' replay: the check shows little", differ, len(ref))
		}
	}
	check(false)
	runner := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "r1", Lease: time.Minute})
	if ran, err := runner.RunOnce(context.Background()); !ran || err != nil {
		t.Fatalf("new weights queued no job: RunOnce = %v, %v", ran, err)
	}
	check(true)
}
