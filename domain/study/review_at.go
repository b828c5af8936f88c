package study

import (
	"context"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// SubmitQueuedReview rates a card as SubmitReview does, at the time the
// rating was given (ago before now) rather than when it arrives: a review
// the web app queued while offline and sends, in order, when back online.
// The schedule, the review log and the learner's day are those of that
// time. It is refused (invalid) for a negative age, one over
// contracts.MaxQueuedReviewAge or a time before its session started; a
// card reviewed at or after that time (by another session, the agent) is a
// conflict and nothing is applied. Naming the session's position makes a
// resend safe: the same rating of the same showing is answered with the
// first answer (Replayed) and applied once.
func (s *StudyService) SubmitQueuedReview(ctx context.Context, args contracts.SubmitReviewArgs, ago time.Duration) (contracts.ReviewResult, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.ReviewResult{}, err
	}
	if !slices.Contains(contracts.Ratings, args.Rating) {
		return contracts.ReviewResult{}, contracts.Errorf(contracts.KindInvalid, "rating must be one of again, hard, good, easy; got %q", args.Rating)
	}
	if args.DurationMs < 0 || args.DurationMs > maxDurationMs {
		return contracts.ReviewResult{}, contracts.Errorf(contracts.KindInvalid, "durationMs must be 0-%d, got %d", maxDurationMs, args.DurationMs)
	}
	switch {
	case ago < 0:
		return contracts.ReviewResult{}, contracts.Errorf(contracts.KindInvalid, "a queued review cannot be given in the future")
	case ago > contracts.MaxQueuedReviewAge:
		return contracts.ReviewResult{}, contracts.Errorf(contracts.KindInvalid, "the review was given more than %d days ago; it is not applied", int(contracts.MaxQueuedReviewAge/kernel.Day))
	}
	at := s.Now().Add(-ago)
	return s.submit(ctx, uid, args, &at)
}

// Upcoming lists the cards a session shows next, from its current card on
// (see ports.StudyService): the order NextDueCard takes them now, without
// the cards current would skip (suspended, buried, beyond what today's
// limits leave). A learning card re-queued by a rating is not in it yet.
func (s *StudyService) Upcoming(ctx context.Context, sessionID string, limit int) ([]contracts.StudyCard, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return nil, err
	}
	limit = min(max(limit, 0), contracts.MaxUpcomingCards)
	out := []contracts.StudyCard{}
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		row, err := s.liveSession(ctx, tx, uid, sessionID)
		if err != nil {
			return err
		}
		// The current card first, as the page shows it (current skips and
		// completes what it would not show).
		k := &known{}
		cur, _, err := s.current(ctx, tx, row, k)
		if err != nil || cur == nil {
			return err
		}
		now := s.Now()
		ahead := now.Add(time.Duration(k.acct.LearnAheadMinutes) * time.Minute)
		pending, err := tx.Sessions().PendingCards(ctx, uid, row.ID, now, ahead, 2*limit)
		if err != nil {
			return kernel.Fail(err)
		}
		var l left
		if !unlimited(row.Mode) {
			if err := k.loadDeck(ctx, tx, row); err != nil {
				return err
			}
			if k.left == nil {
				if l, err = dailyLeft(ctx, tx, uid, *k.tree, *k.acct, k.day, now); err != nil {
					return err
				}
			} else {
				l = *k.left
			}
		}
		out = append(out, *cur)
		seen := map[string]bool{cur.CardID: true}
		take(&l, k.card.DeckID, limitPhase(k.card.State, k.day, now), unlimited(row.Mode))
		for _, p := range pending {
			c := p.Card
			if len(out) >= limit || seen[c.ID] || c.Suspended || (row.Mode != modeCram && c.BuriedUntil != nil && now.Before(*c.BuriedUntil)) {
				continue
			}
			if !take(&l, c.DeckID, limitPhase(c.State, k.day, now), unlimited(row.Mode)) {
				continue
			}
			seen[c.ID] = true
			sc := studyCard(c.Card)
			sc.Position = p.Item.Position
			out = append(out, sc)
		}
		return nil
	})
	return out, err
}

// take counts a card of deckID against what today's limits leave (l,
// see left.take), reporting whether one was left; cram and phases other
// than new and review take none.
func take(l *left, deckID string, phase contracts.Phase, cram bool) bool {
	return cram || l.take(deckID, phase)
}
