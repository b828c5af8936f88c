package domain

import (
	"context"
	"math"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Plan constants.
const (
	// ReviewsPerNewCard is roughly how many reviews one new card costs in
	// its first month (learning steps plus the first few intervals). A
	// daily budget that has room for N spare reviews therefore fits about
	// N / ReviewsPerNewCard new cards a day.
	ReviewsPerNewCard = 5
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
type StatsService struct{ *deps }

var _ ports.StatsService = (*StatsService)(nil)

// Stats returns review statistics for a deck, or the whole account when
// DeckID is empty, over the last Days UTC days (default 30) including today.
func (s *StatsService) Stats(ctx context.Context, args contracts.GetStatsArgs) (contracts.Stats, error) {
	uid, err := userID(ctx)
	if err != nil {
		return contracts.Stats{}, err
	}
	days, err := planDays(args.Days)
	if err != nil {
		return contracts.Stats{}, err
	}
	now := s.now()
	if args.DeckID != "" {
		if _, err := loadDeck(ctx, s.store, uid, args.DeckID); err != nil {
			return contracts.Stats{}, err
		}
	}
	day, err := learnerDay(ctx, s.store, uid)
	if err != nil {
		return contracts.Stats{}, err
	}
	today := day.Date(now) // the learner's date, as midnight UTC
	since := today.AddDate(0, 0, -(days - 1))
	history, err := s.store.Reviews().ReviewDays(ctx, uid, args.DeckID, day.StartOfDate(today.AddDate(0, 0, -streakLookback)))
	if err != nil {
		return contracts.Stats{}, fail(err)
	}
	ret, err := s.store.Reviews().RetentionSplit(ctx, uid, args.DeckID, day.StartOfDate(since), contracts.MatureIntervalDays)
	if err != nil {
		return contracts.Stats{}, fail(err)
	}
	states, err := s.store.Cards().CountPhases(ctx, uid, args.DeckID)
	if err != nil {
		return contracts.Stats{}, fail(err)
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

// Plan forecasts the cards due per day and the new cards per day that fit
// a daily time budget.
func (s *StatsService) Plan(ctx context.Context, args contracts.GetStudyPlanArgs) (contracts.StudyPlan, error) {
	uid, err := userID(ctx)
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
	now := s.now()
	// The plan never advises more new cards a day than the deck (or the
	// account-wide cap) allows.
	newCap := math.MaxInt
	if args.DeckID != "" {
		d, err := loadDeck(ctx, s.store, uid, args.DeckID)
		if err != nil {
			return contracts.StudyPlan{}, err
		}
		newCap = d.Settings.NewCardsPerDay
	}
	acct, day, err := accountSettings(ctx, s.store, uid)
	if err != nil {
		return contracts.StudyPlan{}, err
	}
	today := day.Date(now)
	bounds := make([]time.Time, days+1)
	for i := range bounds {
		bounds[i] = day.StartOfDate(today.AddDate(0, 0, i))
	}
	hist, err := s.store.Cards().DueCounts(ctx, uid, args.DeckID, bounds)
	if err != nil {
		return contracts.StudyPlan{}, fail(err)
	}
	meanMs, n, err := s.store.Reviews().AverageDuration(ctx, uid, now.AddDate(0, 0, -30))
	if err != nil {
		return contracts.StudyPlan{}, fail(err)
	}
	states, err := s.store.Cards().CountPhases(ctx, uid, args.DeckID)
	if err != nil {
		return contracts.StudyPlan{}, fail(err)
	}
	if acct.NewCardsPerDay > 0 {
		newCap = min(newCap, acct.NewCardsPerDay)
	}
	p := makePlan(hist, today, minutes, meanMs, n, states.New)
	p.NewCardsPerDay = min(p.NewCardsPerDay, newCap)
	p.SecondsPerReview = round(p.SecondsPerReview, 2)
	p.AverageDuePerDay = round(p.AverageDuePerDay, 2)
	p.DeckID = args.DeckID
	return p, nil
}

// makePlan is the plan arithmetic: the forecast, seconds per review
// (measured when at least MinMeasuredReviews timed reviews exist), the
// reviews that fit the budget, and the new cards per day that fit beside
// the average due load.
func makePlan(hist []int, today time.Time, minutes, meanMs float64, timed, newRemaining int) contracts.StudyPlan {
	p := contracts.StudyPlan{
		Days: len(hist), Forecast: make([]contracts.DueDay, len(hist)), MinutesPerDay: minutes,
		SecondsPerReview: contracts.DefaultSecondsPerReview, SecondsPerReviewSource: "default",
		NewCardsRemaining: newRemaining,
	}
	if timed >= MinMeasuredReviews && meanMs > 0 {
		p.SecondsPerReview, p.SecondsPerReviewSource = meanMs/1000, "measured"
	}
	sum := 0
	for i, n := range hist {
		p.Forecast[i] = contracts.DueDay{Date: today.AddDate(0, 0, i).Format(dateLayout), Due: n}
		sum += n
	}
	if len(hist) > 0 {
		p.AverageDuePerDay = float64(sum) / float64(len(hist))
	}
	p.CapacityPerDay = int(math.Floor(minutes * 60 / p.SecondsPerReview))
	spare := float64(p.CapacityPerDay) - p.AverageDuePerDay
	rec := int(math.Floor(spare / ReviewsPerNewCard))
	p.NewCardsPerDay = max(0, min(rec, newRemaining))
	return p
}
