package apiserver_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// The trash through the official SDK client: delete_cards and delete_deck
// take cards and a deck out of every read; list_trash shows them with
// their purge time; restore_items refuses a card whose deck is in the
// trash and one that a card added since duplicates (both with reasons),
// and brings the deck and the card back with their review history; the
// restore is audited.
func TestTrashOverMCP(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, _ := e.trustedKey(t, contracts.ScopeDecksRead, contracts.ScopeDecksWrite, contracts.ScopeStudyWrite, contracts.ScopeStatsRead)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		var deck contracts.Deck
		call(t, cs, "create_deck", map[string]any{"name": "Trash test"}, &deck)
		var added contracts.BulkResult
		call(t, cs, "add_cards", map[string]any{"deckId": deck.ID, "cards": []map[string]any{
			{"front": "Haus", "back": "house"}, {"front": "Baum", "back": "tree"}, {"front": "Hund", "back": "dog"}}}, &added)
		c1, c2, c3 := added.Items[0].ID, added.Items[1].ID, added.Items[2].ID
		var sess contracts.StudySession
		call(t, cs, "start_study_session", map[string]any{"deckId": deck.ID}, &sess)
		call(t, cs, "submit_review", map[string]any{"sessionId": sess.ID, "cardId": sess.Current.CardID,
			"position": sess.Current.Position, "rating": "good"}, nil)
		reviewed := sess.Current.CardID
		var stats contracts.Stats
		call(t, cs, "get_stats", map[string]any{"deckId": deck.ID}, &stats)
		if stats.TotalReviews != 1 {
			t.Fatalf("reviews before the delete = %d, want 1", stats.TotalReviews)
		}

		// Delete one card that was not reviewed, then the deck.
		loose := c2
		if reviewed == c2 {
			loose = c3
		}
		var del contracts.BulkResult
		call(t, cs, "delete_cards", map[string]any{"cardIds": []string{loose}}, &del)
		if del.Counts["deleted"] != 1 {
			t.Fatalf("delete_cards = %+v", del)
		}
		var found contracts.CardPage
		call(t, cs, "search_cards", map[string]any{"deckId": deck.ID}, &found)
		if len(found.Items) != 2 || slices.ContainsFunc(found.Items, func(c contracts.Card) bool { return c.ID == loose }) {
			t.Errorf("search_cards after delete_cards = %+v", found.Items)
		}
		call(t, cs, "delete_deck", map[string]any{"deckId": deck.ID}, nil)
		var decks contracts.DeckPage
		call(t, cs, "list_decks", map[string]any{}, &decks)
		if len(decks.Items) != 0 {
			t.Errorf("list_decks after delete_deck = %+v", decks.Items)
		}
		var trash contracts.TrashPage
		call(t, cs, "list_trash", map[string]any{}, &trash)
		byID := map[string]contracts.TrashItem{}
		for _, it := range trash.Items {
			byID[it.ID] = it
		}
		if d, c := byID[deck.ID], byID[loose]; len(trash.Items) != 2 || d.Kind != "deck" || d.Cards != 2 || c.Kind != "card" || !c.DeckInTrash {
			t.Fatalf("list_trash = %+v", trash.Items)
		}
		if got := byID[deck.ID].ExpiresAt.Sub(byID[deck.ID].DeletedAt); got != 30*24*time.Hour {
			t.Errorf("a trashed deck expires %v after its deletion, want 30 days", got)
		}

		// The card alone cannot come back while its deck is in the trash.
		var res contracts.RestoreResult
		call(t, cs, "restore_items", map[string]any{"cardIds": []string{loose}}, &res)
		if res.Cards[0].Status != contracts.OutcomeConflict || !strings.Contains(res.Cards[0].Reason, "restore the deck") {
			t.Errorf("restoring a card of a trashed deck = %+v", res.Cards)
		}
		call(t, cs, "restore_items", map[string]any{"deckIds": []string{deck.ID}, "cardIds": []string{loose, "crd-never"}}, &res)
		if res.Decks[0].Status != contracts.OutcomeRestored || res.Cards[0].Status != contracts.OutcomeRestored ||
			res.Cards[1].Status != contracts.OutcomeNotFound || res.Counts["restored"] != 2 {
			t.Fatalf("restore_items = %+v", res)
		}
		call(t, cs, "list_decks", map[string]any{}, &decks)
		if len(decks.Items) != 1 || decks.Items[0].ID != deck.ID || decks.Items[0].Counts.Total != 3 {
			t.Errorf("list_decks after the restore = %+v", decks.Items)
		}
		call(t, cs, "get_stats", map[string]any{"deckId": deck.ID}, &stats)
		if stats.TotalReviews != 1 {
			t.Errorf("reviews after the restore = %d, want the 1 from before", stats.TotalReviews)
		}

		// A card added again since its deletion is not duplicated.
		sides := map[string][2]string{c1: {"Haus", "house"}, c2: {"Baum", "tree"}, c3: {"Hund", "dog"}}
		other := c1
		if other == reviewed {
			other = c2
		}
		call(t, cs, "delete_cards", map[string]any{"cardIds": []string{other}}, nil)
		var again contracts.BulkResult
		call(t, cs, "add_cards", map[string]any{"deckId": deck.ID, "cards": []map[string]any{{"front": sides[other][0], "back": sides[other][1]}}}, &again)
		call(t, cs, "restore_items", map[string]any{"cardIds": []string{other}}, &res)
		if res.Cards[0].Status != contracts.OutcomeDuplicate || res.Cards[0].ExistingID != again.Items[0].ID {
			t.Errorf("restoring a card added again since = %+v; want duplicate of %s", res.Cards, again.Items[0].ID)
		}

		events, err := e.app.AuditTrail(t.Context(), testUser, 0)
		if err != nil {
			t.Fatal(err)
		}
		var restored []string
		for _, ev := range events {
			if ev.Tool == contracts.ToolRestoreItems {
				restored = append(restored, ev.AffectedIDs...)
			}
		}
		slices.Sort(restored)
		want := []string{deck.ID, loose}
		slices.Sort(want)
		if !slices.Equal(restored, want) {
			t.Errorf("restore_items audit rows name %v, want %v", restored, want)
		}
	})
}

// TestTrashPurge: the purge job "trash" keeps what was deleted until
// contracts.TrashDays have passed on the service's clock, then deletes it
// for good (restore_items then reports it not found), and a second run,
// as another instance would make it, finds nothing.
func TestTrashPurge(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		ctx := t.Context()
		key, _ := e.trustedKey(t, contracts.ScopeDecksRead, contracts.ScopeDecksWrite)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		var deck, kept contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Old"}, &deck)
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Kept"}, &kept)
		var added contracts.BulkResult
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": []map[string]any{{"front": "a", "back": "b"}, {"front": "c", "back": "d"}}}, nil)
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": kept.ID, "cards": []map[string]any{{"front": "e", "back": "f"}}}, &added)
		call(t, cs, contracts.ToolDeleteDeck, map[string]any{"deckId": deck.ID}, nil)

		e.clock.Advance(contracts.TrashTTL - time.Minute)
		call(t, cs, contracts.ToolDeleteCards, map[string]any{"cardIds": []string{added.Items[0].ID}}, nil)
		purged, err := e.app.Purge(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if purged["trash"] != 0 {
			t.Errorf("the purge deleted %d trashed items before 30 days", purged["trash"])
		}
		e.clock.Advance(2 * time.Minute)
		if purged, err = e.app.Purge(ctx); err != nil {
			t.Fatal(err)
		}
		if purged["trash"] != 3 { // the deck and its two cards
			t.Errorf("the purge after 30 days deleted %d trashed items, want 3 (all: %v)", purged["trash"], purged)
		}
		if purged, err = e.app.Purge(ctx); err != nil || purged["trash"] != 0 {
			t.Errorf("a second purge deleted %d, %v", purged["trash"], err)
		}
		var trash contracts.TrashPage
		call(t, cs, contracts.ToolListTrash, map[string]any{}, &trash)
		if len(trash.Items) != 1 || trash.Items[0].ID != added.Items[0].ID {
			t.Errorf("the trash after the purge = %+v; want the card deleted later", trash.Items)
		}
		var res contracts.RestoreResult
		call(t, cs, contracts.ToolRestoreItems, map[string]any{"deckIds": []string{deck.ID}}, &res)
		if res.Decks[0].Status != contracts.OutcomeNotFound {
			t.Errorf("restoring a purged deck = %+v", res.Decks)
		}
	})
}
