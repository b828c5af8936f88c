package library

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/cardtext"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// Search limits.
const (
	DefaultSearchPage = 20
	maxQueryLen       = 500
	maxSearchTags     = 10
)

var searchStates = []string{"", "new", "learning", "review", "relearning", "suspended", "buried", "leech"}

// UpdateCards edits, suspends or moves up to contracts.MaxBulkItems cards
// in one transaction, in order, with one outcome per item: updated,
// not_found, invalid, or conflict (the change would duplicate a card in the
// target deck, or the card changed concurrently).
func (s *CardService) UpdateCards(ctx context.Context, args contracts.UpdateCardsArgs) (contracts.BulkResult, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	if err := kernel.CheckBatch("updates", len(args.Updates), contracts.MaxBulkItems); err != nil {
		return contracts.BulkResult{}, err
	}
	var res contracts.BulkResult
	// A dry run is this very transaction, rolled back.
	err = kernel.InTxOrDry(ctx, s.Store, args.DryRun, func(tx ports.Stores) error {
		now := s.Now()
		res = contracts.BulkResult{Items: make([]contracts.ItemOutcome, len(args.Updates)), Counts: map[string]int{}}
		cards, err := loadCards(ctx, tx, uid, patchIDs(args.Updates))
		if err != nil {
			return err
		}
		decks := map[string]string{}
		var ch kernel.Changes
		for i, p := range args.Updates {
			out, err := s.applyPatch(ctx, tx, uid, p, cards, decks, now, &ch)
			if err != nil {
				return err
			}
			out.Index, out.ID = i, p.ID
			res.Items[i] = out
			res.Counts[string(out.Status)]++
		}
		if args.DryRun {
			res.DryRun, res.Changes = true, ch.Preview()
		}
		return ch.Write(ctx, tx, s.Deps)
	})
	if err != nil {
		return contracts.BulkResult{}, err
	}
	return res, nil
}

func patchIDs(ps []contracts.CardPatch) []string {
	ids := make([]string, 0, len(ps))
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	return ids
}

// loadCards fetches the cards with plausible ids among ids, by id.
func loadCards(ctx context.Context, st ports.Stores, uid string, ids []string) (map[string]ports.CardRow, error) {
	want := make([]string, 0, len(ids))
	for _, id := range ids {
		if kernel.PlausibleID(id) && !slices.Contains(want, id) {
			want = append(want, id)
		}
	}
	out := make(map[string]ports.CardRow, len(want))
	if len(want) == 0 {
		return out, nil
	}
	rows, err := st.Cards().GetCards(ctx, uid, want)
	if err != nil {
		return nil, kernel.Fail(err)
	}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, nil
}

// applyPatch applies one patch and keeps cards current. The error is for a
// failure of the whole batch; item failures are outcomes.
func (s *CardService) applyPatch(ctx context.Context, tx ports.Stores, uid string, p contracts.CardPatch, cards map[string]ports.CardRow, decks map[string]string, now time.Time, ch *kernel.Changes) (contracts.ItemOutcome, error) {
	invalid := func(format string, args ...any) (contracts.ItemOutcome, error) {
		return contracts.ItemOutcome{Status: contracts.OutcomeInvalid, Reason: fmt.Sprintf(format, args...)}, nil
	}
	row, ok := cards[p.ID]
	if !ok {
		return contracts.ItemOutcome{Status: contracts.OutcomeNotFound, Reason: fmt.Sprintf("card %s not found", kernel.QuoteID(p.ID))}, nil
	}
	if p.Front == nil && p.Back == nil && p.Tags == nil && p.Suspended == nil && p.DeckID == nil && p.Flag == nil {
		return invalid("nothing to change: give front, back, tags, suspended or deckId")
	}
	if row.NoteID != "" && (p.Front != nil || p.Back != nil || p.Tags != nil) {
		// The note's fields make this card; an edit here would be lost at
		// the note's next edit.
		return invalid("card %s is made from note %s: change its text or tags with update_notes (suspending and moving work here)", kernel.QuoteID(p.ID), row.NoteID)
	}
	next := row
	next.Tags = slices.Clone(row.Tags)
	var err error
	if p.Front != nil {
		if next.Front, err = cardtext.CleanSide("front", *p.Front); err != nil {
			return invalid("%s", err)
		}
	}
	if p.Back != nil {
		if next.Back, err = cardtext.CleanSide("back", *p.Back); err != nil {
			return invalid("%s", err)
		}
	}
	if p.Tags != nil {
		if next.Tags, err = cardtext.NormalizeTags(*p.Tags); err != nil {
			return invalid("%s", err)
		}
	}
	if p.Front != nil || p.Back != nil {
		missing, err := missingMedia(ctx, s.Deps, tx, uid, [][]string{{next.Front, next.Back}})
		if err != nil {
			return contracts.ItemOutcome{}, err
		}
		if id, ok := missing[0]; ok {
			return invalid("%s", missingMediaReason(id))
		}
	}
	if p.Suspended != nil {
		next.Suspended = *p.Suspended
	}
	if p.Flag != nil {
		if *p.Flag < 0 || *p.Flag >= len(contracts.CardFlags) {
			return invalid("flag must be 0 (none) to %d, got %d", len(contracts.CardFlags)-1, *p.Flag)
		}
		next.Flag = *p.Flag
	}
	if p.DeckID != nil && *p.DeckID != row.DeckID {
		switch target, err := targetDeck(ctx, tx, uid, *p.DeckID, decks); {
		case err != nil:
			return contracts.ItemOutcome{}, err
		case target == deckMissing:
			return contracts.ItemOutcome{Status: contracts.OutcomeNotFound, Reason: fmt.Sprintf("target deck %s not found", kernel.QuoteID(*p.DeckID))}, nil
		case target == deckFiltered:
			return invalid("deck %s is a filtered deck: cards cannot be moved into one, as in Anki (it gathers cards by its search, each keeping its home deck: filtered_deck)", *p.DeckID)
		}
		next.DeckID = *p.DeckID
	}
	next.Hash = cardtext.Hash(next.Front, next.Back)
	if next.Hash != row.Hash || next.DeckID != row.DeckID {
		found, err := tx.Cards().HashesInDeck(ctx, uid, next.DeckID, []string{next.Hash})
		if err != nil {
			return contracts.ItemOutcome{}, kernel.Fail(err)
		}
		if other, ok := found[next.Hash]; ok && other != row.ID {
			where := "this deck"
			if next.DeckID != row.DeckID {
				where = "the target deck"
			}
			return contracts.ItemOutcome{Status: contracts.OutcomeConflict, ExistingID: other,
				Reason: fmt.Sprintf("a card with the same front and back is already in %s (%s)", where, other)}, nil
		}
	}
	next.UpdatedAt = now
	switch err := tx.Cards().UpdateCard(ctx, uid, next); {
	case contracts.IsKind(err, contracts.KindNotFound):
		return contracts.ItemOutcome{Status: contracts.OutcomeNotFound, Reason: fmt.Sprintf("card %s not found", p.ID)}, nil
	case contracts.IsKind(err, contracts.KindConflict):
		return contracts.ItemOutcome{Status: contracts.OutcomeConflict, Reason: "the card was changed by another request; fetch it and retry"}, nil
	case err != nil:
		return contracts.ItemOutcome{}, kernel.Fail(err)
	}
	next.Version++
	cards[p.ID] = next
	prev, after := cardDiff(row, next)
	ch.Add(contracts.ChangeCardUpdate, row.ID, next.Version, prev, after)
	return contracts.ItemOutcome{Status: contracts.OutcomeUpdated}, nil
}

// ApplyPatch applies one card patch in tx exactly as update_cards does
// (the same checks, the same outcome) and adds its change record to ch:
// undo_changes puts a card's previous values back through it.
func (s *CardService) ApplyPatch(ctx context.Context, tx ports.Stores, uid string, p contracts.CardPatch, ch *kernel.Changes) (contracts.ItemOutcome, error) {
	cards, err := loadCards(ctx, tx, uid, []string{p.ID})
	if err != nil {
		return contracts.ItemOutcome{}, err
	}
	return s.applyPatch(ctx, tx, uid, p, cards, map[string]string{}, s.Now(), ch)
}

// cardDiff returns the fields an update changed, as a card patch names
// them, before and after.
func cardDiff(row, next ports.CardRow) (prev, after map[string]any) {
	prev, after = map[string]any{}, map[string]any{}
	set := func(name string, was, is any) {
		prev[name], after[name] = was, is
	}
	if row.Front != next.Front {
		set("front", row.Front, next.Front)
	}
	if row.Back != next.Back {
		set("back", row.Back, next.Back)
	}
	if !slices.Equal(row.Tags, next.Tags) {
		set("tags", nonNil(row.Tags), nonNil(next.Tags))
	}
	if row.Suspended != next.Suspended {
		set("suspended", row.Suspended, next.Suspended)
	}
	if row.Flag != next.Flag {
		set("flag", row.Flag, next.Flag)
	}
	if row.DeckID != next.DeckID {
		set("deckId", row.DeckID, next.DeckID)
		if row.HomeDeckID != "" { // moved out of a filtered deck: an undo puts it back home
			prev["deckId"] = row.HomeDeckID
		}
	}
	return prev, after
}

// nonNil keeps an empty tag list a list in JSON ("tags": [] clears them).
func nonNil(tags []string) []string {
	if tags == nil {
		return []string{}
	}
	return tags
}

// What a deck is to update_cards as a target (targetDeck).
const (
	deckMissing  = "missing"  // not the user's, or in the trash
	deckFiltered = "filtered" // a filtered deck: no card is moved into one
)

// targetDeck says what deckID is as a deck to move cards to: "" (one of
// the user's decks), deckMissing or deckFiltered, cached per call.
func targetDeck(ctx context.Context, tx ports.Stores, uid, deckID string, cache map[string]string) (string, error) {
	if what, seen := cache[deckID]; seen {
		return what, nil
	}
	_, err := LoadDeck(ctx, tx, uid, deckID)
	switch {
	case contracts.IsKind(err, contracts.KindNotFound):
		cache[deckID] = deckMissing
	case err != nil:
		return "", err
	default:
		_, err := tx.Filtered().Filtered(ctx, uid, deckID)
		switch {
		case err == nil:
			cache[deckID] = deckFiltered
		case contracts.IsKind(err, contracts.KindNotFound):
			cache[deckID] = ""
		default:
			return "", kernel.Fail(err)
		}
	}
	return cache[deckID], nil
}

// DeleteCards moves up to contracts.MaxBulkItems cards to the trash with
// one outcome per item: deleted or not_found.
func (s *CardService) DeleteCards(ctx context.Context, args contracts.DeleteCardsArgs) (contracts.BulkResult, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	if err := kernel.CheckBatch("cardIds", len(args.CardIDs), contracts.MaxBulkItems); err != nil {
		return contracts.BulkResult{}, err
	}
	var want []string
	for _, id := range args.CardIDs {
		if kernel.PlausibleID(id) && !slices.Contains(want, id) {
			want = append(want, id)
		}
	}
	deleted := map[string]bool{}
	var ch kernel.Changes
	// A dry run is this very transaction, rolled back.
	err = kernel.ApplyOrDry(ctx, s.Store, args.DryRun, func(ctx context.Context, st ports.Stores) error {
		clear(deleted)
		ch = kernel.Changes{}
		if len(want) == 0 {
			return nil
		}
		ids, err := st.Cards().TrashCards(ctx, uid, want, s.Now())
		if err != nil {
			return kernel.Fail(err)
		}
		for _, id := range ids {
			deleted[id] = true
			ch.Add(contracts.ChangeCardDelete, id, 0, nil, nil)
		}
		return ch.Write(ctx, st, s.Deps)
	})
	if err != nil {
		return contracts.BulkResult{}, err
	}
	res := contracts.BulkResult{Items: make([]contracts.ItemOutcome, len(args.CardIDs)), Counts: map[string]int{}}
	if args.DryRun {
		res.DryRun, res.Changes = true, ch.Preview()
	}
	first := map[string]int{} // id → the index of its first occurrence
	for i, id := range args.CardIDs {
		out := contracts.ItemOutcome{Index: i, ID: id, Status: contracts.OutcomeDeleted}
		j, seen := first[id]
		switch {
		case seen:
			out.Status, out.Reason = contracts.OutcomeDuplicate, fmt.Sprintf("the same card as item %d of cardIds; each card is deleted once", j)
		case !deleted[id]:
			out.Status, out.Reason = contracts.OutcomeNotFound, fmt.Sprintf("card %s not found", kernel.QuoteID(id))
		}
		if !seen {
			first[id] = i
		}
		res.Items[i] = out
		res.Counts[string(out.Status)]++
	}
	return res, nil
}

// GetCard returns one card.
func (s *CardService) GetCard(ctx context.Context, cardID string) (contracts.Card, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.Card{}, err
	}
	cards, err := loadCards(ctx, s.Store, uid, []string{cardID})
	if err != nil {
		return contracts.Card{}, err
	}
	row, ok := cards[cardID]
	if !ok {
		return contracts.Card{}, kernel.NotFound("card", cardID)
	}
	return row.Card, nil
}

// MaxCardHistory bounds the entries CardHistory returns.
const MaxCardHistory = 500

// CardHistory returns a card's review history, newest first (at most
// MaxCardHistory entries).
func (s *CardService) CardHistory(ctx context.Context, cardID string) ([]contracts.CardReview, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return nil, err
	}
	cards, err := loadCards(ctx, s.Store, uid, []string{cardID})
	if err != nil {
		return nil, err
	}
	if _, ok := cards[cardID]; !ok {
		return nil, kernel.NotFound("card", cardID)
	}
	logs, err := s.Store.Reviews().CardReviews(ctx, uid, cardID, MaxCardHistory)
	if err != nil {
		return nil, kernel.Fail(err)
	}
	out := make([]contracts.CardReview, 0, len(logs))
	for _, l := range logs {
		out = append(out, contracts.CardReview{ReviewedAt: l.ReviewedAt, Rating: l.Rating, PrevPhase: l.PrevPhase, State: l.State, DurationMs: l.DurationMs})
	}
	return out, nil
}

// SearchCards runs a full-text search with filters, a page at a time.
func (s *CardService) SearchCards(ctx context.Context, args contracts.SearchCardsArgs) (contracts.CardPage, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.CardPage{}, err
	}
	limit, err := kernel.PageLimit(args.Limit, DefaultSearchPage, contracts.MaxSearchResults)
	if err != nil {
		return contracts.CardPage{}, err
	}
	after, err := kernel.DecodeCursor(args.Cursor)
	if err != nil {
		return contracts.CardPage{}, err
	}
	var afterKey float64
	if args.Sort != "" {
		if !slices.Contains(contracts.CardSorts, args.Sort) {
			return contracts.CardPage{}, contracts.Errorf(contracts.KindInvalid, "sort must be one of due, interval, difficulty, lapses, added; got %q", args.Sort)
		}
		if after != "" {
			if afterKey, after, err = sortedCursor(after); err != nil {
				return contracts.CardPage{}, err
			}
		}
	}
	var words []string
	var flag *int
	for _, w := range strings.Fields(args.Query) {
		// flag:1 … flag:7 (or the flag's colour), flag:0 for none, as Anki.
		if name, ok := strings.CutPrefix(strings.ToLower(w), "flag:"); ok {
			n := slices.Index(contracts.CardFlags, name)
			if d, err := strconv.Atoi(name); err == nil && d >= 0 && d < len(contracts.CardFlags) {
				n = d
			}
			if n < 0 || name == "" {
				return contracts.CardPage{}, contracts.Errorf(contracts.KindInvalid, "flag: takes 0 (no flag) to 7 or a colour (red, orange, green, blue, pink, turquoise, purple); got %q", w)
			}
			flag = &n
			continue
		}
		// is:buried, is:leech and the other states, in the query as Anki
		// writes them.
		state, ok := strings.CutPrefix(strings.ToLower(w), "is:")
		if !ok || !slices.Contains(searchStates, state) || state == "" {
			words = append(words, w)
			continue
		}
		if args.State != "" && args.State != state {
			return contracts.CardPage{}, contracts.Errorf(contracts.KindInvalid, "the query's is:%s and state %q disagree; give one", state, args.State)
		}
		args.State = state
	}
	if !slices.Contains(searchStates, args.State) {
		return contracts.CardPage{}, contracts.Errorf(contracts.KindInvalid, "state must be one of new, learning, review, relearning, suspended, buried, leech; got %q", args.State)
	}
	q := strings.Join(words, " ")
	if utf8.RuneCountInString(q) > maxQueryLen || !utf8.ValidString(q) || strings.ContainsRune(q, 0) {
		return contracts.CardPage{}, contracts.Errorf(contracts.KindInvalid, "query must be plain text of at most %d characters", maxQueryLen)
	}
	if len(args.Tags) > maxSearchTags {
		return contracts.CardPage{}, contracts.Errorf(contracts.KindInvalid, "tags holds %d items; filter by at most %d", len(args.Tags), maxSearchTags)
	}
	tags, err := cardtext.NormalizeTags(args.Tags)
	if err != nil {
		return contracts.CardPage{}, contracts.Errorf(contracts.KindInvalid, "%s", err)
	}
	now := s.Now()
	if args.DeckID != "" {
		if _, err := LoadDeck(ctx, s.Store, uid, args.DeckID); err != nil {
			return contracts.CardPage{}, err
		}
	}
	f := contracts.CardFilter{Query: q, DeckID: args.DeckID, Tags: tags, State: args.State, Sort: args.Sort, Desc: args.Descending, AfterKey: afterKey, Flag: flag}
	if w := args.DueBefore; w != nil {
		var day contracts.LearnerDay
		if w.IsDate() {
			if day, err = kernel.LearnerDay(ctx, s.Store, uid); err != nil {
				return contracts.CardPage{}, err
			}
		}
		due := w.At(day)
		f.DueBy = &due
	}
	rows, err := s.Store.Cards().Search(ctx, uid, f, after, limit+1, now)
	if err != nil {
		return contracts.CardPage{}, kernel.Fail(err)
	}
	cards := make([]contracts.Card, len(rows))
	for i, r := range rows {
		cards[i] = r.Card
	}
	if args.Sort != "" {
		return kernel.Page(cards, limit, func(c contracts.Card) string {
			return strconv.FormatFloat(c.SortValue(args.Sort), 'g', -1, 64) + "|" + c.ID
		}), nil
	}
	return kernel.Page(cards, limit, func(c contracts.Card) string { return c.ID }), nil
}

// sortedCursor splits a sorted search's cursor (the last card's sort
// value and id, as "value|id") into its parts.
func sortedCursor(c string) (key float64, id string, err error) {
	k, id, ok := strings.Cut(c, "|")
	key, perr := strconv.ParseFloat(k, 64)
	if !ok || perr != nil || !kernel.PlausibleID(id) || math.IsNaN(key) || math.IsInf(key, 0) {
		return 0, "", contracts.Errorf(contracts.KindInvalid, kernel.BadCursor)
	}
	return key, id, nil
}
