package domain_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/domain/fsrs"
)

// TestEasyDays (issue 28 §2): a preset's easy days, set with update_deck,
// steer reviews and the plan. Weekends at share 0: none of 20 targets
// rated Good (a fuzz range of 7 days or more) lands on a Saturday or a
// Sunday, and the plan's forecast gives weekends a far smaller share of
// the review cards than before; the easy days read back with the deck and
// are refused unless 7 shares of 0-1.
func TestEasyDays(t *testing.T) { eachStore(t, testEasyDays) }

func testEasyDays(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Easy", NewCardsPerDay: ptr(400), ReviewsPerDay: ptr(1000)})
	if err != nil {
		t.Fatal(err)
	}
	targets := ids(e.add(ctx, d.ID, manyCards("target", 20)...))
	e.add(ctx, d.ID, manyCards("other", 200)...)
	if n := e.studyAll(ctx, e.start(ctx, d.ID, nil, nil), contracts.RatingEasy); n != 220 {
		t.Fatalf("graduated %d of 220 cards", n)
	}
	e.clock.Advance(12 * 24 * time.Hour)
	acct, err := e.svc.Settings.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	day := contracts.NewLearnerDay(acct)
	weekendShare := func() float64 {
		t.Helper()
		p, err := e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{DeckID: d.ID, Days: 90})
		if err != nil {
			t.Fatal(err)
		}
		weekend, all := 0, 0
		for _, f := range p.Forecast[14:] { // after the cards' first due dates, set before the easy days
			date, err := time.Parse(time.DateOnly, f.Date)
			if err != nil {
				t.Fatal(err)
			}
			if w := date.Weekday(); w == time.Saturday || w == time.Sunday {
				weekend += f.Due
			}
			all += f.Due
		}
		if all == 0 {
			t.Fatal("the plan forecasts no reviews")
		}
		return float64(weekend) / float64(all)
	}
	before := weekendShare()

	for _, bad := range [][]float64{{1, 1, 1}, {1, 1, 1, 1, 1, 2, 1}, {1, 1, 1, 1, 1, -0.5, 1}} {
		_, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, EasyDays: bad})
		wantKind(t, err, contracts.KindInvalid)
	}
	weekends := []float64{1, 1, 1, 1, 1, 0, 0}
	up, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, EasyDays: weekends})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := e.svc.Decks.GetDeck(ctx, d.ID); err != nil || !slices.Equal(got.Settings.EasyDays, weekends) || !slices.Equal(up.Settings.EasyDays, weekends) {
		t.Fatalf("easy days read back as %v and %v (%v)", got.Settings.EasyDays, up.Settings.EasyDays, err)
	}
	after := weekendShare()
	t.Logf("weekends' share of the forecast's review cards (days 14-89): %.3f without easy days, %.3f with weekends at 0", before, after)
	if after > before/2 {
		t.Errorf("with weekends at 0 the plan gives weekends %.3f of the reviews, %.3f before: want under half", after, before)
	}

	now := e.clock.Now()
	if _, err := e.svc.Study.RescheduleCards(ctx, contracts.RescheduleCardsArgs{CardIDs: targets, DueDate: day.DateString(now)}); err != nil {
		t.Fatal(err)
	}
	s := e.start(ctx, d.ID, nil, nil)
	landed := map[time.Weekday]int{}
	for n := 0; s.Current != nil; n++ {
		if n > 400 {
			t.Fatal("the session never ends")
		}
		e.clock.Advance(time.Second)
		res := e.review(ctx, s.ID, s.Current.CardID, contracts.RatingGood)
		if slices.Contains(targets, res.CardID) && res.State.Phase == contracts.PhaseReview && res.State.ScheduledDays >= 20 {
			landed[day.Date(res.NextDue).Weekday()]++
		}
		s.Current = res.Next
	}
	t.Logf("targets' due weekdays: %v", landed)
	if landed[time.Saturday]+landed[time.Sunday] > 0 {
		t.Errorf("with weekends at 0, targets landed on weekends: %v", landed)
	}
	total := 0
	for _, n := range landed {
		total += n
	}
	if total < 20 {
		t.Errorf("%d targets got a long interval, want the 20", total)
	}
	// All ones is no easy days.
	if up, err = e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, EasyDays: contracts.NormalDays}); err != nil || up.Settings.EasyDays != nil {
		t.Errorf("normal days read back as %v (%v), want none", up.Settings.EasyDays, err)
	}
	// undo_changes puts the options back: normal days, rescheduling off.
	const op = "01900000-0000-7000-8000-00000000e001"
	if _, err := e.svc.Decks.UpdateDeck(contracts.WithOperationID(ctx, op), contracts.UpdateDeckArgs{DeckID: d.ID, EasyDays: weekends, RescheduleOnChange: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Minute)
	if res, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{op}}); err != nil || res.Undone != 1 {
		t.Fatalf("undo: %+v, %v", res, err)
	}
	if got, err := e.svc.Decks.GetDeck(ctx, d.ID); err != nil || got.Settings.EasyDays != nil || got.Settings.RescheduleOnChange {
		t.Errorf("after the undo: easy days %v, reschedule %v (%v); want none and off", got.Settings.EasyDays, got.Settings.RescheduleOnChange, err)
	}
	// A deck restored from the trash keeps them, though its own preset was
	// deleted with it.
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, EasyDays: weekends, RescheduleOnChange: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Decks.DeleteDeck(ctx, contracts.DeleteDeckArgs{DeckID: d.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Trash.RestoreItems(ctx, contracts.RestoreItemsArgs{DeckIDs: []string{d.ID}}); err != nil {
		t.Fatal(err)
	}
	if got, err := e.svc.Decks.GetDeck(ctx, d.ID); err != nil || !slices.Equal(got.Settings.EasyDays, weekends) || !got.Settings.RescheduleOnChange {
		t.Errorf("after the trash: easy days %v, reschedule %v (%v)", got.Settings.EasyDays, got.Settings.RescheduleOnChange, err)
	}
}

// TestRescheduleOnChange (issue 28 §1): with the preset's "reschedule
// cards on change" on, new weights also move each review card's due date
// to the interval of its recomputed stability, counted from its last
// review: every moved card's interval lies in the fuzz range of that
// interval (or the card is due today, its new interval having passed),
// and its due date is that many days after its last review. Off (the
// default, TestMemoryFollowsWeights), due dates stay.
func TestRescheduleOnChange(t *testing.T) { eachStore(t, testRescheduleOnChange) }

func testRescheduleOnChange(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Move", NewCardsPerDay: ptr(10)})
	if err != nil {
		t.Fatal(err)
	}
	e.add(ctx, d.ID, manyCards("c", 30)...)
	ratings := []contracts.Rating{contracts.RatingGood, contracts.RatingGood, contracts.RatingAgain, contracts.RatingHard, contracts.RatingEasy, contracts.RatingGood}
	k := 0
	for range 60 {
		s := e.start(ctx, d.ID, nil, nil)
		for n := 0; n < 40 && s.Current != nil; n++ {
			e.clock.Advance(20 * time.Second)
			res := e.review(ctx, s.ID, s.Current.CardID, ratings[k%len(ratings)])
			k++
			s.Current = res.Next
		}
		e.clock.Advance(24 * time.Hour)
	}
	runner := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "r1", Lease: time.Minute})
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, RescheduleOnChange: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if ran, err := runner.RunOnce(context.Background()); ran || err != nil {
		t.Errorf("turning the option on queued a job (%v)", err)
	}
	before := map[string]contracts.CardState{}
	page, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: d.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range page.Items {
		before[c.ID] = c.State
	}
	weights := append([]float64{}, contracts.DefaultWeights...)
	weights[0], weights[1], weights[2], weights[3] = 0.6, 1.8, 3.9, 12.5
	weights[8], weights[10] = 2.4, 1.3 // stability grows faster after a recall
	up, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, Weights: weights})
	if err != nil {
		t.Fatal(err)
	}
	if !up.Settings.RescheduleOnChange {
		t.Fatal("the option does not read back")
	}
	if ran, err := runner.RunOnce(context.Background()); !ran || err != nil {
		t.Fatalf("new weights queued no job: %v, %v", ran, err)
	}
	acct, err := e.svc.Settings.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	day := contracts.NewLearnerDay(acct)
	now := e.clock.Now()
	bound, err := fsrs.New().Bind(up.Settings)
	if err != nil {
		t.Fatal(err)
	}
	page, err = e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: d.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	moved, reviewCards := 0, 0
	for _, c := range page.Items {
		st := c.State
		if st.Phase != contracts.PhaseReview || st.LastReview == nil {
			continue
		}
		reviewCards++
		if !st.Due.Equal(before[c.ID].Due) {
			moved++
		}
		lo, hi := 0, 0
		if _, ok := bound.(*fsrs.Preset).Rescheduled(st, day, now, func(l, h int) int { lo, hi = l, h; return l }); !ok {
			t.Fatalf("card %s cannot be rescheduled: %+v", c.ID, st)
		}
		last := day.Date(*st.LastReview)
		if got := day.DaysBetween(*st.LastReview, st.Due); got != st.ScheduledDays || !st.Due.Equal(day.StartOfDate(last.AddDate(0, 0, got))) {
			t.Errorf("card %s: due %v is %d days after its last review %v, its interval says %d", c.ID, st.Due, got, *st.LastReview, st.ScheduledDays)
		}
		today := day.Date(now)
		if hi > 0 && (st.ScheduledDays < lo || st.ScheduledDays > hi) && !day.Date(st.Due).Equal(today) {
			t.Errorf("card %s: interval %d days outside the new stability's fuzz range %d-%d (S %.3f)", c.ID, st.ScheduledDays, lo, hi, st.Stability)
		}
	}
	t.Logf("%s: %d of %d review cards moved", store, moved, reviewCards)
	if reviewCards < 15 || moved < reviewCards/2 {
		t.Errorf("%d of %d review cards moved: the new weights should move most", moved, reviewCards)
	}
}
