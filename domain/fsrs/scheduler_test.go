package fsrs

import (
	"math"
	"testing"
	"time"

	gofsrs "github.com/open-spaced-repetition/go-fsrs/v4"
	"pgregory.net/rapid"

	"github.com/takhtabush/takhtabush/contracts"
)

var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// genTime draws a millisecond-precision UTC time within ten years of base.
func genTime(t *rapid.T, label string) time.Time {
	ms := rapid.Int64Range(-5*365*86400_000, 5*365*86400_000).Draw(t, label)
	return base.Add(time.Duration(ms) * time.Millisecond)
}

// genSettings draws valid deck settings.
func genSettings(t *rapid.T) contracts.DeckSettings {
	return contracts.DeckSettings{
		DesiredRetention:    rapid.Float64Range(0.7, 0.99).Draw(t, "retention"),
		NewCardsPerDay:      20,
		ReviewsPerDay:       200,
		MaximumIntervalDays: rapid.IntRange(1, 36500).Draw(t, "maxIvl"),
	}
}

// genState draws a valid card state, as the scheduler produces them, and a
// review time not before its last review.
func genState(t *rapid.T) (contracts.CardState, time.Time) {
	phase := rapid.SampledFrom([]contracts.Phase{contracts.PhaseNew, contracts.PhaseLearning, contracts.PhaseReview, contracts.PhaseRelearning}).Draw(t, "phase")
	due := genTime(t, "due")
	if phase == contracts.PhaseNew {
		st := contracts.CardState{Phase: phase, Due: due}
		return st, genTime(t, "now")
	}
	last := genTime(t, "lastReview")
	gap := time.Duration(rapid.Int64Range(0, 3*365*86400_000).Draw(t, "gapMs")) * time.Millisecond
	st := contracts.CardState{
		Phase:         phase,
		Due:           due,
		Stability:     rapid.Float64Range(0.001, 36500).Draw(t, "stability"),
		Difficulty:    rapid.Float64Range(1, 10).Draw(t, "difficulty"),
		ScheduledDays: rapid.IntRange(0, 36500).Draw(t, "scheduledDays"),
		Reps:          rapid.IntRange(1, 10000).Draw(t, "reps"),
		Lapses:        rapid.IntRange(0, 1000).Draw(t, "lapses"),
		LastReview:    &last,
	}
	switch phase {
	case contracts.PhaseLearning:
		st.Step = rapid.IntRange(0, len(LearningSteps)).Draw(t, "step")
	case contracts.PhaseRelearning:
		st.Step = rapid.IntRange(0, len(RelearningSteps)).Draw(t, "step")
	}
	return st, last.Add(gap)
}

func reviewAll(t *rapid.T, s *Scheduler, st contracts.CardState, set contracts.DeckSettings, now time.Time) map[contracts.Rating]contracts.CardState {
	out := make(map[contracts.Rating]contracts.CardState, 4)
	for _, r := range contracts.Ratings {
		next, err := s.Review(st, set, now, r)
		if err != nil {
			t.Fatalf("Review(%+v, %v, %s): %v", st, now, r, err)
		}
		out[r] = next
	}
	return out
}

func TestReviewProperties(t *testing.T) {
	s := New()
	rapid.Check(t, func(t *rapid.T) {
		st, now := genState(t)
		set := genSettings(t)
		next := reviewAll(t, s, st, set, now)
		for r, n := range next {
			if n.Due.Before(now) {
				t.Fatalf("%s: due %v before review time %v", r, n.Due, now)
			}
			if !(n.Stability > 0) || math.IsInf(n.Stability, 0) {
				t.Fatalf("%s: stability %v not positive and finite", r, n.Stability)
			}
			if n.Difficulty < 1 || n.Difficulty > 10 {
				t.Fatalf("%s: difficulty %v outside 1-10", r, n.Difficulty)
			}
			if n.Reps != st.Reps+1 {
				t.Fatalf("%s: reps %d, want %d", r, n.Reps, st.Reps+1)
			}
			if n.LastReview == nil || !n.LastReview.Equal(now) {
				t.Fatalf("%s: lastReview %v, want %v", r, n.LastReview, now)
			}
			maxDue := now.Add(time.Duration(set.MaximumIntervalDays) * 24 * time.Hour)
			if n.Due.After(maxDue) {
				t.Fatalf("%s: due %v beyond the maximum interval (%d days)", r, n.Due, set.MaximumIntervalDays)
			}
		}
		// The rating order: again ≤ hard ≤ good ≤ easy. The library fuzzes
		// hard, good and easy with the same seed within one review and then
		// re-orders the review-phase intervals, so all three comparisons hold.
		// A review-phase card is due from the start of its due day, so a
		// learning step late in the evening (again) may come due after the
		// start of the next day: dues compare by day, intervals exactly.
		again, hard, good, easy := next[contracts.RatingAgain], next[contracts.RatingHard], next[contracts.RatingGood], next[contracts.RatingEasy]
		dayOf := contracts.LearnerDay{}.Date
		if dayOf(again.Due).After(dayOf(good.Due)) {
			t.Fatalf("again due %v on a later day than good due %v", again.Due, good.Due)
		}
		if dayOf(hard.Due).After(dayOf(good.Due)) {
			t.Fatalf("hard due %v on a later day than good due %v", hard.Due, good.Due)
		}
		if dayOf(good.Due).After(dayOf(easy.Due)) {
			t.Fatalf("good due %v on a later day than easy due %v", good.Due, easy.Due)
		}
		if hard.Phase == contracts.PhaseReview && good.Phase == contracts.PhaseReview && hard.ScheduledDays > good.ScheduledDays {
			t.Fatalf("hard interval %d longer than good %d", hard.ScheduledDays, good.ScheduledDays)
		}
		if good.Phase == contracts.PhaseReview && easy.Phase == contracts.PhaseReview && good.ScheduledDays > easy.ScheduledDays {
			t.Fatalf("good interval %d longer than easy %d", good.ScheduledDays, easy.ScheduledDays)
		}
		if dayOf(again.Due).After(dayOf(hard.Due)) {
			t.Fatalf("again due %v on a later day than hard due %v", again.Due, hard.Due)
		}
	})
}

func TestReviewIsDeterministic(t *testing.T) {
	s := New()
	rapid.Check(t, func(t *rapid.T) {
		st, now := genState(t)
		set := genSettings(t)
		r := rapid.SampledFrom(contracts.Ratings).Draw(t, "rating")
		a, err1 := s.Review(st, set, now, r)
		b, err2 := s.Review(st, set, now, r)
		if err1 != nil || err2 != nil {
			t.Fatalf("errors: %v, %v", err1, err2)
		}
		if !a.Due.Equal(b.Due) || a.Stability != b.Stability || a.Difficulty != b.Difficulty || a.Step != b.Step {
			t.Fatalf("same inputs, different outputs: %+v vs %+v", a, b)
		}
	})
}

func TestMappingRoundTrip(t *testing.T) {
	s := New()
	rapid.Check(t, func(t *rapid.T) {
		st, _ := genState(t)
		c, err := s.ToFSRS(st)
		if err != nil {
			t.Fatalf("ToFSRS(%+v): %v", st, err)
		}
		back, err := s.FromFSRS(c)
		if err != nil {
			t.Fatalf("FromFSRS(%+v): %v", c, err)
		}
		if !sameState(st, back) {
			t.Fatalf("round trip changed the state:\n in  %+v\n out %+v", st, back)
		}
		c2, err := s.ToFSRS(back)
		if err != nil || c2 != c {
			t.Fatalf("library card round trip: %+v -> %+v (%v)", c, c2, err)
		}
	})
}

func TestMappingOfReviewedCardsRoundTrips(t *testing.T) {
	// Every state the library produces with these steps maps back exactly.
	s := New()
	rapid.Check(t, func(t *rapid.T) {
		st, now := genState(t)
		set := genSettings(t)
		card, err := s.ToFSRS(st)
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.params(set)
		if err != nil {
			t.Fatal(err)
		}
		info, err := gofsrs.NewFSRS(p).Next(card, now, gofsrs.Rating(rapid.IntRange(1, 4).Draw(t, "grade")))
		if err != nil {
			t.Fatal(err)
		}
		mapped, err := s.FromFSRS(info.Card)
		if err != nil {
			t.Fatalf("FromFSRS(%+v): %v", info.Card, err)
		}
		again, err := s.ToFSRS(mapped)
		if err != nil || again != info.Card {
			t.Fatalf("library card %+v came back as %+v (%v)", info.Card, again, err)
		}
	})
}

func sameState(a, b contracts.CardState) bool {
	if (a.LastReview == nil) != (b.LastReview == nil) {
		return false
	}
	if a.LastReview != nil && !a.LastReview.Equal(*b.LastReview) {
		return false
	}
	a.LastReview, b.LastReview = nil, nil
	return a.Due.Equal(b.Due) && a.Phase == b.Phase && a.Stability == b.Stability && a.Difficulty == b.Difficulty &&
		a.ScheduledDays == b.ScheduledDays && a.Reps == b.Reps && a.Lapses == b.Lapses && a.Step == b.Step
}

func TestNewCardLearningSteps(t *testing.T) {
	s := New()
	set := contracts.DefaultDeckSettings()
	now := base
	st := NewState(now)
	cases := []struct {
		rating contracts.Rating
		delay  time.Duration
		phase  contracts.Phase
		step   int
	}{
		{contracts.RatingAgain, time.Minute, contracts.PhaseLearning, 0},
		{contracts.RatingHard, 6 * time.Minute, contracts.PhaseLearning, 0},
		{contracts.RatingGood, 10 * time.Minute, contracts.PhaseLearning, 1},
	}
	for _, c := range cases {
		got, err := s.Review(st, set, now, c.rating)
		if err != nil {
			t.Fatal(err)
		}
		if got.Due.Sub(now) != c.delay || got.Phase != c.phase || got.Step != c.step {
			t.Errorf("%s: due +%v phase %s step %d; want +%v %s step %d", c.rating, got.Due.Sub(now), got.Phase, got.Step, c.delay, c.phase, c.step)
		}
	}
	easy, err := s.Review(st, set, now, contracts.RatingEasy)
	if err != nil {
		t.Fatal(err)
	}
	if easy.Phase != contracts.PhaseReview || easy.Due.Sub(now) < 24*time.Hour || easy.ScheduledDays < 1 {
		t.Errorf("easy on a new card: %+v, want review phase at least a day out", easy)
	}
	// good twice graduates to the review phase.
	g1, _ := s.Review(st, set, now, contracts.RatingGood)
	g2, err := s.Review(g1, set, g1.Due, contracts.RatingGood)
	if err != nil {
		t.Fatal(err)
	}
	if g2.Phase != contracts.PhaseReview || g2.Due.Sub(g1.Due) < 24*time.Hour {
		t.Errorf("second good: %+v, want review phase at least a day out", g2)
	}
	// forgetting a review card relearns in 10 minutes and counts a lapse.
	lapse, err := s.Review(g2, set, g2.Due, contracts.RatingAgain)
	if err != nil {
		t.Fatal(err)
	}
	if lapse.Phase != contracts.PhaseRelearning || lapse.Due.Sub(g2.Due) != 10*time.Minute || lapse.Lapses != 1 {
		t.Errorf("again on a review card: %+v, want relearning in 10m with one lapse", lapse)
	}
}

func TestRetentionShortensIntervals(t *testing.T) {
	s := New()
	last := base.Add(-10 * 24 * time.Hour)
	st := contracts.CardState{Phase: contracts.PhaseReview, Due: base, Stability: 10, Difficulty: 5, ScheduledDays: 10, Reps: 3, LastReview: &last}
	low := contracts.DeckSettings{DesiredRetention: 0.7, MaximumIntervalDays: 36500}
	high := contracts.DeckSettings{DesiredRetention: 0.97, MaximumIntervalDays: 36500}
	a, err1 := s.Review(st, low, base, contracts.RatingGood)
	b, err2 := s.Review(st, high, base, contracts.RatingGood)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !b.Due.Before(a.Due) {
		t.Errorf("retention 0.97 due %v, retention 0.7 due %v: higher retention must review sooner", b.Due, a.Due)
	}
	capped, err := s.Review(st, contracts.DeckSettings{DesiredRetention: 0.7, MaximumIntervalDays: 3}, base, contracts.RatingEasy)
	if err != nil {
		t.Fatal(err)
	}
	if capped.Due.Sub(base) > 3*24*time.Hour {
		t.Errorf("maximum interval 3 days: due %v", capped.Due.Sub(base))
	}
}

func TestReviewRejectsBadInput(t *testing.T) {
	s := New()
	set := contracts.DefaultDeckSettings()
	future := base.Add(time.Hour)
	bad := []struct {
		name   string
		state  contracts.CardState
		set    contracts.DeckSettings
		rating contracts.Rating
	}{
		{"rating", NewState(base), set, "meh"},
		{"phase", contracts.CardState{Phase: "lost"}, set, contracts.RatingGood},
		{"step", contracts.CardState{Phase: contracts.PhaseLearning, Step: -1, Stability: 1, Difficulty: 5}, set, contracts.RatingGood},
		{"weights", NewState(base), contracts.DeckSettings{Weights: []float64{1, 2, 3}}, contracts.RatingGood},
		{"weight out of range", NewState(base), contracts.DeckSettings{Weights: outOfRange()}, contracts.RatingGood},
		{"steps", NewState(base), contracts.DeckSettings{LearningSteps: []float64{10, 1}}, contracts.RatingGood},
		{"step over 30 days", NewState(base), contracts.DeckSettings{RelearningSteps: []float64{30*1440 + 1}}, contracts.RatingGood},
		{"negative reps", contracts.CardState{Phase: contracts.PhaseNew, Reps: -1}, set, contracts.RatingGood},
		{"stability", contracts.CardState{Phase: contracts.PhaseReview, Stability: 0, Difficulty: 5, LastReview: &base}, set, contracts.RatingGood},
		{"last review in the future", contracts.CardState{Phase: contracts.PhaseReview, Stability: 3, Difficulty: 5, LastReview: &future}, set, contracts.RatingGood},
		{"retention", NewState(base), contracts.DeckSettings{DesiredRetention: 1.5}, contracts.RatingGood},
		{"max interval", NewState(base), contracts.DeckSettings{MaximumIntervalDays: -3}, contracts.RatingGood},
	}
	for _, b := range bad {
		_, err := s.Review(b.state, b.set, base, b.rating)
		if !contracts.IsKind(err, contracts.KindInvalid) {
			t.Errorf("%s: err = %v, want invalid", b.name, err)
		}
	}
}

func TestFuzzIsOnAndSeededByInputs(t *testing.T) {
	s := New()
	last := base.Add(-30 * 24 * time.Hour)
	st := contracts.CardState{Phase: contracts.PhaseReview, Due: base, Stability: 40, Difficulty: 5, ScheduledDays: 30, Reps: 5, LastReview: &last}
	set := contracts.DefaultDeckSettings()
	seen := map[time.Duration]bool{}
	for i := range 40 {
		now := base.Add(time.Duration(i) * time.Millisecond)
		got, err := s.Review(st, set, now, contracts.RatingGood)
		if err != nil {
			t.Fatal(err)
		}
		seen[got.Due.Sub(now)] = true
	}
	if len(seen) < 2 {
		t.Errorf("40 review times gave %d distinct intervals; fuzz should spread them", len(seen))
	}
}

func outOfRange() []float64 {
	w := append([]float64{}, contracts.DefaultWeights...)
	w[20] = 0.95
	return w
}
