package stats

import (
	"context"
	"fmt"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
)

// The histograms' bucket edges: intervals and stability in days,
// difficulty on FSRS's 1–10 scale.
var (
	dayEdges        = []float64{0, 1, 2, 4, 8, 15, 31, 61, 91, 181, 366}
	difficultyEdges = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
)

// Distribution counts the scheduled cards of a deck (or of every deck) by
// interval, stability and difficulty, and the answer buttons of the last
// args.Days days (30 by default) by card age.
func (s *StatsService) Distribution(ctx context.Context, args contracts.GetStatsArgs) (contracts.CardDistribution, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.CardDistribution{}, err
	}
	days, err := planDays(args.Days)
	if err != nil {
		return contracts.CardDistribution{}, err
	}
	if args.DeckID != "" {
		if _, err := library.LoadDeck(ctx, s.Store, uid, args.DeckID); err != nil {
			return contracts.CardDistribution{}, err
		}
	}
	day, err := kernel.LearnerDay(ctx, s.Store, uid)
	if err != nil {
		return contracts.CardDistribution{}, err
	}
	states, err := s.Store.Cards().ScheduledStates(ctx, uid, args.DeckID)
	if err != nil {
		return contracts.CardDistribution{}, kernel.Fail(err)
	}
	out := contracts.CardDistribution{DeckID: args.DeckID, Days: days,
		Intervals: buckets(dayEdges, " d"), Stability: buckets(dayEdges, " d"), Difficulty: buckets(difficultyEdges, "")}
	for _, st := range states {
		count(out.Intervals, float64(st.ScheduledDays))
		count(out.Stability, st.Stability)
		count(out.Difficulty, st.Difficulty)
	}
	since := day.StartOfDate(day.Date(s.Now()).AddDate(0, 0, 1-days))
	if out.Buttons, err = s.Store.Reviews().AnswerButtons(ctx, uid, args.DeckID, since, contracts.MatureIntervalDays); err != nil {
		return contracts.CardDistribution{}, kernel.Fail(err)
	}
	return out, nil
}

// buckets makes the empty buckets between edges, the last one open,
// labelled with unit ("8–14 d", "366+ d").
func buckets(edges []float64, unit string) []contracts.Bucket {
	out := make([]contracts.Bucket, len(edges))
	for i, lo := range edges {
		b := contracts.Bucket{Min: lo}
		switch {
		case i == len(edges)-1:
			b.Label = fmt.Sprintf("%g+%s", lo, unit)
		case edges[i+1]-lo == 1:
			b.Max, b.Label = edges[i+1], fmt.Sprintf("%g%s", lo, unit)
		default:
			b.Max, b.Label = edges[i+1], fmt.Sprintf("%g–%g%s", lo, edges[i+1]-1, unit)
		}
		out[i] = b
	}
	return out
}

// count adds one card of value v to its bucket; a value below the first
// edge counts in the first.
func count(bs []contracts.Bucket, v float64) {
	for i := len(bs) - 1; i >= 0; i-- {
		if v >= bs[i].Min || i == 0 {
			bs[i].Cards++
			return
		}
	}
}
