package study

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// LeftToday counts what normal sessions started now would serve of a
// deck, or of every deck when deckID is "": review cards, learning cards
// and new cards (dayQueue's lists), within the account-wide caps. The
// plan's day 0 (the stats room) is this count. Not found for an unknown
// deck; otherwise errors are the store's.
func LeftToday(ctx context.Context, tx ports.Stores, uid, deckID string, now time.Time) (due, learning, fresh int, err error) {
	err = func() error {
		acct, day, err := kernel.AccountSettings(ctx, tx, uid)
		if err != nil {
			return err
		}
		var decks []contracts.Deck
		if deckID != "" {
			d, err := library.LoadDeck(ctx, tx, uid, deckID)
			if err != nil {
				return err
			}
			decks = []contracts.Deck{d}
		} else if decks, err = AllDecks(ctx, tx, uid, now); err != nil {
			return err
		}
		for _, d := range decks {
			q, err := dayQueue(ctx, tx, uid, d, acct, day, contracts.StartStudySessionArgs{}, now, "plan")
			if err != nil {
				return err
			}
			due, learning, fresh = due+len(q.review), learning+len(q.learning), fresh+len(q.fresh)
		}
		if deckID != "" || !accountCapped(acct) {
			return nil
		}
		c, err := studiedToday(ctx, tx, uid, "", acct, day, now)
		if err != nil {
			return err
		}
		if acct.NewCardsPerDay > 0 {
			fresh = max(0, min(fresh, acct.NewCardsPerDay-c.all.New))
		}
		if acct.ReviewsPerDay > 0 {
			left := max(0, acct.ReviewsPerDay-c.all.Review-c.all.New)
			due = min(due, left)
			fresh = min(fresh, left-due)
		}
		return nil
	}()
	return due, learning, fresh, err
}

// AllDecks lists every deck of the user, in id order. Errors are the
// store's.
func AllDecks(ctx context.Context, st ports.Stores, uid string, now time.Time) ([]contracts.Deck, error) {
	var out []contracts.Deck
	after := ""
	for {
		page, err := st.Decks().ListDecks(ctx, uid, after, library.MaxDeckPage, now)
		if err != nil {
			return nil, kernel.Fail(err)
		}
		out = append(out, page...)
		if len(page) < library.MaxDeckPage {
			return out, nil
		}
		after = page[len(page)-1].ID
	}
}
