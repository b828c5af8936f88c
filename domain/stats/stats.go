package stats

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/domain/study"
	"github.com/takhtabush/takhtabush/ports"
)

// Plan constants.
const (
	// DefaultMinutesPerDay is the study budget a plan assumes when none is given.
	DefaultMinutesPerDay = 20.0
	// maxMinutesPerDay bounds the study budget (a whole day).
	maxMinutesPerDay = 1440.0
	// MinMeasuredReviews is the number of timed reviews in the last 30 days
	// needed before a plan uses the measured seconds per review.
	MinMeasuredReviews = 20
	// streakLookback bounds how far back a streak is counted.
	streakLookback = 10 * 366
)

// StatsService reports statistics and plans.
type StatsService struct {
	*kernel.Deps
	reads *readCache // plans and stats per account, learner's day and data version
	sims  *simCache  // deck simulations by their input
}

var _ ports.StatsService = (*StatsService)(nil)

// NewStatsService builds the service with its own read and simulation caches.
func NewStatsService(d *kernel.Deps) *StatsService {
	return &StatsService{Deps: d, reads: &readCache{}, sims: &simCache{}}
}

// Stats returns review statistics for a deck, or the whole account when
// DeckID is empty, over the last Days UTC days (default 30) including today.
//
// Answers are remembered per account, learner's date and data version
// (readCache): a write of the account's data since, on any instance, makes
// the next call compute afresh.
func (s *StatsService) Stats(ctx context.Context, args contracts.GetStatsArgs) (contracts.Stats, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.Stats{}, err
	}
	days, err := planDays(args.Days)
	if err != nil {
		return contracts.Stats{}, err
	}
	now := s.Now()
	ver, err := s.reads.version(ctx, s.Store, uid)
	if err != nil {
		return contracts.Stats{}, err
	}
	day, err := kernel.LearnerDay(ctx, s.Store, uid)
	if err != nil {
		return contracts.Stats{}, err
	}
	key := readKey{tool: "stats", userID: uid, deckID: args.DeckID, days: days, date: day.DateString(now)}
	if v, ok := s.reads.get(key, ver); ok {
		out := v.(contracts.Stats)
		out.ReviewsPerDay = slices.Clone(out.ReviewsPerDay)
		out.GeneratedAt = now
		return out, nil
	}
	out, err := s.stats(ctx, uid, args.DeckID, days, day, now)
	if err != nil {
		return contracts.Stats{}, err
	}
	s.reads.put(key, ver, out)
	out.ReviewsPerDay = slices.Clone(out.ReviewsPerDay)
	return out, nil
}

// stats computes Stats.
func (s *StatsService) stats(ctx context.Context, uid, deckID string, days int, day contracts.LearnerDay, now time.Time) (contracts.Stats, error) {
	args := contracts.GetStatsArgs{DeckID: deckID, Days: days}
	if args.DeckID != "" {
		if _, err := library.LoadDeck(ctx, s.Store, uid, args.DeckID); err != nil {
			return contracts.Stats{}, err
		}
	}
	today := day.Date(now) // the learner's date, as midnight UTC
	since := today.AddDate(0, 0, -(days - 1))
	history, err := s.Store.Reviews().ReviewDays(ctx, uid, args.DeckID, day.StartOfDate(today.AddDate(0, 0, -streakLookback)))
	if err != nil {
		return contracts.Stats{}, kernel.Fail(err)
	}
	ret, err := s.Store.Reviews().RetentionSplit(ctx, uid, args.DeckID, day.StartOfDate(since), contracts.MatureIntervalDays)
	if err != nil {
		return contracts.Stats{}, kernel.Fail(err)
	}
	states, err := s.Store.Cards().CountPhases(ctx, uid, args.DeckID)
	if err != nil {
		return contracts.Stats{}, kernel.Fail(err)
	}
	out := contracts.Stats{
		DeckID: args.DeckID, Days: days, CardStates: states, GeneratedAt: now,
		ReviewsPerDay: fillDays(history, since, days),
		StreakDays:    streak(history, today),
	}
	for _, d := range out.ReviewsPerDay {
		out.TotalReviews += d.Reviews
	}
	var spentMs int64
	for _, d := range history {
		if !d.Day.Before(since) {
			spentMs += d.DurationMs
		}
	}
	out.TimeSpentSeconds = int((spentMs + 500) / 1000)
	out.TrueRetention = ratio(ret.YoungPassed+ret.MaturePassed, ret.Young+ret.Mature)
	out.YoungRetention = ratio(ret.YoungPassed, ret.Young)
	out.MatureRetention = ratio(ret.MaturePassed, ret.Mature)
	out.YoungReviews, out.MatureReviews = ret.Young, ret.Mature
	return out, nil
}

// ratio is passed/total rounded to 4 decimals, nil without a total.
func ratio(passed, total int) *float64 {
	if total == 0 {
		return nil
	}
	r := round(float64(passed)/float64(total), 4)
	return &r
}

// round rounds x to n decimals, so a model reads 0.9123, not 0.91234567890123.
func round(x float64, n int) float64 {
	p := math.Pow(10, float64(n))
	return math.Round(x*p) / p
}

func planDays(days int) (int, error) {
	if days == 0 {
		return contracts.DefaultPlanDays, nil
	}
	if days < 1 || days > contracts.MaxPlanDays {
		return 0, contracts.Errorf(contracts.KindInvalid, "days must be 1-%d, got %d", contracts.MaxPlanDays, days)
	}
	return days, nil
}

const dateLayout = "2006-01-02"

// fillDays lists every day from since for n days, with the counts of the
// days that had reviews and zero for the others.
func fillDays(history []ports.ReviewDay, since time.Time, n int) []contracts.DayCount {
	byDay := make(map[string]ports.ReviewDay, len(history))
	for _, d := range history {
		byDay[d.Day.UTC().Format(dateLayout)] = d
	}
	out := make([]contracts.DayCount, n)
	for i := range n {
		date := since.AddDate(0, 0, i).Format(dateLayout)
		d := byDay[date]
		out[i] = contracts.DayCount{Date: date, Reviews: d.Reviews, Passed: d.Passed}
	}
	return out
}

// streak counts consecutive days with at least one review, ending today,
// or yesterday when there is none today yet.
func streak(history []ports.ReviewDay, today time.Time) int {
	active := make(map[string]bool, len(history))
	for _, d := range history {
		if d.Reviews > 0 {
			active[d.Day.UTC().Format(dateLayout)] = true
		}
	}
	day := today
	if !active[day.Format(dateLayout)] {
		day = day.AddDate(0, 0, -1)
	}
	n := 0
	for active[day.Format(dateLayout)] {
		n++
		day = day.AddDate(0, 0, -1)
	}
	return n
}

// Plan forecasts the reviews per day from a simulation of the deck's
// cards (without a deck, of every deck under its own preset and limits,
// summed) and recommends the most new cards per day whose simulated
// workload fits the daily time budget, never more than the decks (and the
// account-wide cap) allow.
//
// The plan is computed once per learner's day: it is remembered per
// account, arguments, learner's date and data version (readCache), and a
// write of the account's cards, decks, presets, review logs or settings,
// on any instance, makes the next call compute afresh.
func (s *StatsService) Plan(ctx context.Context, args contracts.GetStudyPlanArgs) (contracts.StudyPlan, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.StudyPlan{}, err
	}
	days, err := planDays(args.Days)
	if err != nil {
		return contracts.StudyPlan{}, err
	}
	minutes := args.MinutesPerDay
	if minutes == 0 {
		minutes = DefaultMinutesPerDay
	}
	if math.IsNaN(minutes) || minutes < 0 || minutes > maxMinutesPerDay {
		return contracts.StudyPlan{}, contracts.Errorf(contracts.KindInvalid, "minutesPerDay must be above 0 and at most %v, got %v", maxMinutesPerDay, args.MinutesPerDay)
	}
	now := s.Now()
	ver, err := s.reads.version(ctx, s.Store, uid)
	if err != nil {
		return contracts.StudyPlan{}, err
	}
	day, err := kernel.LearnerDay(ctx, s.Store, uid)
	if err != nil {
		return contracts.StudyPlan{}, err
	}
	key := readKey{tool: "plan", userID: uid, deckID: args.DeckID, days: days, minutes: minutes, date: day.DateString(now), advise: args.Advise}
	if v, ok := s.reads.get(key, ver); ok {
		p := v.(contracts.StudyPlan)
		p.Forecast = slices.Clone(p.Forecast)
		return p, nil
	}
	p, err := s.plan(ctx, uid, args.DeckID, days, minutes, args.Advise, now)
	if err != nil {
		return contracts.StudyPlan{}, err
	}
	s.reads.put(key, ver, p)
	p.Forecast = slices.Clone(p.Forecast)
	return p, nil
}

// plan computes Plan. The forecast assumes the decks' daily new-card
// limits, as sessions study; with advise, the most new cards a day that
// fit the budget is added apart. Each day counts the review cards due
// (reviewed that day), learning-step ratings and new cards; day 0 is what
// sessions started now would serve (dayQueue), after what was studied
// today.
func (s *StatsService) plan(ctx context.Context, uid, deckID string, days int, minutes float64, advise bool, now time.Time) (contracts.StudyPlan, error) {
	w, err := s.workload(ctx, uid, deckID, now)
	if err != nil {
		return contracts.StudyPlan{}, err
	}
	meanMs, n, err := s.Store.Reviews().AverageDuration(ctx, uid, now.AddDate(0, 0, -30))
	if err != nil {
		return contracts.StudyPlan{}, kernel.Fail(err)
	}
	p := contracts.StudyPlan{
		DeckID: deckID, Days: days, MinutesPerDay: minutes, NewCardsRemaining: w.newCards(),
		SecondsPerReview: contracts.DefaultSecondsPerReview, SecondsPerReviewSource: "default",
	}
	if n >= MinMeasuredReviews && meanMs > 0 {
		p.SecondsPerReview, p.SecondsPerReviewSource = meanMs/1000, "measured"
	}
	p.CapacityPerDay = int(math.Floor(minutes * 60 / p.SecondsPerReview))
	advised, sim, err := planForecast(w, days, p.CapacityPerDay, advise, s.Sched)
	if err != nil {
		return contracts.StudyPlan{}, err
	}
	if advise {
		p.AdvisedNewCardsPerDay = &advised
	}
	p.NewCardsPerDay = w.mostNew()
	today := w.day.Date(now)
	p.Forecast = make([]contracts.DueDay, days)
	sum := 0.0
	for i, d := range sim {
		p.Forecast[i] = contracts.DueDay{Date: today.AddDate(0, 0, i).Format(dateLayout), Due: int(math.Round(d.Due)),
			New: int(math.Round(d.New)), Learning: max(0, int(math.Round(d.Reviews-d.Due-d.New)))}
		sum += d.Reviews
	}
	if days > 0 {
		due, learning, fresh, err := s.leftToday(ctx, uid, deckID, now)
		if err != nil {
			return contracts.StudyPlan{}, err
		}
		p.Forecast[0].Due, p.Forecast[0].Learning, p.Forecast[0].New = due, learning, fresh
	}
	p.AverageDuePerDay = round(sum/float64(days), 2)
	p.SecondsPerReview = round(p.SecondsPerReview, 2)
	return p, nil
}

// leftToday counts what normal sessions started now would serve of a
// deck, or of every deck when deckID is "" (study.LeftToday), in one
// transaction.
func (s *StatsService) leftToday(ctx context.Context, uid, deckID string, now time.Time) (due, learning, fresh int, err error) {
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		due, learning, fresh, err = study.LeftToday(ctx, tx, uid, deckID, now)
		return err
	})
	return due, learning, fresh, err
}

// simInput is what a workload simulation of one deck needs: its
// scheduled cards' states and new cards, under the deck's own settings
// (its preset's steps, maximum interval, retention and weights), with
// NewPerDay at the most the deck and the account-wide cap allow.
func simInput(deck contracts.Deck, states []contracts.CardState, newCards int, acct contracts.AccountSettings,
	day contracts.LearnerDay, now time.Time) SimInput {
	set := deck.Settings
	newCap := set.NewCardsPerDay
	if acct.NewCardsPerDay > 0 {
		newCap = min(newCap, acct.NewCardsPerDay)
	}
	if acct.ReviewsPerDay > 0 {
		set.ReviewsPerDay = min(set.ReviewsPerDay, acct.ReviewsPerDay)
	}
	today := day.Date(now)
	return SimInput{
		Cards: simOrder(states), NewCards: newCards, Settings: set.WithDefaults(), Day: day, Now: now,
		NewPerDay: max(min(newCap, newCards), 0), Mix: DefaultRatingMix,
		Seed: uint64(today.Unix()) ^ uint64(len(states))<<32 ^ uint64(newCards),
	}
}

// planForecast is the simulation behind a study plan: the workload of
// days at the decks' new-card limits, as sessions study, and with advise
// the new cards a day that fit capacity (recommendNew; 0 without).
func planForecast(w workload, days, capacity int, advise bool, sched ports.Scheduler) (int, []SimDay, error) {
	advised := 0
	if advise {
		var err error
		if advised, err = recommendNew(w, days, capacity, sched); err != nil {
			return 0, nil, err
		}
	}
	sim, err := w.simulate(w.mostNew(), days, simBudget, sched)
	return advised, sim, err
}

// planHorizon is the least number of days the recommendation simulates:
// new cards' reviews pile up over weeks.
const planHorizon = 30

// recommendNew returns the most new cards per day, up to what the decks
// allow, whose simulated reviews fit capacity on every day of the plan
// (at least planHorizon days). The workload grows about linearly with the
// new cards a day: it simulates none and the most, interpolates, and
// steps down until the simulation fits.
func recommendNew(w workload, days, capacity int, sched ports.Scheduler) (int, error) {
	days = max(days, planHorizon)
	peak := func(n int) (float64, error) {
		sim, err := w.simulate(n, days, simBudget/4, sched)
		top := 0.0
		for _, d := range sim {
			top = max(top, d.Reviews)
		}
		return top, err
	}
	most := min(w.mostNew(), capacity)
	if most <= 0 {
		return 0, nil
	}
	hi, err := peak(most)
	if err != nil || hi <= float64(capacity) {
		return most, err
	}
	lo, err := peak(0)
	if err != nil || lo >= float64(capacity) {
		return 0, err
	}
	n := int(float64(most) * (float64(capacity) - lo) / (hi - lo))
	for tries := 0; n > 0 && tries < 4; tries++ {
		l, err := peak(n)
		if err != nil || l <= float64(capacity) {
			return n, err
		}
		n = int(float64(n) * (float64(capacity) - lo) / (l - lo))
	}
	return max(n, 0), nil
}
