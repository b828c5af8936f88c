package domain_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// A learning step carried over from an earlier day counts against the
// review limit (issue 27 §7) also when several sessions are open:
// SubmitReview's check of the last slot counts it as sessions do. On
// the second day, one slot of the review limit left, two sessions show
// (1) two interday steps, (2) an interday step and a review card; each
// pair is rated at the same moment and exactly one rating counts, the
// other refused as a conflict that says the step counts as a review.
// (3) The review card rated first, the interday step another session
// still shows is refused. Without the check of interday steps (1) and
// (3) fail every time: the steps' ratings were not checked. Injected
// clock, SQLite and Postgres.
func TestInterdayStepsKeepTheReviewCapAcrossSessions(t *testing.T) {
	eachStore(t, testInterdayStepsKeepTheReviewCapAcrossSessions)
}

// interdayRace is a learner on the second day of a deck with two
// interday learning steps (l1, l2) and a review card (r) due.
type interdayRace struct {
	ctx        context.Context
	deck       string
	l1, l2, r  string
	cards      []string
	dayTwoFrom time.Time
}

func testInterdayStepsKeepTheReviewCapAcrossSessions(t *testing.T, store string) {
	e := newEnv(t, store)
	// Day 1: two new cards rated good go into the one-day step, one
	// rated easy becomes a review card due the next day.
	prepare := func(email string) *interdayRace {
		ctx := e.user(email)
		d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Interday race", NewCardsPerDay: ptr(10),
			ReviewsPerDay: ptr(100), MaximumIntervalDays: ptr(1)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, LearningSteps: []float64{10, 1440}}); err != nil {
			t.Fatal(err)
		}
		c := ids(e.add(ctx, d.ID, card("step one", "1"), card("step two", "2"), card("review", "3")))
		s := e.start(ctx, d.ID, nil, nil)
		for cur := s.Current; cur != nil; {
			r := contracts.RatingGood
			if cur.CardID == c[2] {
				r = contracts.RatingEasy
			}
			e.clock.Advance(time.Second)
			cur = e.review(ctx, s.ID, cur.CardID, r).Next
		}
		return &interdayRace{ctx: ctx, deck: d.ID, l1: c[0], l2: c[1], r: c[2], cards: c}
	}
	races := []*interdayRace{prepare("ada@example.com"), prepare("bob@example.com"), prepare("cyd@example.com")}

	// Day 2: the steps and the review card are due; one slot is left.
	e.clock.Set(time.Date(2026, 3, 11, 11, 0, 0, 0, time.UTC))
	for _, x := range races {
		x.dayTwoFrom = time.Date(2026, 3, 11, 4, 0, 0, 0, time.UTC) // the learner's day starts at 4:00
		for i, want := range []contracts.Phase{contracts.PhaseLearning, contracts.PhaseLearning, contracts.PhaseReview} {
			c := e.card1(x.ctx, x.cards[i])
			if c.State.Phase != want || c.State.Due.After(e.clock.Now()) || !c.State.LastReview.Before(x.dayTwoFrom) {
				t.Fatalf("day 2: card %d is %s due %v, last rated %v; want %s, due and rated on day 1", i, c.State.Phase, c.State.Due, c.State.LastReview, want)
			}
		}
		if _, err := e.svc.Decks.UpdateDeck(x.ctx, contracts.UpdateDeckArgs{DeckID: x.deck, ReviewsPerDay: ptr(1)}); err != nil {
			t.Fatal(err)
		}
	}
	// showing starts a session that shows cardID, the deck's other cards
	// buried meanwhile (a session of the day would otherwise show the
	// day's first card), and unburies them.
	showing := func(x *interdayRace, cardID string) contracts.StudySession {
		t.Helper()
		var others []string
		for _, id := range x.cards {
			if id != cardID {
				others = append(others, id)
			}
		}
		s := e.startAround(x.ctx, x.deck, others)
		if g, err := e.svc.Study.GetSession(x.ctx, s.ID); err != nil || g.Current == nil || g.Current.CardID != cardID || g.Remaining != 1 {
			t.Fatalf("the session shows %+v of %d (%v); want only %s", g.Current, g.Remaining, err, cardID)
		}
		return s
	}
	rate := func(x *interdayRace, s contracts.StudySession) error {
		_, err := e.svc.Study.SubmitReview(x.ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: s.Current.CardID, Rating: contracts.RatingGood})
		return err
	}
	// settled checks that exactly one of errs is nil and the others are
	// conflicts (the refusal of a step saying it counts as a review),
	// that exactly one card was rated today, and that no session serves
	// anything more.
	settled := func(name string, x *interdayRace, steps map[int]bool, errs ...error) {
		t.Helper()
		ok := 0
		for i, err := range errs {
			switch {
			case err == nil:
				ok++
			case !contracts.IsKind(err, contracts.KindConflict):
				t.Errorf("%s: rating %d refused with %v; want a conflict", name, i, err)
			case steps[i] && !strings.Contains(err.Error(), "counts as a review"):
				t.Errorf("%s: the step's refusal %q does not say it counts as a review", name, err)
			}
		}
		if ok != 1 {
			t.Errorf("%s: %d of %d ratings counted with one review slot left (%v); want exactly 1", name, ok, len(errs), errs)
		}
		rated := 0
		for _, id := range x.cards {
			if lr := e.card1(x.ctx, id).State.LastReview; lr != nil && !lr.Before(x.dayTwoFrom) {
				rated++
			}
		}
		if rated != 1 {
			t.Errorf("%s: %d cards rated on day 2 with a review limit of 1; want 1", name, rated)
		}
		if s := e.start(x.ctx, x.deck, nil, nil); s.Current != nil || s.Remaining != 0 {
			t.Errorf("%s: a session after the limit shows %+v, %d left; want nothing", name, s.Current, s.Remaining)
		}
	}
	race := func(x *interdayRace, sessions ...contracts.StudySession) []error {
		t.Helper()
		e.stillShown(x.ctx, sessions...)
		return e.rateAtOnce(x.ctx, sessions...)
	}

	// (1) Two interday steps at once.
	x := races[0]
	s1, s2 := showing(x, x.l1), showing(x, x.l2)
	settled("two steps", x, map[int]bool{0: true, 1: true}, race(x, s1, s2)...)
	// (2) An interday step and a review card at once.
	x = races[1]
	s1, s2 = showing(x, x.l1), showing(x, x.r)
	settled("a step and a review", x, map[int]bool{0: true}, race(x, s1, s2)...)
	// (3) The review card first, then the step another session shows.
	x = races[2]
	s1, s2 = showing(x, x.l1), showing(x, x.r)
	e.stillShown(x.ctx, s1, s2)
	first := rate(x, s2)
	if first != nil {
		t.Fatalf("the review card, rated first: %v", first)
	}
	settled("a review, then a step", x, map[int]bool{1: true}, first, rate(x, s1))
}
