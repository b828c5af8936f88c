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
// deck with the decks below it (tree.go), or of every deck when deckID is
// "" (sessions of each deck below no other): review cards, learning
// cards and new cards (dayQueue's lists), within the account-wide caps. The
// plan's day 0 (the stats room) is this count. Not found for an unknown
// deck; otherwise errors are the store's.
func LeftToday(ctx context.Context, tx ports.Stores, uid, deckID string, now time.Time) (due, learning, fresh int, err error) {
	err = func() error {
		acct, day, err := kernel.AccountSettings(ctx, tx, uid)
		if err != nil {
			return err
		}
		// A deck's count holds the decks below it; every deck's is the
		// sum over the decks below no other.
		var trees []deckTree
		if deckID != "" {
			t, err := loadTree(ctx, tx, uid, deckID)
			if err != nil {
				return err
			}
			trees = []deckTree{t}
		} else {
			decks, err := AllDecks(ctx, tx, uid, now)
			if err != nil {
				return err
			}
			for _, r := range roots(decks) {
				trees = append(trees, newTree(r, decks))
			}
		}
		for _, t := range trees {
			q, err := dayQueue(ctx, tx, uid, t, acct, day, contracts.StartStudySessionArgs{}, now, "plan")
			if err != nil {
				return err
			}
			due, learning, fresh = due+len(q.review), learning+len(q.learning), fresh+len(q.fresh)
		}
		if deckID != "" || !accountCapped(acct) {
			return nil
		}
		all, err := tx.Reviews().StudiedSince(ctx, uid, "", day.Start(now))
		if err != nil {
			return kernel.Fail(err)
		}
		c := studied{all: all}
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
