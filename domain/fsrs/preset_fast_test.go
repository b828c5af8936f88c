package fsrs

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	gofsrs "github.com/open-spaced-repetition/go-fsrs/v4"
	"pgregory.net/rapid"

	"github.com/takhtabush/takhtabush/contracts"
)

// libraryDraw is the fuzz draw the library makes for a review of st at
// now in the learner's day.
func libraryDraw(st contracts.CardState, day contracts.LearnerDay, now time.Time) float64 {
	seed := fmt.Sprintf("%d_%d_%f", virtual(day, now).UnixMilli(), st.Reps+1, st.Difficulty*st.Stability)
	return gofsrs.Alea(seed).Double()
}

// TestReviewFuzzedMatchesLibrary: given the library's own fuzz draw,
// ReviewFuzzed answers exactly what ReviewOn does, for every phase and
// rating, under drawn settings (relearning steps among them) and
// learner's days (time zone and rollover hour).
func TestReviewFuzzedMatchesLibrary(t *testing.T) {
	zones := []string{"UTC", "Asia/Tokyo", "America/New_York", "Pacific/Chatham"}
	rapid.Check(t, func(t *rapid.T) {
		set := genSettings(t)
		set.RelearningSteps = rapid.SampledFrom([][]float64{nil, {30, 120}, {1}, {1439}}).Draw(t, "relearningSteps")
		loc, err := time.LoadLocation(rapid.SampledFrom(zones).Draw(t, "zone"))
		if err != nil {
			t.Fatal(err)
		}
		day := contracts.LearnerDay{Location: loc, RolloverHour: rapid.IntRange(0, 23).Draw(t, "rollover")}
		st, now := genState(t)
		if st.Phase == contracts.PhaseReview && rapid.Bool().Draw(t, "daysLater") {
			// Most simulated reviews come days after the last one.
			now = st.LastReview.Add(time.Duration(rapid.IntRange(1, 400*24*60).Draw(t, "minutesLater")) * time.Minute)
		}
		rating := rapid.SampledFrom([]contracts.Rating{contracts.RatingAgain, contracts.RatingHard, contracts.RatingGood, contracts.RatingEasy}).Draw(t, "rating")
		p, err := New().preset(set)
		if err != nil {
			t.Fatal(err)
		}
		want, werr := New().ReviewOn(st, set, day, now, rating)
		got, gerr := p.ReviewFuzzed(st, day, now, rating, libraryDraw(st, day, now))
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s review of %+v at %v:\nReviewFuzzed %+v, %v\nReviewOn     %+v, %v", rating, st, now, got, gerr, want, werr)
		}
	})
}
