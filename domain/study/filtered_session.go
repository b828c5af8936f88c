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
// (ok false for any other deck): filteredCards' ids.
func (s *StudyService) filteredQueue(ctx context.Context, tx ports.Stores, row *ports.StudySessionRow, deck contracts.Deck,
	args contracts.StartStudySessionArgs, now time.Time) (queue []string, ok bool, err error) {
	cards, ok, err := s.filteredCards(ctx, tx, row, deck, args, now)
	return cardIDs(cards), ok, err
}

// filteredCards lists a session's cards when deck is a filtered deck (ok
// false for any other deck): every card it holds, as a cram session
// takes a deck's (reviewLimit and newLimit default to all), and sets
// row's mode: cram unless the deck reschedules and cram was not asked.
// It is the one rule of what a filtered deck's session serves: the
// session's queue and the snapshot (filteredSnapshot) both use it.
func (s *StudyService) filteredCards(ctx context.Context, tx ports.Stores, row *ports.StudySessionRow, deck contracts.Deck,
	args contracts.StartStudySessionArgs, now time.Time) (cards []ports.CardRow, ok bool, err error) {
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
	cards, err = s.cramCards(ctx, tx, *row, deck, args, now)
	return cards, true, err
}

// filteredSnapshot fills out's counts and preview when deck is a filtered
// deck (ok false, out untouched, for any other deck): what a session of
// it started now serves, every card it holds outside the daily limits
// (filteredCards): DueToday its learning and review cards, DueNow and
// Overdue those due by now and before today, NewToday its new cards, the
// preview its first cards in the session's order.
func (s *StudyService) filteredSnapshot(ctx context.Context, tx ports.Stores, uid string, deck contracts.Deck, startOfToday, now time.Time,
	out *contracts.StudySnapshot) (ok bool, err error) {
	row := ports.StudySessionRow{UserID: uid, DeckID: deck.ID}
	cards, ok, err := s.filteredCards(ctx, tx, &row, deck, contracts.StartStudySessionArgs{DeckID: deck.ID}, now)
	if err != nil || !ok {
		return false, err
	}
	for _, c := range cards {
		if c.State.Phase == contracts.PhaseNew {
			out.NewToday++
			continue
		}
		out.DueToday++
		if !c.State.Due.After(now) {
			out.DueNow++
		}
		if c.State.Due.Before(startOfToday) {
			out.Overdue++
		}
	}
	for i, c := range cards[:min(len(cards), previewSize)] {
		sc := studyCard(c.Card)
		sc.Back = ""
		sc.Position = i
		out.Preview = append(out.Preview, sc)
	}
	return true, nil
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
