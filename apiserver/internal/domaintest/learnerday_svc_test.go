package domain_test

import (
	"context"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// The learner's day in sessions, limits and stats, with an injected clock
// across timezones (UTC-10, UTC+5:30, UTC+14, New York across a DST change).

func (e *env) setDay(ctx context.Context, tz string, rollover int) {
	e.t.Helper()
	if _, err := e.svc.Settings.UpdateSettings(ctx, contracts.UpdateSettingsArgs{Timezone: &tz, RolloverHour: &rollover}); err != nil {
		e.t.Fatal(err)
	}
}

// studyAll rates every card a session shows, advancing the clock a
// second per review, and returns how many it rated.
func (e *env) studyAll(ctx context.Context, s contracts.StudySession, r contracts.Rating) int {
	e.t.Helper()
	n := 0
	for cur := s.Current; cur != nil; n++ {
		if n > 500 {
			e.t.Fatal("the session never ends")
		}
		e.clock.Advance(time.Second)
		cur = e.review(ctx, s.ID, cur.CardID, r).Next
	}
	return n
}

// graduate turns n new cards into review cards due on the learner's next
// day (maximum interval 1) and returns the deck.
func (e *env) graduated(ctx context.Context, name string, n int, set contracts.CreateDeckArgs) contracts.Deck {
	e.t.Helper()
	set.Name, set.MaximumIntervalDays, set.NewCardsPerDay = name, ptr(1), ptr(n)
	d, err := e.svc.Decks.CreateDeck(ctx, set)
	if err != nil {
		e.t.Fatal(err)
	}
	e.add(ctx, d.ID, manyCards(name, n)...)
	if got := e.studyAll(ctx, e.start(ctx, d.ID, nil, nil), contracts.RatingEasy); got != n {
		e.t.Fatalf("graduating: rated %d of %d", got, n)
	}
	return d
}

// The first finding: with newCardsPerDay=2, studying at 23:50Z and
// again at 00:05Z gave 2 + 2 new cards, though both are the same evening
// in New York. Now the second session gets none; the next New York day
// (from 04:00 local, 08:00Z in March after the DST change) gets 2 again.
func TestNewLimitFollowsTheLearnersDay(t *testing.T) { eachStore(t, testNewLimitFollowsTheLearnersDay) }

func testNewLimitFollowsTheLearnersDay(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	e.setDay(ctx, "America/New_York", 4)
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "NY", NewCardsPerDay: ptr(2)})
	if err != nil {
		t.Fatal(err)
	}
	e.add(ctx, d.ID, manyCards("ny", 10)...)
	e.clock.Set(time.Date(2026, 3, 10, 23, 50, 0, 0, time.UTC))
	if n := e.studyAll(ctx, e.start(ctx, d.ID, ptr(2), ptr(0)), contracts.RatingEasy); n != 2 {
		t.Fatalf("23:50Z: studied %d new cards, want 2", n)
	}
	e.clock.Set(time.Date(2026, 3, 11, 0, 5, 0, 0, time.UTC))
	if s := e.start(ctx, d.ID, nil, nil); s.Remaining != 0 || !s.Done {
		t.Errorf("00:05Z, the same New York evening: %d cards, want none", s.Remaining)
	}
	e.clock.Set(time.Date(2026, 3, 11, 7, 59, 0, 0, time.UTC)) // 03:59 EDT
	if s := e.start(ctx, d.ID, nil, nil); s.Remaining != 0 {
		t.Errorf("03:59 local: %d cards, want none before the rollover", s.Remaining)
	}
	e.clock.Set(time.Date(2026, 3, 11, 8, 0, 0, 0, time.UTC)) // 04:00 EDT
	if s := e.start(ctx, d.ID, nil, nil); s.Remaining != 2 {
		t.Errorf("04:00 local: %d cards, want 2 new", s.Remaining)
	}
	// Stats count both evening sessions on the New York date 2026-03-10.
	st, err := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{Days: 2})
	if err != nil {
		t.Fatal(err)
	}
	if st.ReviewsPerDay[0].Date != "2026-03-10" || st.ReviewsPerDay[0].Reviews != 2 || st.ReviewsPerDay[1].Reviews != 0 {
		t.Errorf("stats days = %+v, want 2 reviews on 2026-03-10 (New York)", st.ReviewsPerDay)
	}
}

// Kolkata (UTC+5:30) and Kiritimati (UTC+14): the day rolls over at the
// local rollover hour, not at 00:00Z.
func TestRolloverAcrossTimezones(t *testing.T) { eachStore(t, testRolloverAcrossTimezones) }

func testRolloverAcrossTimezones(t *testing.T, store string) {
	for _, c := range []struct {
		tz             string
		before, after  time.Time // just before and after the local rollover (04:00)
		beforeDate     string
		afterDateLater bool
	}{
		{"Asia/Kolkata", time.Date(2026, 3, 10, 22, 29, 0, 0, time.UTC), time.Date(2026, 3, 10, 22, 31, 0, 0, time.UTC), "2026-03-10", true},
		{"Pacific/Kiritimati", time.Date(2026, 3, 10, 13, 59, 0, 0, time.UTC), time.Date(2026, 3, 10, 14, 1, 0, 0, time.UTC), "2026-03-10", true},
		{"Pacific/Honolulu", time.Date(2026, 3, 10, 13, 59, 0, 0, time.UTC), time.Date(2026, 3, 10, 14, 1, 0, 0, time.UTC), "2026-03-09", true},
	} {
		t.Run(c.tz, func(t *testing.T) {
			e := newEnv(t, store)
			ctx := e.user("ada@example.com")
			e.setDay(ctx, c.tz, 4)
			d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "TZ", NewCardsPerDay: ptr(1)})
			if err != nil {
				t.Fatal(err)
			}
			e.add(ctx, d.ID, manyCards("tz", 5)...)
			e.clock.Set(c.before.Add(-time.Hour))
			if n := e.studyAll(ctx, e.start(ctx, d.ID, nil, nil), contracts.RatingEasy); n != 1 {
				t.Fatalf("studied %d, want 1", n)
			}
			e.clock.Set(c.before)
			if s := e.start(ctx, d.ID, nil, nil); s.Remaining != 0 {
				t.Errorf("a minute before the local rollover: %d new cards, want 0", s.Remaining)
			}
			set, _ := e.svc.Settings.Settings(ctx)
			if set.Today != c.beforeDate {
				t.Errorf("today = %s, want %s", set.Today, c.beforeDate)
			}
			e.clock.Set(c.after)
			if s := e.start(ctx, d.ID, nil, nil); s.Remaining != 1 {
				t.Errorf("a minute after the local rollover: %d new cards, want 1", s.Remaining)
			}
		})
	}
}

// The second finding: a card graduated at 18:20Z with a 2-day
// interval was not due at 09:00Z on its due day. Due from the start of the
// due day (here Honolulu, where the day starts at 14:00Z), it is.
func TestReviewDueFromStartOfTheDueDay(t *testing.T) { eachStore(t, testReviewDueFromStartOfTheDueDay) }

func testReviewDueFromStartOfTheDueDay(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	e.setDay(ctx, "UTC", 4)
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Due", MaximumIntervalDays: ptr(2)})
	if err != nil {
		t.Fatal(err)
	}
	c := ids(e.add(ctx, d.ID, card("q", "a")))[0]
	e.clock.Set(time.Date(2026, 3, 10, 18, 20, 0, 0, time.UTC))
	s := e.start(ctx, d.ID, nil, nil)
	r := e.review(ctx, s.ID, c, contracts.RatingEasy)
	if r.State.ScheduledDays != 2 || r.IntervalHuman != "2d" {
		t.Fatalf("graduated with %d days (%s), want 2", r.State.ScheduledDays, r.IntervalHuman)
	}
	if want := time.Date(2026, 3, 12, 4, 0, 0, 0, time.UTC); !r.NextDue.Equal(want) {
		t.Errorf("due %v, want the start of the due day %v", r.NextDue, want)
	}
	e.clock.Set(time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC))
	if s := e.start(ctx, d.ID, nil, nil); s.Current == nil || s.Current.CardID != c {
		t.Errorf("09:00Z on its due day the card is not in the session: %+v", s)
	}
}

// reviewsPerDay holds per learner day across sessions; learning steps are
// outside it; new cards count against it (Anki's v3 scheduler).
func TestReviewLimitAcrossSessions(t *testing.T) { eachStore(t, testReviewLimitAcrossSessions) }

func testReviewLimitAcrossSessions(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	e.setDay(ctx, "Asia/Kolkata", 4)
	e.clock.Set(time.Date(2026, 3, 10, 6, 0, 0, 0, time.UTC))
	d := e.graduated(ctx, "Cap", 6, contracts.CreateDeckArgs{})
	e.add(ctx, d.ID, manyCards("fresh", 5)...)
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, ReviewsPerDay: ptr(3), NewCardsPerDay: ptr(5)}); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(time.Date(2026, 3, 11, 6, 0, 0, 0, time.UTC)) // the next Kolkata day: all 6 due
	// Two sessions opened before any review both take the 3 allowed; the
	// second sees what the first left when it gets there: nothing.
	a := e.start(ctx, d.ID, nil, nil)
	b := e.start(ctx, d.ID, nil, nil)
	if a.Remaining != 3 || b.Remaining != 3 {
		t.Fatalf("sessions hold %d and %d cards, want 3 reviews each and no new card (the review cap is used up)", a.Remaining, b.Remaining)
	}
	if n := e.studyAll(ctx, a, contracts.RatingGood); n != 3 {
		t.Fatalf("first session: %d reviews, want 3", n)
	}
	got, err := e.svc.Study.GetSession(ctx, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Current != nil || !got.Done {
		t.Errorf("second session after the cap was reached: %+v, want done", got)
	}
	if s := e.start(ctx, d.ID, nil, nil); s.Remaining != 0 {
		t.Errorf("a third session the same day: %d cards, want 0", s.Remaining)
	}
	// The next day: reviews 3 of the remaining due, and no room for new cards
	// until the review cap has room: 3 due + 0 new.
	e.clock.Set(time.Date(2026, 3, 12, 6, 0, 0, 0, time.UTC))
	s := e.start(ctx, d.ID, nil, nil)
	if s.Remaining != 3 {
		t.Errorf("next day: %d cards, want 3 reviews and no new card", s.Remaining)
	}
	// A lapse: the relearning step comes back even though the cap is used up.
	var lapsed string
	for i, cur := 0, s.Current; cur != nil; i++ {
		e.clock.Advance(time.Second)
		rating := contracts.RatingGood
		if i == 0 {
			rating, lapsed = contracts.RatingAgain, cur.CardID
		}
		r := e.review(ctx, s.ID, cur.CardID, rating)
		cur = r.Next
		if cur == nil && r.NextCardAt != nil {
			e.clock.Set(*r.NextCardAt)
			g, err := e.svc.Study.GetSession(ctx, s.ID)
			if err != nil {
				t.Fatal(err)
			}
			cur = g.Current
		}
		if i > 10 {
			t.Fatal("runaway session")
		}
	}
	log, _ := e.svc.Cards.GetCard(ctx, lapsed)
	if log.State.Phase != contracts.PhaseReview || log.State.Lapses != 1 {
		t.Errorf("the lapsed card did not finish relearning: %+v", log.State)
	}
	// The review cap also limits new cards: with reviewsPerDay 7, 3
	// reviews done and 3 still due, one of the 5 new cards allowed fits.
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, ReviewsPerDay: ptr(7)}); err != nil {
		t.Fatal(err)
	}
	s = e.start(ctx, d.ID, nil, nil)
	phases := map[contracts.Phase]int{}
	for cur := s.Current; cur != nil; {
		phases[cur.Phase]++
		e.clock.Advance(time.Second)
		cur = e.review(ctx, s.ID, cur.CardID, contracts.RatingEasy).Next
	}
	if phases[contracts.PhaseReview] != 3 || phases[contracts.PhaseNew] != 1 {
		t.Errorf("review cap 7 after 3 reviews: shown %v, want 3 reviews and 1 new card", phases)
	}
}

// A learning step comes back as soon as it is due, ahead of the queue,
// not after the rest of a 30-card session; a step beyond the learn-ahead
// limit makes the session wait (nextCardAt) instead of showing it early.
func TestIntradayLearning(t *testing.T) { eachStore(t, testIntradayLearning) }

func testIntradayLearning(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	e.setDay(ctx, "Pacific/Kiritimati", 4)
	e.clock.Set(time.Date(2026, 3, 10, 20, 0, 0, 0, time.UTC))
	d := e.graduated(ctx, "Intraday", 30, contracts.CreateDeckArgs{})
	e.clock.Set(time.Date(2026, 3, 11, 20, 0, 0, 0, time.UTC))
	s := e.start(ctx, d.ID, nil, nil)
	if s.Remaining != 30 {
		t.Fatalf("%d due, want 30", s.Remaining)
	}
	first := s.Current.CardID
	r := e.review(ctx, s.ID, first, contracts.RatingAgain) // relearning: back in 10 minutes
	if r.State.Phase != contracts.PhaseRelearning {
		t.Fatalf("again: %+v", r.State)
	}
	due := r.NextDue
	cur := r.Next
	for i := 0; ; i++ {
		if cur == nil || i > 40 {
			t.Fatal("the relearning step never came back")
		}
		if cur.CardID == first {
			if now := e.clock.Now(); now.Before(due) || now.Sub(due) > time.Minute {
				t.Errorf("the 10-minute step came back at %v, due %v", now, due)
			}
			break
		}
		e.clock.Advance(time.Minute)
		cur = e.review(ctx, s.ID, cur.CardID, contracts.RatingGood).Next
	}
	// Finish everything but the step, then: with the step due in 10
	// minutes (beyond the 20-minute learn-ahead? no: within it) it shows
	// early; with learn-ahead 0 the session waits and says until when.
	r = e.review(ctx, s.ID, first, contracts.RatingAgain)
	for cur = r.Next; cur != nil && cur.CardID != first; {
		e.clock.Advance(time.Second)
		cur = e.review(ctx, s.ID, cur.CardID, contracts.RatingGood).Next
	}
	if cur == nil || cur.CardID != first {
		t.Fatalf("with nothing else left, the step due within learn-ahead did not show: %+v", cur)
	}
	if _, err := e.svc.Settings.UpdateSettings(ctx, contracts.UpdateSettingsArgs{LearnAheadMinutes: ptr(0)}); err != nil {
		t.Fatal(err)
	}
	g, err := e.svc.Study.GetSession(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if g.Current != nil || g.Done || g.NextCardAt == nil || g.Remaining != 1 {
		t.Fatalf("learn-ahead 0, step not due: %+v; want waiting with nextCardAt", g)
	}
	e.clock.Set(*g.NextCardAt)
	if g, _ = e.svc.Study.GetSession(ctx, s.ID); g.Current == nil || g.Current.CardID != first {
		t.Errorf("at nextCardAt the step shows: %+v", g)
	}
}

// Cram reviews change no schedule and no daily count; reviewAheadDays
// brings cards due in the next days; a deck's own steps and order apply.
func TestCramReviewAheadAndDeckSettings(t *testing.T) {
	eachStore(t, testCramReviewAheadAndDeckSettings)
}

func testCramReviewAheadAndDeckSettings(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	e.setDay(ctx, "America/New_York", 4)
	e.clock.Set(time.Date(2026, 3, 7, 15, 0, 0, 0, time.UTC)) // the day before New York springs forward
	d := e.graduated(ctx, "Cram", 3, contracts.CreateDeckArgs{})
	upd, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, MaximumIntervalDays: ptr(5),
		LearningSteps: []float64{2, 15}, RelearningSteps: []float64{5}, ReviewOrder: "retrievability", NewOrder: "random"})
	if err != nil {
		t.Fatal(err)
	}
	if upd.Settings.ReviewOrder != "retrievability" || len(upd.Settings.Weights) != 21 || upd.Settings.RelearningSteps[0] != 5 {
		t.Errorf("updated settings = %+v", upd.Settings)
	}
	for _, bad := range []contracts.UpdateDeckArgs{
		{DeckID: d.ID, Weights: []float64{1, 2}},
		{DeckID: d.ID, LearningSteps: []float64{0.5}},
		{DeckID: d.ID, ReviewOrder: "alphabetical"},
		{DeckID: d.ID, NewOrder: "hardest"},
	} {
		_, err := e.svc.Decks.UpdateDeck(ctx, bad)
		wantKind(t, err, contracts.KindInvalid)
	}
	before := map[string]contracts.CardState{}
	page, _ := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: d.ID})
	for _, c := range page.Items {
		before[c.ID] = c.State
	}
	// Nothing is due today (due tomorrow, 2026-03-08 04:00 EDT = 08:00Z).
	if s := e.start(ctx, d.ID, nil, nil); s.Remaining != 0 {
		t.Fatalf("%d due today, want 0", s.Remaining)
	}
	e.clock.Advance(time.Minute)
	cram, err := e.svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: d.ID, Cram: true})
	if err != nil {
		t.Fatal(err)
	}
	if cram.Mode != "cram" || cram.Remaining != 3 {
		t.Fatalf("cram session = %+v", cram)
	}
	n := 0
	for cur := cram.Current; cur != nil; n++ {
		rating := contracts.RatingGood
		if n == 0 {
			rating = contracts.RatingAgain // comes back at the end
		}
		e.clock.Advance(time.Second)
		r := e.review(ctx, cram.ID, cur.CardID, rating)
		if st := before[cur.CardID]; r.State.Due != st.Due || r.State.Stability != st.Stability || r.State.Reps != st.Reps {
			t.Errorf("cram changed the schedule: %+v, was %+v", r.State, st)
		}
		cur = r.Next
	}
	if n != 4 {
		t.Errorf("cram showed %d cards, want 3 and the forgotten one again", n)
	}
	st, _ := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{DeckID: d.ID, Days: 1})
	if st.TrueRetention != nil || st.YoungReviews != 0 {
		t.Errorf("cram reviews fed retention: %+v", st)
	}
	// Reviewing ahead one day takes tomorrow's cards, scheduled as FSRS does for an early review.
	ahead, err := e.svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: d.ID, ReviewAheadDays: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ahead.Remaining != 3 {
		t.Fatalf("reviewing a day ahead: %d cards, want 3", ahead.Remaining)
	}
	cur := ahead.Current
	r := e.review(ctx, ahead.ID, cur.CardID, contracts.RatingAgain)
	if r.State.Phase != contracts.PhaseRelearning || r.NextDue.Sub(e.clock.Now()) != 5*time.Minute {
		t.Errorf("a lapse under relearning steps [5]: %+v due in %v", r.State.Phase, r.NextDue.Sub(e.clock.Now()))
	}
	_, err = e.svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: d.ID, ReviewAheadDays: 400})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: d.ID, ReviewAheadDays: 1, Cram: true})
	wantKind(t, err, contracts.KindInvalid)
}

// reschedule_cards: a due date in the learner's day, a range, keeping
// the interval, reset to new; manual log entries that stats skip.
func TestRescheduleCards(t *testing.T) { eachStore(t, testRescheduleCards) }

func testRescheduleCards(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	e.setDay(ctx, "Asia/Kolkata", 4)
	e.clock.Set(time.Date(2026, 3, 10, 6, 0, 0, 0, time.UTC))
	d := e.graduated(ctx, "Move", 3, contracts.CreateDeckArgs{})
	page, _ := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: d.ID})
	c := []string{page.Items[0].ID, page.Items[1].ID, page.Items[2].ID}
	fresh := ids(e.add(ctx, d.ID, card("new one", "x")))[0]
	before, _ := e.svc.Cards.GetCard(ctx, c[0])
	e.clock.Advance(time.Hour)

	res, err := e.svc.Study.RescheduleCards(ctx, contracts.RescheduleCardsArgs{CardIDs: []string{c[0], "nope", fresh, c[0]}, DueDate: "2026-03-20"})
	if err != nil {
		t.Fatal(err)
	}
	want := []contracts.OutcomeStatus{contracts.OutcomeUpdated, contracts.OutcomeNotFound, contracts.OutcomeInvalid, contracts.OutcomeDuplicate}
	for i, w := range want {
		if res.Items[i].Status != w {
			t.Errorf("item %d: %+v, want %s", i, res.Items[i], w)
		}
	}
	got, _ := e.svc.Cards.GetCard(ctx, c[0])
	// 2026-03-20 starts at 04:00 in Kolkata: 22:30Z on the 19th.
	if wantDue := time.Date(2026, 3, 19, 22, 30, 0, 0, time.UTC); !got.State.Due.Equal(wantDue) || got.State.ScheduledDays != 10 {
		t.Errorf("rescheduled: due %v, %d days; want %v and 10 days from the last review", got.State.Due, got.State.ScheduledDays, wantDue)
	}
	if got.State.Stability != before.State.Stability || got.State.Reps != before.State.Reps || !got.State.LastReview.Equal(*before.State.LastReview) {
		t.Errorf("the memory state changed: %+v, was %+v", got.State, before.State)
	}
	res, err = e.svc.Study.RescheduleCards(ctx, contracts.RescheduleCardsArgs{CardIDs: []string{c[1]}, Days: []int{3, 5}, KeepInterval: true})
	if err != nil || res.Items[0].Status != contracts.OutcomeUpdated {
		t.Fatalf("days: %+v, %v", res, err)
	}
	got, _ = e.svc.Cards.GetCard(ctx, c[1])
	day := contracts.NewLearnerDay(contracts.AccountSettings{Timezone: "Asia/Kolkata", RolloverHour: 4})
	if n := day.DaysBetween(e.clock.Now(), got.State.Due); n < 3 || n > 5 || got.State.ScheduledDays != 1 {
		t.Errorf("days [3,5] with keepInterval: due in %d days, interval %d; want 3-5 and the interval kept (1)", n, got.State.ScheduledDays)
	}
	res, err = e.svc.Study.RescheduleCards(ctx, contracts.RescheduleCardsArgs{CardIDs: []string{c[2]}, Reset: true})
	if err != nil || res.Items[0].Status != contracts.OutcomeUpdated {
		t.Fatalf("reset: %+v, %v", res, err)
	}
	if got, _ = e.svc.Cards.GetCard(ctx, c[2]); got.State.Phase != contracts.PhaseNew || got.State.Reps != 0 {
		t.Errorf("reset card: %+v", got.State)
	}
	// Manual entries are neither reviews nor new cards studied.
	st, _ := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{Days: 1})
	if st.TotalReviews != 3 {
		t.Errorf("stats count %d reviews today, want the 3 ratings only", st.TotalReviews)
	}
	for _, bad := range []contracts.RescheduleCardsArgs{
		{CardIDs: c, DueDate: "2026-03-01"},
		{CardIDs: c, DueDate: "20/03/2026"},
		{CardIDs: c, Days: []int{5, 3}},
		{CardIDs: c, Days: []int{1}},
		{CardIDs: c, DueDate: "2026-03-20", Reset: true},
		{CardIDs: c},
		{CardIDs: c, Reset: true, KeepInterval: true},
		{DueDate: "2026-03-20"},
	} {
		_, err := e.svc.Study.RescheduleCards(ctx, bad)
		wantKind(t, err, contracts.KindInvalid)
	}
}
