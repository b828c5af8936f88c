package domain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

func (e *env) start(ctx context.Context, deckID string, newLimit, reviewLimit *int) contracts.StudySession {
	e.t.Helper()
	s, err := e.svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: deckID, NewLimit: newLimit, ReviewLimit: reviewLimit})
	if err != nil {
		e.t.Fatalf("start session: %v", err)
	}
	return s
}

func (e *env) review(ctx context.Context, sessionID, cardID string, r contracts.Rating) contracts.ReviewResult {
	e.t.Helper()
	res, err := e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: sessionID, CardID: cardID, Rating: r, DurationMs: 4000})
	if err != nil {
		e.t.Fatalf("review %s %s: %v", cardID, r, err)
	}
	return res
}

func ids(r contracts.BulkResult) []string {
	var out []string
	for _, it := range r.Items {
		out = append(out, it.ID)
	}
	return out
}

func TestSessionQueueOrder(t *testing.T) { eachStore(t, testSessionQueueOrder) }

func testSessionQueueOrder(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Order")
	// New cards after the reviews (TestNewMixAndTiebreak has the others).
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, NewMix: contracts.NewMixLast}); err != nil {
		t.Fatal(err)
	}
	cs := ids(e.add(ctx, d.ID, card("c0", "0"), card("c1", "1"), card("c2", "2"), card("c3", "3"), card("c4", "4")))

	s1 := e.start(ctx, d.ID, nil, nil)
	if s1.Remaining != 5 || s1.Current == nil || s1.Current.CardID != cs[0] || s1.Current.Back != "0" || s1.Current.Phase != contracts.PhaseNew {
		t.Fatalf("first session = %+v", s1)
	}
	if len(s1.ID) < 22 || s1.StudyURL != baseURL+"/study/"+s1.ID || !s1.ExpiresAt.Equal(t0.Add(contracts.SessionTTL)) {
		t.Errorf("handle %q, url %q, expires %v", s1.ID, s1.StudyURL, s1.ExpiresAt)
	}
	// Graduate c2, c0, c1 straight to the review phase, a day apart (a
	// session each day), so their due days differ: cards due on the same
	// day are served in the day's tiebreak order (TestNewMixAndTiebreak).
	sess := s1.ID
	for i, id := range []string{cs[2], cs[0], cs[1]} {
		if i > 0 {
			e.clock.Advance(24 * time.Hour)
			sess = e.start(ctx, d.ID, nil, nil).ID
		}
		r := e.review(ctx, sess, id, contracts.RatingEasy)
		if r.State.Phase != contracts.PhaseReview || !strings.HasSuffix(r.IntervalHuman, "d") {
			t.Fatalf("easy on a new card: %+v", r)
		}
	}
	due := map[string]time.Time{}
	for _, id := range cs[:3] {
		c, _ := e.svc.Cards.GetCard(ctx, id)
		due[id] = c.State.Due
	}

	e.clock.Advance(90 * 24 * time.Hour)
	s2 := e.start(ctx, d.ID, ptr(1), nil)
	if s2.Remaining != 4 {
		t.Fatalf("second session has %d cards, want 3 due + 1 new", s2.Remaining)
	}
	var got []string
	cur := s2.Current
	for cur != nil {
		got = append(got, cur.CardID)
		e.clock.Advance(time.Second)
		r := e.review(ctx, s2.ID, cur.CardID, contracts.RatingEasy)
		cur = r.Next
		if r.Done != (cur == nil) {
			t.Fatalf("done %v with next %v", r.Done, cur)
		}
	}
	// The three due cards, most overdue (earliest due) first, then the
	// oldest new card; equal due times may come in any order.
	if len(got) != 4 || got[3] != cs[3] || !sameSet(got[:3], cs[:3]) ||
		!slices.IsSortedFunc(got[:3], func(a, b string) int { return due[a].Compare(due[b]) }) {
		t.Errorf("queue order %v (due %v), want most overdue first then the new card %s", got, due, cs[3])
	}

	// A card suspended during a session is skipped.
	s4 := e.start(ctx, d.ID, ptr(2), ptr(0))
	if s4.Remaining != 1 || s4.Current.CardID != cs[4] {
		t.Fatalf("session of the last new card: %+v", s4)
	}
	e.svc.Cards.UpdateCards(ctx, contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: cs[4], Suspended: ptr(true)}}})
	if g, err := e.svc.Study.GetSession(ctx, s4.ID); err != nil || !g.Done || g.Current != nil {
		t.Errorf("after suspending the only card: %+v, %v", g, err)
	}

	// reviewLimit caps the due cards.
	e.clock.Advance(365 * 24 * time.Hour)
	s3 := e.start(ctx, d.ID, ptr(0), ptr(2))
	if s3.Remaining != 2 {
		t.Errorf("reviewLimit 2: %d cards", s3.Remaining)
	}
	_, err := e.svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: d.ID, NewLimit: ptr(-1)})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: "nope"})
	wantKind(t, err, contracts.KindNotFound)
}

func TestDailyNewLimitAndSnapshot(t *testing.T) { eachStore(t, testDailyNewLimitAndSnapshot) }

func testDailyNewLimitAndSnapshot(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Limits", NewCardsPerDay: ptr(3)})
	if err != nil {
		t.Fatal(err)
	}
	var cards []contracts.NewCard
	for i := range 10 {
		cards = append(cards, card(fmt.Sprintf("front %d", i), "back"))
	}
	cs := ids(e.add(ctx, d.ID, cards...))

	snap, err := e.svc.Study.Snapshot(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if snap.DueNow != 0 || snap.NewAvailable != 10 || snap.NewToday != 3 || snap.NextDue != nil || len(snap.Preview) != 3 {
		t.Fatalf("fresh snapshot = %+v", snap)
	}
	if snap.Preview[0].CardID != cs[0] || snap.Preview[0].Front != "front 0" || snap.Preview[0].Back != "" {
		t.Errorf("preview shows fronts only: %+v", snap.Preview[0])
	}
	if b, _ := json.Marshal(snap); strings.Contains(string(b), `"back"`) || strings.Contains(string(b), `"tags":[]`) {
		t.Errorf("the snapshot carries empty fields: %s", b)
	}

	s1 := e.start(ctx, d.ID, nil, nil)
	if s1.Remaining != 3 {
		t.Fatalf("session holds %d new cards, want the daily 3", s1.Remaining)
	}
	e.clock.Advance(time.Minute)
	e.review(ctx, s1.ID, cs[0], contracts.RatingEasy)
	e.clock.Advance(time.Minute)
	r := e.review(ctx, s1.ID, cs[1], contracts.RatingAgain) // learning: due in 1m
	if r.IntervalHuman != "1m" {
		t.Errorf("again on a new card: interval %q", r.IntervalHuman)
	}

	// A later session the same day gets the 1 new card left today, and
	// the learning card carried over (outside every cap). The step is due
	// in a minute, so the new card shows first.
	s2 := e.start(ctx, d.ID, nil, nil)
	if s2.Remaining != 2 || s2.Current.CardID != cs[2] {
		t.Errorf("same day: %d cards (current %+v); want the 1 new card left today and the learning card", s2.Remaining, s2.Current)
	}
	// With no new cards, the learning step (due within the learn-ahead
	// limit) shows early: nothing else is left.
	if s := e.start(ctx, d.ID, ptr(0), nil); s.Remaining != 1 || s.Done || s.Current == nil || s.Current.CardID != cs[1] {
		t.Errorf("newLimit 0 with a learning step due in a minute: %+v", s)
	}

	e.clock.Advance(2 * time.Minute) // the learning card is due
	snap, err = e.svc.Study.Snapshot(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if snap.DueNow != 1 || snap.Overdue != 0 || snap.NewToday != 1 || snap.NewAvailable != 8 || snap.NextDue == nil {
		t.Errorf("after two reviews: %+v", snap)
	}
	if len(snap.Preview) != 2 || snap.Preview[0].CardID != cs[1] || snap.Preview[0].Phase != contracts.PhaseLearning {
		t.Errorf("preview = %+v; want the due learning card, then one new", snap.Preview)
	}

	// 01:00Z the next morning is still today: the day rolls over at 04:00.
	e.clock.Set(t0.Add(24 * time.Hour).Truncate(24 * time.Hour).Add(time.Hour))
	if snap, _ = e.svc.Study.Snapshot(ctx, d.ID); snap.Overdue != 0 || snap.NewToday != 1 {
		t.Errorf("01:00Z, before the rollover: %+v", snap)
	}
	// Next day (after 04:00Z): the learning card is overdue (due before today) and 3 new are allowed again.
	e.clock.Set(t0.Add(24 * time.Hour).Truncate(24 * time.Hour).Add(5 * time.Hour))
	snap, _ = e.svc.Study.Snapshot(ctx, d.ID)
	if snap.Overdue != 1 || snap.NewToday != 3 {
		t.Errorf("next day: %+v", snap)
	}
	if s := e.start(ctx, d.ID, nil, nil); s.Remaining != 4 {
		t.Errorf("next day session: %d cards, want 1 due + 3 new", s.Remaining)
	}
}

func TestLearningStepsRequeue(t *testing.T) { eachStore(t, testLearningStepsRequeue) }

func testLearningStepsRequeue(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Steps")
	c := ids(e.add(ctx, d.ID, card("Haus", "house")))[0]
	s := e.start(ctx, d.ID, nil, nil)

	if s.Current == nil || s.Current.Position != 0 {
		t.Fatalf("the first card's position: %+v", s.Current)
	}
	first := s.Current.Position
	r := e.review(ctx, s.ID, c, contracts.RatingAgain)
	if r.Done || r.Next == nil || r.Next.CardID != c || r.Reviewed != 1 || r.Remaining != 1 || r.IntervalHuman != "1m" || r.State.Phase != contracts.PhaseLearning {
		t.Fatalf("again: %+v", r)
	}
	if r.Next.Position == first {
		t.Fatalf("the re-queued step has the rated position %d", first)
	}
	// A retry naming the rated showing, even once the step is due, never
	// rates the re-queued step: the same rating is answered as a replay of
	// the first answer, a different one is a conflict.
	e.clock.Advance(time.Minute)
	again, err := e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: c, Position: &first, Rating: contracts.RatingAgain})
	if err != nil || !again.Replayed || !again.NextDue.Equal(r.NextDue) || again.State.Reps != r.State.Reps || again.State.Phase != r.State.Phase || again.State.Stability != r.State.Stability || again.IntervalHuman != r.IntervalHuman ||
		again.Reviewed != 1 || again.Next == nil || again.Next.Position != r.Next.Position {
		t.Errorf("identical retry: %+v, %v; want the first answer %+v, replayed", again, err, r)
	}
	_, err = e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: c, Position: &first, Rating: contracts.RatingEasy})
	wantKind(t, err, contracts.KindConflict)
	if err != nil && !strings.Contains(err.Error(), "already rated again") {
		t.Errorf("retry message %q", err)
	}
	if got, _ := e.svc.Cards.GetCard(ctx, c); got.State.Reps != 1 {
		t.Fatalf("a retry was applied: reps %d", got.State.Reps)
	}
	e.clock.Advance(-time.Minute)
	if !r.NextDue.Equal(t0.Add(time.Minute)) {
		t.Errorf("next due %v", r.NextDue)
	}
	e.clock.Advance(time.Minute)
	r = e.review(ctx, s.ID, c, contracts.RatingGood)
	if r.Done || r.IntervalHuman != "10m" || r.Remaining != 1 || r.State.Step != 1 {
		t.Fatalf("good at step 0: %+v", r)
	}
	e.clock.Advance(10 * time.Minute)
	r = e.review(ctx, s.ID, c, contracts.RatingGood)
	if !r.Done || r.Next != nil || r.Reviewed != 3 || r.Remaining != 0 || r.State.Phase != contracts.PhaseReview || !strings.HasSuffix(r.IntervalHuman, "d") {
		t.Fatalf("good at the last step: %+v", r)
	}
	g, err := e.svc.Study.GetSession(ctx, s.ID)
	if err != nil || !g.Done || g.Reviewed != 3 {
		t.Errorf("GetSession after the last review: %+v, %v", g, err)
	}
	// A graduated card is no longer waiting.
	_, err = e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: c, Rating: contracts.RatingGood})
	wantKind(t, err, contracts.KindConflict)
	if !strings.Contains(err.Error(), "the session is finished") {
		t.Errorf("message %q", err)
	}
}

func TestSubmitReviewErrors(t *testing.T) { eachStore(t, testSubmitReviewErrors) }

func testSubmitReviewErrors(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Errors")
	cs := ids(e.add(ctx, d.ID, card("a", "1"), card("b", "2")))
	s := e.start(ctx, d.ID, ptr(1), nil)

	_, err := e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: cs[1], Rating: contracts.RatingGood})
	wantKind(t, err, contracts.KindConflict)
	if want := fmt.Sprintf("card %s is not waiting in this session; the current card is %s", cs[1], cs[0]); err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	_, err = e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: cs[0], Rating: "perfect"})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: "no-such-session", CardID: cs[0], Rating: contracts.RatingGood})
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: cs[0], Rating: contracts.RatingGood, DurationMs: -1})
	wantKind(t, err, contracts.KindInvalid)

	// Expired sessions are gone.
	e.clock.Advance(contracts.SessionTTL)
	_, err = e.svc.Study.GetSession(ctx, s.ID)
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: cs[0], Rating: contracts.RatingGood})
	wantKind(t, err, contracts.KindNotFound)
}

func TestConcurrentReviewsApplyOnce(t *testing.T) { eachStore(t, testConcurrentReviewsApplyOnce) }

func testConcurrentReviewsApplyOnce(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Race")
	c := ids(e.add(ctx, d.ID, card("race", "condition")))[0]
	s := e.start(ctx, d.ID, nil, nil)
	e.clock.Advance(time.Second)

	// "again" re-queues the card, so without the guard later requests would
	// each rate the re-queued step.
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: c, Rating: contracts.RatingAgain})
		}()
	}
	close(start)
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !contracts.IsKind(err, contracts.KindConflict):
			t.Errorf("error of kind %s: %v", contracts.KindOf(err), err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d of %d concurrent reviews succeeded, want exactly 1: %v", ok, n, errs)
	}
	got, _ := e.svc.Cards.GetCard(ctx, c)
	st, _ := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{DeckID: d.ID})
	if got.State.Reps != 1 || st.TotalReviews != 1 {
		t.Errorf("card reps %d, reviews logged %d; want 1 and 1", got.State.Reps, st.TotalReviews)
	}
	// Once the step is due, the card can be rated again.
	e.clock.Advance(time.Minute)
	if r := e.review(ctx, s.ID, c, contracts.RatingGood); r.State.Reps != 2 {
		t.Errorf("after the step: %+v", r)
	}
}
