package study

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// PreviewRatings reports, for each of the four ratings in order, the
// schedule that rating of the card waiting in the session would give if it
// were submitted now: the same scheduler call, deck settings and learner's
// day SubmitReview uses, so a rating given at this moment produces exactly
// the previewed interval. It writes nothing. A cram session's ratings
// change no schedule, so it previews none (an empty list).
func (s *StudyService) PreviewRatings(ctx context.Context, sessionID, cardID string) ([]contracts.RatingPreview, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return nil, err
	}
	var out []contracts.RatingPreview
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		now := s.Now()
		sess, err := s.liveSession(ctx, tx, uid, sessionID)
		if err != nil {
			return err
		}
		switch _, err := pendingItem(ctx, tx.Sessions(), uid, sess.ID, cardID); {
		case contracts.IsKind(err, contracts.KindNotFound):
			return s.notWaiting(ctx, tx, sess, cardID)
		case err != nil:
			return kernel.Fail(err)
		}
		out = []contracts.RatingPreview{}
		if sess.Mode == modeCram {
			return nil
		}
		rows, err := tx.Cards().GetCards(ctx, uid, []string{cardID})
		if err != nil {
			return kernel.Fail(err)
		}
		if len(rows) == 0 {
			return contracts.Errorf(contracts.KindNotFound, "card %s no longer exists; get the session for the current card", cardID)
		}
		card := rows[0]
		deck, err := library.LoadDeck(ctx, tx, uid, card.DeckID)
		if err != nil {
			return err
		}
		_, day, err := kernel.AccountSettings(ctx, tx, uid)
		if err != nil {
			return err
		}
		out, err = s.previews(ctx, tx, uid, card.Card, deck, day, now)
		return err
	})
	return out, err
}

// previews is what each rating of card would schedule at now: the
// scheduler call SubmitReview makes (balanced against the deck's load, one
// read for the four), with the card's deck settings and the learner's day.
func (s *StudyService) previews(ctx context.Context, tx ports.Stores, uid string, card contracts.Card, deck contracts.Deck, day contracts.LearnerDay, now time.Time) ([]contracts.RatingPreview, error) {
	states, err := balancedReviews(ctx, tx, s.Sched, uid, card, deck, day, now, contracts.Ratings...)
	if err != nil {
		return nil, err
	}
	out := make([]contracts.RatingPreview, 0, len(contracts.Ratings))
	for i, r := range contracts.Ratings {
		out = append(out, contracts.RatingPreview{Rating: r, NextDue: states[i].Due, IntervalHuman: HumanInterval(states[i], now)})
	}
	return out, nil
}
