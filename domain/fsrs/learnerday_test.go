package fsrs

import (
	"math"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// twoGoodSteps rates a new card good twice, ten minutes apart, from at.
func twoGoodSteps(t *testing.T, day contracts.LearnerDay, at time.Time) contracts.CardState {
	t.Helper()
	s := New()
	set := contracts.DefaultDeckSettings()
	st, err := s.ReviewOn(NewState(at), set, day, at, contracts.RatingGood)
	if err != nil {
		t.Fatal(err)
	}
	if st.Phase != contracts.PhaseLearning || !st.Due.Equal(at.Add(10*time.Minute)) {
		t.Fatalf("first good: %+v, want a learning step due in 10 minutes", st)
	}
	st, err = s.ReviewOn(st, set, day, st.Due, contracts.RatingGood)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The two histories: two good learning steps ten minutes apart
// across 00:00Z, and the same two at 09:30Z, are both within one New York
// day, so FSRS sees no elapsed day in either and gives the same stability.
func TestElapsedDaysCountLearnerDays(t *testing.T) {
	ny := contracts.NewLearnerDay(contracts.AccountSettings{Timezone: "America/New_York", RolloverHour: 4})
	night := twoGoodSteps(t, ny, time.Date(2026, 3, 10, 23, 55, 0, 0, time.UTC))
	morning := twoGoodSteps(t, ny, time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC))
	if night.Stability != morning.Stability || night.Difficulty != morning.Difficulty {
		t.Errorf("across 00:00Z: S=%v D=%v; at 09:30Z: S=%v D=%v; want the same", night.Stability, night.Difficulty, morning.Stability, morning.Difficulty)
	}
	if math.Abs(morning.Stability-2.3065) > 0.01 {
		t.Errorf("stability after two same-day good steps = %v, want w2 = 2.3065 (no day elapsed)", morning.Stability)
	}
	// In UTC days the night history crosses a date and FSRS treats the
	// second step as a review a day later: this is what went wrong.
	utcNight := twoGoodSteps(t, contracts.LearnerDay{}, time.Date(2026, 3, 10, 23, 55, 0, 0, time.UTC))
	if utcNight.Stability <= morning.Stability+1 {
		t.Errorf("UTC-day stability across midnight = %v; the test no longer shows the date-line effect", utcNight.Stability)
	}
	t.Logf("stability: NY night %.4f, NY morning %.4f, UTC-day night %.4f", night.Stability, morning.Stability, utcNight.Stability)
}

// A graduated card is due from the start of its due day in the learner's
// day: graduated at 18:20Z with an interval of N days, it is due at 04:00
// local on the N-th day after, not at 18:20Z.
func TestReviewDueFromStartOfDueDay(t *testing.T) {
	for _, tz := range []string{"UTC", "Pacific/Honolulu", "Asia/Kolkata", "Pacific/Kiritimati", "America/New_York"} {
		day := contracts.NewLearnerDay(contracts.AccountSettings{Timezone: tz, RolloverHour: 4})
		at := time.Date(2026, 3, 7, 18, 20, 0, 0, time.UTC) // New York springs forward the next night
		st := twoGoodSteps(t, day, at)
		if st.Phase != contracts.PhaseReview || st.ScheduledDays < 1 {
			t.Fatalf("%s: %+v, want a graduated card", tz, st)
		}
		last := at.Add(10 * time.Minute)
		want := day.StartOfDate(day.Date(last).AddDate(0, 0, st.ScheduledDays))
		if !st.Due.Equal(want) {
			t.Errorf("%s: due %v, want the start of the learner's day %d days on: %v", tz, st.Due, st.ScheduledDays, want)
		}
		if got := day.DaysBetween(last, st.Due); got != st.ScheduledDays {
			t.Errorf("%s: due %d learner days after the review, want %d", tz, got, st.ScheduledDays)
		}
		if l := st.Due.In(day.Location); l.Hour() != 4 || l.Minute() != 0 {
			t.Errorf("%s: due at %v local, want 04:00", tz, l)
		}
	}
}

// Easy under a small maximum interval stores an interval within the cap.
func TestEasyRespectsMaximumInterval(t *testing.T) {
	s := New()
	set := contracts.DefaultDeckSettings()
	set.MaximumIntervalDays = 2
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	st, err := s.Review(NewState(at), set, at, contracts.RatingEasy)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		if st.ScheduledDays > 2 || st.Due.Sub(at) > 3*24*time.Hour {
			t.Fatalf("review %d: scheduledDays %d due %v, want at most 2 days", i, st.ScheduledDays, st.Due)
		}
		at = st.Due
		if st, err = s.Review(st, set, at, contracts.RatingEasy); err != nil {
			t.Fatal(err)
		}
	}
}
