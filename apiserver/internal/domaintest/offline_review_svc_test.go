package domain_test

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestSubmitQueuedReview: reviews queued offline (issue 31 §14) are applied at
// their original times: the review log, the card's last review and its
// schedule are those of the time given, in the order sent; a resend of
// the same showing is answered as first answered and applied once; a card
// reviewed since, a time before the session, in the future or older than
// a week is refused and changes nothing. Upcoming lists the cards a page
// may study offline, in the order the session serves them.
func TestSubmitQueuedReview(t *testing.T) { eachStore(t, testSubmitQueuedReview) }

func testSubmitQueuedReview(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Offline")
	ids(e.add(ctx, d.ID, card("a", "1"), card("b", "2"), card("c", "3"), card("d", "4"), card("e", "5")))
	s := e.start(ctx, d.ID, nil, nil)
	e.clock.Advance(time.Minute)

	up, err := e.svc.Study.Upcoming(ctx, s.ID, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(up) != 3 || up[0].CardID != s.Current.CardID || up[0].Position != s.Current.Position {
		t.Fatalf("upcoming %+v, want 3 cards from the current one %s", up, s.Current.CardID)
	}
	if all, err := e.svc.Study.Upcoming(ctx, s.ID, 100); err != nil || len(all) != 5 {
		t.Fatalf("upcoming all: %d cards, %v; want 5", len(all), err)
	}

	// Three ratings given 50, 40 and 30 seconds ago, sent now.
	now := e.clock.Now()
	times := []time.Time{now.Add(-50 * time.Second), now.Add(-40 * time.Second), now.Add(-30 * time.Second)}
	ratings := []contracts.Rating{contracts.RatingGood, contracts.RatingAgain, contracts.RatingEasy}
	args := make([]contracts.SubmitReviewArgs, 3)
	for i, c := range up {
		args[i] = contracts.SubmitReviewArgs{SessionID: s.ID, CardID: c.CardID, Position: ptr(c.Position), Rating: ratings[i], DurationMs: 3000}
		res, err := e.svc.Study.SubmitQueuedReview(ctx, args[i], now.Sub(times[i]))
		if err != nil || res.Replayed {
			t.Fatalf("queued review %d: %+v, %v", i, res, err)
		}
		if ratings[i] == contracts.RatingGood && !res.NextDue.After(times[i].Add(time.Minute)) {
			t.Errorf("review %d: next due %s, not scheduled from its time %s", i, res.NextDue, times[i])
		}
	}
	for i, c := range up {
		h, err := e.svc.Cards.CardHistory(ctx, c.CardID)
		if err != nil || len(h) != 1 {
			t.Fatalf("card %d history %+v, %v", i, h, err)
		}
		if !h[0].ReviewedAt.Equal(times[i]) || h[0].Rating != ratings[i] {
			t.Errorf("card %d: reviewed at %s %s, want %s %s", i, h[0].ReviewedAt, h[0].Rating, times[i], ratings[i])
		}
		got, err := e.svc.Cards.GetCard(ctx, c.CardID)
		if err != nil || got.State.LastReview == nil || !got.State.LastReview.Equal(times[i]) {
			t.Errorf("card %d's last review %v (%v), want %s", i, got.State.LastReview, err, times[i])
		}
	}

	// A resend (the page did not hear the answer) is applied once.
	res, err := e.svc.Study.SubmitQueuedReview(ctx, args[0], now.Sub(times[0]))
	if err != nil || !res.Replayed {
		t.Fatalf("resend: %+v, %v; want the first answer, replayed", res, err)
	}
	if h, _ := e.svc.Cards.CardHistory(ctx, up[0].CardID); len(h) != 1 {
		t.Errorf("after a resend the card has %d reviews", len(h))
	}

	// The fourth card is rated online after the queued rating was given:
	// the queued one conflicts and is not applied.
	rest, err := e.svc.Study.Upcoming(ctx, s.ID, 10)
	if err != nil || len(rest) < 2 {
		t.Fatalf("upcoming after three ratings: %+v, %v", rest, err)
	}
	var fourth contracts.StudyCard
	for _, c := range rest {
		if c.Phase != contracts.PhaseLearning {
			fourth = c
			break
		}
	}
	other := e.start(ctx, d.ID, nil, nil)
	if _, err := e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: other.ID, CardID: fourth.CardID, Rating: contracts.RatingGood}); err != nil {
		t.Fatal(err)
	}
	late := contracts.SubmitReviewArgs{SessionID: s.ID, CardID: fourth.CardID, Position: ptr(fourth.Position), Rating: contracts.RatingHard}
	_, err = e.svc.Study.SubmitQueuedReview(ctx, late, 20*time.Second)
	wantKind(t, err, contracts.KindConflict)
	if h, _ := e.svc.Cards.CardHistory(ctx, fourth.CardID); len(h) != 1 || h[0].Rating != contracts.RatingGood {
		t.Errorf("after the refused queued review the card's history is %+v", h)
	}

	// Out of bounds: before the session, in the future, too old.
	var fifth contracts.StudyCard
	for _, c := range rest {
		if c.CardID != fourth.CardID && c.Phase == contracts.PhaseNew {
			fifth = c
		}
	}
	a := contracts.SubmitReviewArgs{SessionID: s.ID, CardID: fifth.CardID, Position: ptr(fifth.Position), Rating: contracts.RatingGood}
	_, err = e.svc.Study.SubmitQueuedReview(ctx, a, e.clock.Now().Sub(s.StartedAt)+time.Second)
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Study.SubmitQueuedReview(ctx, a, -time.Minute)
	wantKind(t, err, contracts.KindInvalid)
	e.clock.Advance(contracts.SessionTTL - 2*time.Minute)
	_, err = e.svc.Study.SubmitQueuedReview(ctx, a, contracts.MaxQueuedReviewAge+time.Second)
	wantKind(t, err, contracts.KindInvalid)
	if h, _ := e.svc.Cards.CardHistory(ctx, fifth.CardID); len(h) != 0 {
		t.Errorf("refused queued reviews left %d reviews", len(h))
	}
	// Sent after its session expired: gone, nothing applied.
	e.clock.Advance(2 * time.Minute)
	_, err = e.svc.Study.SubmitQueuedReview(ctx, a, time.Hour)
	wantKind(t, err, contracts.KindNotFound)
	if h, _ := e.svc.Cards.CardHistory(ctx, fifth.CardID); len(h) != 0 {
		t.Errorf("a review sent after its session expired was applied")
	}
}
