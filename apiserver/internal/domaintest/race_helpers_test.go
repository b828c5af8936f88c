package domain_test

import (
	"context"
	"sync"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/fsrs"
)

// The race tests' helpers: sessions that show chosen cards, rated at the
// same moment.

// newRaceEnv is newEnv with the daily write quota and the holdings caps
// off: the quota's counter row would order concurrent reviews by chance.
func newRaceEnv(t testing.TB, store string) *env {
	t.Helper()
	e := newEnv(t, store)
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(),
		domain.Config{BaseURL: baseURL + "/", Limits: domain.Limits{DailyWrites: -1, MaxCards: -1}})
	return e
}

// startAround starts a session of deckID with cards buried meanwhile, so
// that it draws other cards than a session of the day would, and
// unburies them (every buried card of the account), checking that
// exactly they come back; it returns the session.
func (e *env) startAround(ctx context.Context, deckID string, cards []string) contracts.StudySession {
	e.t.Helper()
	if _, err := e.svc.Study.BuryCards(ctx, contracts.BuryCardsArgs{CardIDs: cards}); err != nil {
		e.t.Fatal(err)
	}
	s := e.start(ctx, deckID, nil, nil)
	if u, err := e.svc.Study.Unbury(ctx, contracts.UnburyArgs{}); err != nil || u.Unburied != len(cards) {
		e.t.Fatalf("unbury: %+v, %v; want %d", u, err, len(cards))
	}
	return s
}

// stillShown checks that each session still shows the card it showed
// when it started.
func (e *env) stillShown(ctx context.Context, sessions ...contracts.StudySession) {
	e.t.Helper()
	for i, s := range sessions {
		if g, err := e.svc.Study.GetSession(ctx, s.ID); err != nil || g.Current == nil || g.Current.CardID != s.Current.CardID {
			e.t.Fatalf("session %d now shows %+v (%v); want %s", i+1, g.Current, err, s.Current.CardID)
		}
	}
}

// rateAtOnce rates each session's current card good at the same moment
// and returns each rating's error, in the sessions' order.
func (e *env) rateAtOnce(ctx context.Context, sessions ...contracts.StudySession) []error {
	var wg sync.WaitGroup
	errs := make([]error, len(sessions))
	ready := make(chan struct{})
	for i, s := range sessions {
		wg.Go(func() {
			<-ready
			_, errs[i] = e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: s.Current.CardID, Rating: contracts.RatingGood})
		})
	}
	close(ready)
	wg.Wait()
	return errs
}
