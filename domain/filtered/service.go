package filtered

import (
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// randomPool bounds the cards a random order draws from.
const randomPool = 2000

// Service creates, rebuilds and empties filtered decks.
type Service struct{ *kernel.Deps }

var _ ports.FilteredDeckService = (*Service)(nil)

// FilteredDeck implements ports.FilteredDeckService.
func (s *Service) FilteredDeck(ctx context.Context, args contracts.FilteredDeckArgs) (contracts.FilteredDeck, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.FilteredDeck{}, err
	}
	switch args.Action {
	case contracts.FilteredCreate:
		return s.create(ctx, uid, args)
	case contracts.FilteredRebuild, contracts.FilteredEmpty:
	default:
		return contracts.FilteredDeck{}, contracts.Errorf(contracts.KindInvalid, "action must be create, rebuild or empty; got %q", args.Action)
	}
	if args.Action == contracts.FilteredEmpty && (args.Search != nil || args.Limit != nil || args.Order != "" || args.Reschedule != nil || args.Name != "") {
		return contracts.FilteredDeck{}, contracts.Errorf(contracts.KindInvalid, "empty takes only deckId; rebuild changes the search and options")
	}
	if args.Name != "" {
		return contracts.FilteredDeck{}, contracts.Errorf(contracts.KindInvalid, "rebuild keeps the deck's name; rename it with update_deck")
	}
	var out contracts.FilteredDeck
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		deck, row, err := loadFiltered(ctx, tx, uid, args.DeckID)
		if err != nil {
			return err
		}
		now := s.Now()
		returned, err := tx.Filtered().ReturnHome(ctx, uid, deck.ID, now)
		if err != nil {
			return kernel.Fail(err)
		}
		// Each card sent home is recorded (undone, it is gathered back),
		// then the search the rebuild replaces, then the cards gathered:
		// one INSERT for them all.
		var ch kernel.Changes
		for _, id := range slices.Sorted(maps.Keys(returned)) {
			ch.Add(contracts.ChangeCardReturn, id, returned[id], map[string]any{"deckId": deck.ID}, nil)
		}
		out = record(deck, row)
		out.Returned = len(returned)
		if args.Action == contracts.FilteredEmpty {
			return ch.Write(ctx, tx, s.Deps)
		}
		was := row
		if row, err = options(row, args); err != nil {
			return err
		}
		row.BuiltAt = now
		if err := tx.Filtered().SaveFiltered(ctx, uid, row); err != nil {
			return kernel.Fail(err)
		}
		ch.Add(contracts.ChangeFilteredUpdate, deck.ID, now.UnixMilli(), searchOf(was), searchOf(row))
		out = record(deck, row)
		out.Returned = len(returned)
		out.Gathered, err = s.gather(ctx, tx, uid, row, now, &ch)
		out.Cards = out.Gathered
		if err != nil {
			return err
		}
		return ch.Write(ctx, tx, s.Deps)
	})
	return out, err
}

// create makes a filtered deck and gathers its cards.
func (s *Service) create(ctx context.Context, uid string, args contracts.FilteredDeckArgs) (contracts.FilteredDeck, error) {
	if args.DeckID != "" {
		return contracts.FilteredDeck{}, contracts.Errorf(contracts.KindInvalid, "create makes a new deck: give name, not deckId")
	}
	name, err := library.CleanDeckName(args.Name)
	if err != nil {
		return contracts.FilteredDeck{}, err
	}
	row, err := options(ports.FilteredDeckRow{Limit: contracts.DefaultFilteredCards, Order: contracts.FilteredOrderDue}, args)
	if err != nil {
		return contracts.FilteredDeck{}, err
	}
	now := s.Now()
	desc := "Filtered deck: " + row.Search
	if len(desc) > contracts.MaxDescriptionLen {
		desc = "Filtered deck"
	}
	deck := contracts.Deck{ID: s.IDs.NewID(), Name: name, Description: desc, Settings: contracts.DefaultDeckSettings(), CreatedAt: now, UpdatedAt: now}
	row.DeckID, row.BuiltAt = deck.ID, now
	var out contracts.FilteredDeck
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		if _, err := s.CheckHoldings(ctx, tx, uid, 1, 0); err != nil { // the deck cap, before the write
			return err
		}
		if err := library.NewPreset(ctx, tx, s.Deps, uid, name, &deck.Settings); err != nil {
			return err
		}
		if err := tx.Decks().CreateDeck(ctx, uid, deck); err != nil {
			if contracts.IsKind(err, contracts.KindConflict) {
				return contracts.Errorf(contracts.KindConflict, "a deck named %q already exists; pick another name", name)
			}
			return kernel.Fail(err)
		}
		if err := tx.Filtered().SaveFiltered(ctx, uid, row); err != nil {
			return kernel.Fail(err)
		}
		out = record(deck, row)
		// The deck's addition is recorded before the cards it gathers, so
		// an undo (newest first) sends them home before it trashes the deck.
		var ch kernel.Changes
		ch.Add(contracts.ChangeDeckAdd, deck.ID, deck.UpdatedAt.UnixMilli(), nil, nil)
		var err error
		out.Gathered, err = s.gather(ctx, tx, uid, row, now, &ch)
		out.Cards = out.Gathered
		if err != nil {
			return err
		}
		return ch.Write(ctx, tx, s.Deps)
	})
	return out, err
}

// FilteredDecks implements ports.FilteredDeckService.
func (s *Service) FilteredDecks(ctx context.Context) ([]contracts.FilteredDeck, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.Filtered().ListFiltered(ctx, uid)
	if err != nil {
		return nil, kernel.Fail(err)
	}
	out := make([]contracts.FilteredDeck, 0, len(rows))
	now := s.Now()
	for _, r := range rows {
		d, err := s.Store.Decks().GetDeck(ctx, uid, r.DeckID, now)
		if contracts.IsKind(err, contracts.KindNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, kernel.Fail(err)
		}
		f := record(d, r)
		f.Cards = d.Counts.Total
		out = append(out, f)
	}
	return out, nil
}

// Filtered implements ports.FilteredDeckService.
func (s *Service) Filtered(ctx context.Context, deckID string) (contracts.FilteredDeck, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.FilteredDeck{}, err
	}
	if !kernel.PlausibleID(deckID) {
		return contracts.FilteredDeck{}, kernel.DeckNotFound(deckID)
	}
	row, err := s.Store.Filtered().Filtered(ctx, uid, deckID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.FilteredDeck{}, contracts.Errorf(contracts.KindNotFound, "deck %s is not a filtered deck", deckID)
	}
	if err != nil {
		return contracts.FilteredDeck{}, kernel.Fail(err)
	}
	d, err := s.Store.Decks().GetDeck(ctx, uid, deckID, s.Now())
	if contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.FilteredDeck{}, kernel.DeckNotFound(deckID)
	}
	if err != nil {
		return contracts.FilteredDeck{}, kernel.Fail(err)
	}
	f := record(d, row)
	f.Cards = d.Counts.Total
	return f, nil
}

// loadFiltered loads a filtered deck and its search; not found when the
// deck is absent or not a filtered deck.
func loadFiltered(ctx context.Context, tx ports.Stores, uid, deckID string) (contracts.Deck, ports.FilteredDeckRow, error) {
	deck, err := library.LoadDeck(ctx, tx, uid, deckID)
	if err != nil {
		return deck, ports.FilteredDeckRow{}, err
	}
	row, err := tx.Filtered().Filtered(ctx, uid, deck.ID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return deck, row, contracts.Errorf(contracts.KindNotFound, "deck %s is not a filtered deck; create one with action create", deckID)
	}
	return deck, row, kernel.Fail(err)
}

// options applies the options args gives to row and checks them.
func options(row ports.FilteredDeckRow, args contracts.FilteredDeckArgs) (ports.FilteredDeckRow, error) {
	if args.Search != nil {
		row.Search = *args.Search
	}
	if args.Limit != nil {
		row.Limit = *args.Limit
	}
	if args.Order != "" {
		row.Order = args.Order
	}
	if args.Reschedule != nil {
		row.Reschedule = *args.Reschedule
	}
	if row.Limit < 1 || row.Limit > contracts.MaxFilteredCards {
		return row, contracts.Errorf(contracts.KindInvalid, "limit must be 1-%d, got %d", contracts.MaxFilteredCards, row.Limit)
	}
	if !slices.Contains(contracts.FilteredOrders, row.Order) {
		return row, contracts.Errorf(contracts.KindInvalid, "order must be one of due, added, random, lapses, interval; got %q", row.Order)
	}
	return row, nil
}

// gather moves the cards row's search finds into its deck, each with a
// change record in ch that sends it home when undone, and returns how
// many.
// Of cards with the same front and back (from different decks) the
// first is taken: a deck holds one of each.
func (s *Service) gather(ctx context.Context, tx ports.Stores, uid string, row ports.FilteredDeckRow, now time.Time, ch *kernel.Changes) (int, error) {
	day, err := kernel.LearnerDay(ctx, tx, uid)
	if err != nil {
		return 0, err
	}
	q, err := query(ctx, tx, uid, row.Search, day, now)
	if err != nil {
		return 0, err
	}
	q.Order, q.Limit = row.Order, row.Limit
	if row.Order == contracts.FilteredOrderRandom {
		q.Limit = max(row.Limit, randomPool)
	}
	cards, err := tx.Filtered().Candidates(ctx, uid, q)
	if err != nil {
		return 0, kernel.Fail(err)
	}
	if row.Order == contracts.FilteredOrderRandom {
		rand.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
	}
	seen := map[string]bool{}
	byID := map[string]ports.CardRow{}
	var ids []string
	for _, c := range cards {
		if seen[c.Hash] || len(ids) == row.Limit {
			continue
		}
		seen[c.Hash], byID[c.ID] = true, c
		ids = append(ids, c.ID)
	}
	moved, err := tx.Filtered().Gather(ctx, uid, row.DeckID, ids, now)
	if err != nil {
		return 0, kernel.Fail(err)
	}
	for _, id := range moved {
		c := byID[id]
		ch.Add(contracts.ChangeCardUpdate, id, c.Version+1, map[string]any{"deckId": c.DeckID}, map[string]any{"deckId": row.DeckID})
	}
	return len(moved), nil
}

// searchOf is a filtered deck's saved search as a filtered.update
// record holds it.
func searchOf(r ports.FilteredDeckRow) map[string]any {
	return map[string]any{"search": r.Search, "limit": r.Limit, "order": r.Order, "reschedule": r.Reschedule, "builtAt": r.BuiltAt}
}

// record is the filtered deck's record with no cards counted.
func record(d contracts.Deck, r ports.FilteredDeckRow) contracts.FilteredDeck {
	return contracts.FilteredDeck{DeckID: d.ID, Name: d.Name, Search: r.Search, Limit: r.Limit, Order: r.Order, Reschedule: r.Reschedule, BuiltAt: r.BuiltAt}
}
