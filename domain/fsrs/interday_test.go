package fsrs

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// Interday learning steps (issue 27 §7): a step of a day or more keeps the
// card in learning (the library would graduate it), due from the start of
// the learner's day the step ends on; the next step or graduation follows
// from there, and a lapse with a one-day relearning step relearns.
func TestInterdayLearningSteps(t *testing.T) {
	s := New()
	ny := contracts.NewLearnerDay(contracts.AccountSettings{Timezone: "America/New_York", RolloverHour: 4})
	set := contracts.DefaultDeckSettings()
	set.LearningSteps, set.RelearningSteps = []float64{10, 1440, 2880}, []float64{1440}
	review := func(st contracts.CardState, at time.Time, r contracts.Rating) contracts.CardState {
		t.Helper()
		out, err := s.ReviewOn(st, set, ny, at, r)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// 23:30 New York (04:30Z the next UTC date): the learner's day of
	// 2026-03-10 (EDT from 03-08).
	at := time.Date(2026, 3, 11, 3, 30, 0, 0, time.UTC)
	st := review(NewState(at), at, contracts.RatingAgain)
	if st.Phase != contracts.PhaseLearning || st.Step != 0 || !st.Due.Equal(at.Add(10*time.Minute)) {
		t.Fatalf("again on a new card: %+v; want the 10-minute step", st)
	}
	at = st.Due
	st = review(st, at, contracts.RatingGood)
	// The one-day step: due at 04:00 New York (08:00Z) of 03-11, not 24 hours on.
	nextDay := time.Date(2026, 3, 11, 8, 0, 0, 0, time.UTC)
	if st.Phase != contracts.PhaseLearning || st.Step != 1 || !st.Due.Equal(nextDay) || st.ScheduledDays != 0 {
		t.Fatalf("good into the one-day step: %+v; want learning step 1 due %v", st, nextDay)
	}
	// Hard repeats the step's delay from the review.
	at = nextDay.Add(9 * time.Hour)
	hard := review(st, at, contracts.RatingHard)
	if hard.Phase != contracts.PhaseLearning || hard.Step != 1 || !hard.Due.After(at) {
		t.Errorf("hard in an interday step: %+v; want it to stay in learning", hard)
	}
	// Good at 13:00 New York goes to the two-day step: 04:00 two days on.
	st = review(st, at, contracts.RatingGood)
	want := time.Date(2026, 3, 13, 8, 0, 0, 0, time.UTC)
	if st.Phase != contracts.PhaseLearning || st.Step != 2 || !st.Due.Equal(want) || st.Stability <= 0 {
		t.Fatalf("good into the two-day step: %+v; want learning step 2 due %v", st, want)
	}
	// The last step passed: a review card with an interval in days.
	at = want.Add(2 * time.Hour)
	st = review(st, at, contracts.RatingGood)
	if st.Phase != contracts.PhaseReview || st.ScheduledDays < 1 || st.Step != 0 {
		t.Fatalf("good after the last step: %+v; want a review card", st)
	}
	// A lapse: the one-day relearning step, then back to review.
	at = st.Due.Add(time.Hour)
	lapsed := review(st, at, contracts.RatingAgain)
	relearnDue := ny.StartOfDate(ny.Date(at).AddDate(0, 0, 1))
	if lapsed.Phase != contracts.PhaseRelearning || lapsed.Lapses != st.Lapses+1 || !lapsed.Due.Equal(relearnDue) {
		t.Fatalf("again with a one-day relearning step: %+v; want relearning due %v", lapsed, relearnDue)
	}
	back := review(lapsed, lapsed.Due.Add(3*time.Hour), contracts.RatingGood)
	if back.Phase != contracts.PhaseReview {
		t.Errorf("good after the relearning step: %+v; want review", back)
	}
	// The simulation's fast path gives the same lapse.
	p, err := s.preset(set)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := p.ReviewFuzzed(st, ny, at, contracts.RatingAgain, 0.5)
	if err != nil || fast.Phase != contracts.PhaseRelearning || !fast.Due.Equal(lapsed.Due) {
		t.Errorf("fast path lapse: %+v, %v; want %+v", fast, err, lapsed)
	}
	// An intraday step is still an instant.
	set.LearningSteps = []float64{1439}
	if got := review(NewState(at), at, contracts.RatingAgain); got.Phase != contracts.PhaseLearning || !got.Due.Equal(at.Add(1439*time.Minute)) {
		t.Errorf("a 1439-minute step: %+v; want due exactly 1439 minutes on", got)
	}
}
