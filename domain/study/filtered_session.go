package study

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// modeFiltered is a session of a filtered deck that reschedules (issue 28
// §4): its ratings schedule cards as at home (the home deck's preset and
// options, the review logged in the home deck), outside the daily limits.
const modeFiltered = "filtered"

// filteredQueue lists a session's cards when deck is a filtered deck
// (ok false for any other deck): every card it holds, as a cram session
// takes a deck's (reviewLimit and newLimit default to all), and sets
// row's mode: cram unless the deck reschedules and cram was not asked.
func (s *StudyService) filteredQueue(ctx context.Context, tx ports.Stores, row *ports.StudySessionRow, deck contracts.Deck,
	args contracts.StartStudySessionArgs, now time.Time) (queue []string, ok bool, err error) {
	f, err := tx.Filtered().Filtered(ctx, row.UserID, deck.ID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, kernel.Fail(err)
	}
	row.Mode = modeCram
	if f.Reschedule && !args.Cram {
		row.Mode = modeFiltered
	}
	all := contracts.MaxFilteredCards
	if args.ReviewLimit == nil {
		args.ReviewLimit = &all
	}
	if args.NewLimit == nil {
		args.NewLimit = &all
	}
	queue, err = s.cramQueue(ctx, tx, *row, deck, args, now)
	return queue, true, err
}

// homeDeck is the deck whose settings a rating of card uses in sess: its
// home deck when a rescheduling filtered deck holds it, else deck.
func homeDeck(ctx context.Context, tx ports.Stores, uid string, sess ports.StudySessionRow, card ports.CardRow, deck contracts.Deck) (contracts.Deck, error) {
	if sess.Mode != modeFiltered || card.HomeDeckID == "" {
		return deck, nil
	}
	home, err := tx.Decks().DeckWithoutCounts(ctx, uid, card.HomeDeckID)
	return home, kernel.Fail(err)
}

// unlimited reports whether a session of this mode shows cards outside
// the daily limits: cram and a rescheduling filtered deck's.
func unlimited(mode string) bool { return mode == modeCram || mode == modeFiltered }
