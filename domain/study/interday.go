package study

import (
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Interday learning and the review limit (issue 27 §7). A learning or
// relearning card carried over from an earlier learner's day (an
// interday step, or a step left overdue past the day's end: rated
// before today) counts against the review limit, as Anki's v3
// scheduler does: a session takes such cards first, then review cards,
// within what the limit leaves; a step set today is outside every cap.
// StudiedCounts.Interday counts the same cards once rated (a learning
// card's first rating of the day), and SubmitReview's check of the last
// slot (checkDailyLimits) counts them by limitPhase, as sessions do.

// carriedOver reports whether st is a learning or relearning step not
// rated today (since the start of the learner's day at now).
func carriedOver(st contracts.CardState, day contracts.LearnerDay, now time.Time) bool {
	if st.Phase != contracts.PhaseLearning && st.Phase != contracts.PhaseRelearning {
		return false
	}
	return st.LastReview == nil || st.LastReview.Before(day.Start(now))
}

// CarriedOver is carriedOver for the workload simulation (domain/stats),
// so the plan's later days count interday learning with the sessions'
// rule.
func CarriedOver(st contracts.CardState, day contracts.LearnerDay, now time.Time) bool {
	return carriedOver(st, day, now)
}

// limitPhase is the phase whose daily limit a rating of st counts
// against: new, review (review cards and carried-over learning steps),
// or st's own phase for a step set today (no limit).
func limitPhase(st contracts.CardState, day contracts.LearnerDay, now time.Time) contracts.Phase {
	if carriedOver(st, day, now) {
		return contracts.PhaseReview
	}
	return st.Phase
}

// splitLearning splits a day's learning cards, in order, into the steps
// set today (kept, outside every cap) and the carried-over ones, of
// which it keeps the first reviewCap; it returns the kept cards in their
// order and how many carried-over ones it kept.
func splitLearning(cards []ports.CardRow, reviewCap int, day contracts.LearnerDay, now time.Time) ([]ports.CardRow, int) {
	out := make([]ports.CardRow, 0, len(cards))
	n := 0
	for _, c := range cards {
		if carriedOver(c.State, day, now) {
			if n >= reviewCap {
				continue
			}
			n++
		}
		out = append(out, c)
	}
	return out, n
}

// carriedCount counts the carried-over learning steps of cards.
func carriedCount(cards []ports.CardRow, day contracts.LearnerDay, now time.Time) int {
	n := 0
	for _, c := range cards {
		if carriedOver(c.State, day, now) {
			n++
		}
	}
	return n
}
