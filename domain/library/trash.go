package library

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// The trash: delete_deck and delete_cards (and the web app's delete
// buttons) move decks and cards, with their review history, to the trash
// for contracts.TrashDays (ports.TrashStore keeps them out of every other
// read, count and cap); TrashService lists and restores them and
// PurgeExpired deletes them for good afterwards.

// Trash listing pages.
const (
	DefaultTrashPage = 50
	MaxTrashPage     = 200
)

// TrashService lists and restores the acting user's trash.
type TrashService struct{ *kernel.Deps }

// ListTrash returns a page of the trash, newest first.
func (s *TrashService) ListTrash(ctx context.Context, args contracts.ListTrashArgs) (contracts.TrashPage, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.TrashPage{}, err
	}
	limit, err := kernel.PageLimit(args.Limit, DefaultTrashPage, MaxTrashPage)
	if err != nil {
		return contracts.TrashPage{}, err
	}
	after, err := decodeTrashCursor(args.Cursor)
	if err != nil {
		return contracts.TrashPage{}, err
	}
	rows, err := s.Store.Trash().ListTrash(ctx, uid, after, limit+1)
	if err != nil {
		return contracts.TrashPage{}, kernel.Fail(err)
	}
	items := make([]contracts.TrashItem, len(rows))
	for i, r := range rows {
		items[i] = TrashItem(r)
	}
	return kernel.Page(items, limit, func(it contracts.TrashItem) string {
		return strconv.FormatInt(it.DeletedAt.UnixMilli(), 10) + "." + it.ID
	}), nil
}

// decodeTrashCursor reads a trash page's cursor: deletion time (unix ms)
// and id.
func decodeTrashCursor(c string) (*ports.TrashCursor, error) {
	raw, err := kernel.DecodeCursor(c)
	if err != nil || raw == "" {
		return nil, err
	}
	at, id, ok := strings.Cut(raw, ".")
	ms, perr := strconv.ParseInt(at, 10, 64)
	if !ok || perr != nil || id == "" {
		return nil, contracts.Errorf(contracts.KindInvalid, kernel.BadCursor)
	}
	return &ports.TrashCursor{DeletedAt: time.UnixMilli(ms).UTC(), ID: id}, nil
}

// TrashItem is the wire form of a trashed item.
func TrashItem(r ports.TrashItem) contracts.TrashItem {
	it := contracts.TrashItem{Kind: string(r.Kind), ID: r.ID, Name: r.Name, Cards: r.Cards,
		DeletedAt: r.DeletedAt, ExpiresAt: r.DeletedAt.Add(contracts.TrashTTL)}
	if r.Kind == ports.TrashCard {
		it.Front, it.DeckID, it.DeckInTrash = cut(r.Front, contracts.MaxTrashFrontLen), r.DeckID, r.DeckTrashed
	}
	return it
}

// cut shortens s to at most n characters, marking a cut with an ellipsis.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// RestoreItems brings decks, then cards, back from the trash in one
// transaction, each on its own: one that cannot come back (gone, its deck
// not live, a duplicate of a card added since, a deck name taken since, a
// cap) stays in the trash with a reason, and the others come back.
func (s *TrashService) RestoreItems(ctx context.Context, args contracts.RestoreItemsArgs) (contracts.RestoreResult, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.RestoreResult{}, err
	}
	n := len(args.DeckIDs) + len(args.CardIDs)
	if n == 0 {
		return contracts.RestoreResult{}, contracts.Errorf(contracts.KindInvalid, "name the decks (deckIds) or cards (cardIds) to restore; list_trash shows them")
	}
	if err := kernel.CheckBatch("deckIds and cardIds", n, contracts.MaxBulkItems); err != nil {
		return contracts.RestoreResult{}, err
	}
	var res contracts.RestoreResult
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		var ch kernel.Changes
		var err error
		if res, err = s.RestoreIn(ctx, tx, uid, args, &ch); err != nil {
			return err
		}
		return ch.Write(ctx, tx, s.Deps)
	})
	if err != nil {
		return contracts.RestoreResult{}, err
	}
	return res, nil
}

// RestoreIn restores the items inside tx exactly as restore_items does
// (the same checks, the same outcomes) and adds to ch a deck.add or
// card.add record for each item restored (a card's with its version), so
// undoing the restore moves them back to the trash: undo_changes brings
// deleted decks and cards back through it.
func (s *TrashService) RestoreIn(ctx context.Context, tx ports.Stores, uid string, args contracts.RestoreItemsArgs, ch *kernel.Changes) (contracts.RestoreResult, error) {
	r := restorer{s: s, tx: tx, uid: uid}
	res, err := r.run(ctx, args)
	if err != nil {
		return res, err
	}
	for _, out := range res.Decks {
		if out.Status == contracts.OutcomeRestored {
			ch.Add(contracts.ChangeDeckAdd, out.ID, 0, nil, nil)
		}
	}
	for _, out := range res.Cards {
		if out.Status == contracts.OutcomeRestored {
			// A restored card keeps the version it had in the trash.
			ch.Add(contracts.ChangeCardAdd, out.ID, r.items[string(ports.TrashCard)+":"+out.ID].Version, nil, nil)
		}
	}
	return res, nil
}

// restorer restores one call's items inside its transaction.
type restorer struct {
	s     *TrashService
	tx    ports.Stores
	uid   string
	decks int // decks the account holds
	cards int // cards the account holds
	items map[string]ports.TrashItem
}

func (r *restorer) run(ctx context.Context, args contracts.RestoreItemsArgs) (contracts.RestoreResult, error) {
	res := contracts.RestoreResult{Decks: []contracts.ItemOutcome{}, Cards: []contracts.ItemOutcome{}, Counts: map[string]int{}}
	var err error
	if r.decks, r.cards, err = r.tx.Usage().Holdings(ctx, r.uid); err != nil {
		return res, kernel.Fail(err)
	}
	var decks, cards []string
	for _, id := range args.DeckIDs {
		if kernel.PlausibleID(id) {
			decks = append(decks, id)
		}
	}
	for _, id := range args.CardIDs {
		if kernel.PlausibleID(id) {
			cards = append(cards, id)
		}
	}
	rows, err := r.tx.Trash().TrashedItems(ctx, r.uid, decks, cards)
	if err != nil {
		return res, kernel.Fail(err)
	}
	r.items = map[string]ports.TrashItem{}
	for _, it := range rows {
		r.items[string(it.Kind)+":"+it.ID] = it
	}
	for _, part := range []struct {
		ids  []string
		kind ports.TrashKind
		out  *[]contracts.ItemOutcome
	}{{args.DeckIDs, ports.TrashDeck, &res.Decks}, {args.CardIDs, ports.TrashCard, &res.Cards}} {
		first := map[string]int{}
		for i, id := range part.ids {
			out := contracts.ItemOutcome{Index: i, ID: id}
			if j, seen := first[id]; seen {
				out.Status, out.Reason = contracts.OutcomeDuplicate, fmt.Sprintf("the same id as item %d; each item is restored once", j)
			} else {
				first[id] = i
				if err := r.one(ctx, part.kind, id, &out); err != nil {
					return res, err
				}
			}
			*part.out = append(*part.out, out)
			res.Counts[string(out.Status)]++
		}
	}
	return res, nil
}

// one restores one item into out.
func (r *restorer) one(ctx context.Context, kind ports.TrashKind, id string, out *contracts.ItemOutcome) error {
	it, ok := r.items[string(kind)+":"+id]
	if !ok {
		out.Status, out.Reason = contracts.OutcomeNotFound, fmt.Sprintf("%s %s is not in the trash (never deleted, already restored, or purged %d days after deletion)", kind, kernel.QuoteID(id), contracts.TrashDays)
		return nil
	}
	if kind == ports.TrashDeck {
		return r.deck(ctx, it, out)
	}
	return r.card(ctx, it, out)
}

func (r *restorer) deck(ctx context.Context, it ports.TrashItem, out *contracts.ItemOutcome) error {
	if err := r.s.CheckDecks(r.decks, 1); err != nil {
		out.Status, out.Reason = contracts.OutcomeConflict, contracts.MessageOf(err)
		return nil
	}
	if err := r.s.CheckCards(r.cards, it.Cards); err != nil {
		out.Status, out.Reason = contracts.OutcomeConflict, contracts.MessageOf(err)
		return nil
	}
	n, err := r.tx.Trash().RestoreDeck(ctx, r.uid, it.ID)
	switch {
	case contracts.IsKind(err, contracts.KindConflict):
		out.Status, out.Reason = contracts.OutcomeConflict, fmt.Sprintf("a deck named %q exists now; rename that deck (update_deck) and restore again", it.Name)
		return nil
	case contracts.IsKind(err, contracts.KindNotFound):
		out.Status, out.Reason = contracts.OutcomeNotFound, fmt.Sprintf("deck %s is not in the trash", kernel.QuoteID(it.ID))
		return nil
	case err != nil:
		return kernel.Fail(err)
	}
	r.decks++
	r.cards += n
	out.Status = contracts.OutcomeRestored
	return nil
}

func (r *restorer) card(ctx context.Context, it ports.TrashItem, out *contracts.ItemOutcome) error {
	live, err := r.deckLive(ctx, it.DeckID)
	if err != nil {
		return err
	}
	if !live {
		out.Status = contracts.OutcomeConflict
		switch {
		case it.WithDeck != "":
			out.Reason = fmt.Sprintf("it went to the trash with its deck %s; restore that deck (deckIds) and the card comes back with it", kernel.QuoteID(it.DeckID))
		case it.DeckTrashed:
			out.Reason = fmt.Sprintf("its deck %s is in the trash; restore the deck (deckIds) first, then the card", kernel.QuoteID(it.DeckID))
		default:
			out.Reason = fmt.Sprintf("its deck %s no longer exists, so the card cannot come back", kernel.QuoteID(it.DeckID))
		}
		return nil
	}
	if err := r.s.CheckCards(r.cards, 1); err != nil {
		out.Status, out.Reason = contracts.OutcomeConflict, contracts.MessageOf(err)
		return nil
	}
	same, err := r.tx.Cards().HashesInDeck(ctx, r.uid, it.DeckID, []string{it.Hash})
	if err != nil {
		return kernel.Fail(err)
	}
	if existing := same[it.Hash]; existing != "" {
		out.Status, out.ExistingID = contracts.OutcomeDuplicate, existing
		out.Reason = fmt.Sprintf("card %s in its deck has the same front and back (added since); %s stays in the trash", existing, it.ID)
		return nil
	}
	err = r.tx.Trash().RestoreCard(ctx, r.uid, it.ID)
	switch {
	case contracts.IsKind(err, contracts.KindConflict):
		out.Status, out.Reason = contracts.OutcomeDuplicate, "a card with the same front and back is in its deck; it stays in the trash"
		return nil
	case contracts.IsKind(err, contracts.KindNotFound):
		out.Status, out.Reason = contracts.OutcomeNotFound, fmt.Sprintf("card %s or its deck is gone", kernel.QuoteID(it.ID))
		return nil
	case err != nil:
		return kernel.Fail(err)
	}
	r.cards++
	out.Status = contracts.OutcomeRestored
	return nil
}

// deckLive reports whether the user has the deck live.
func (r *restorer) deckLive(ctx context.Context, deckID string) (bool, error) {
	_, err := r.tx.Decks().DeckWithoutCounts(ctx, r.uid, deckID)
	switch {
	case contracts.IsKind(err, contracts.KindNotFound):
		return false, nil
	case err != nil:
		return false, kernel.Fail(err)
	}
	return true, nil
}

// PurgeExpired deletes, for good, up to limit trashed decks and cards
// deleted more than contracts.TrashDays ago, for the purge scheduler. It
// needs no principal.
func (s *TrashService) PurgeExpired(ctx context.Context, limit int) (int, error) {
	n, err := s.Store.Trash().PurgeTrash(ctx, s.Now().Add(-contracts.TrashTTL), limit)
	return n, kernel.Fail(err)
}
