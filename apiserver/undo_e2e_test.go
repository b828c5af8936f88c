package apiserver_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestUndoChangesThroughMCP, with the official Go SDK client on both
// databases: an agent's update_cards over 300 cards is previewed (dryRun:
// nothing changes, the preview shows 20 changes), applied, then undone by
// its operation id: every card is back, except one edited after the
// agent's change, reported skipped with the reason; undoing the undo
// redoes it; and an undo by time range of the agent's own credential
// finds what is left.
func TestUndoChangesThroughMCP(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e, cs, _ := agentEnv(t, db)
		deck, ids := agentDeck(t, cs, "Years of cards", 300)
		before := deckCards(t, cs, deck.ID)

		updates := make([]map[string]any, len(ids))
		for i, id := range ids {
			updates[i] = map[string]any{"id": id, "back": fmt.Sprintf("agent's back %d", i), "tags": []string{"agent"}}
		}
		var preview contracts.BulkResult
		call(t, cs, contracts.ToolUpdateCards, map[string]any{"updates": updates, "dryRun": true}, &preview)
		if !preview.DryRun || preview.Counts["updated"] != 300 || len(preview.Changes) != contracts.MaxPreviewChanges {
			t.Fatalf("dry run: dryRun=%v counts=%v changes=%d", preview.DryRun, preview.Counts, len(preview.Changes))
		}
		if c := preview.Changes[0]; c.ID != ids[0] || string(c.Before) != `{"back":"back 0","tags":["orig"]}` || string(c.After) != `{"back":"agent's back 0","tags":["agent"]}` {
			t.Errorf("the preview's first change: %+v %s → %s", c, c.Before, c.After)
		}
		if now := deckCards(t, cs, deck.ID); now[ids[0]].Back != "back 0" {
			t.Fatalf("a dry run changed a card: %+v", now[ids[0]])
		}

		var applied contracts.BulkResult
		res := call(t, cs, contracts.ToolUpdateCards, map[string]any{"updates": updates}, &applied)
		if applied.Counts["updated"] != 300 || applied.DryRun || len(applied.Changes) != 0 {
			t.Fatalf("update_cards: %+v", applied.Counts)
		}
		// The model reads the operation id from the result: the audit
		// row's and the change records'.
		op := resultOperation(t, res)
		if audited := lastOperation(t, e, contracts.ToolUpdateCards); audited != op {
			t.Fatalf("the result's operationId %s, the audit row's %s", op, audited)
		}
		// The person (another call) edits one card after the agent.
		call(t, cs, contracts.ToolUpdateCards, map[string]any{"updates": []map[string]any{{"id": ids[7], "back": "edited later"}}}, nil)

		var dry contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{op}, "dryRun": true}, &dry)
		if !dry.DryRun || dry.Undone != 299 || dry.Skipped != 1 || dry.OperationID != "" {
			t.Fatalf("undo dry run: %+v", dry)
		}
		if now := deckCards(t, cs, deck.ID); now[ids[0]].Back != "agent's back 0" {
			t.Fatalf("an undo's dry run changed a card: %+v", now[ids[0]])
		}

		var undo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{op}}, &undo)
		if undo.Undone != 299 || undo.Skipped != 1 || undo.OperationID == "" || len(undo.Items) != 300 {
			t.Fatalf("undo: undone %d skipped %d op %q items %d", undo.Undone, undo.Skipped, undo.OperationID, len(undo.Items))
		}
		for _, it := range undo.Items {
			if (it.ID == ids[7]) != (it.Status == contracts.UndoSkipped) {
				t.Errorf("undo item %+v", it)
			}
			if it.ID == ids[7] && it.Reason == "" {
				t.Errorf("the skipped item says no reason")
			}
		}
		after := deckCards(t, cs, deck.ID)
		for i, id := range ids {
			got, want := after[id], before[id]
			if i == 7 {
				if got.Back != "edited later" {
					t.Errorf("the card edited after the agent was overwritten: %q", got.Back)
				}
				continue
			}
			if got.Back != want.Back || fmt.Sprint(got.Tags) != fmt.Sprint(want.Tags) || got.Front != want.Front {
				t.Fatalf("card %d after the undo: %q %v, want %q %v", i, got.Back, got.Tags, want.Back, want.Tags)
			}
		}
		// Undoing it again finds nothing left to undo.
		var again contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{op}}, &again)
		if again.Undone != 0 || again.Skipped != 1 {
			t.Errorf("a second undo of the same operation: %+v, want only the skipped item again", again)
		}

		// Undoing the undo redoes the agent's edits.
		var redo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{undo.OperationID}}, &redo)
		if redo.Undone != 299 || redo.Skipped != 0 {
			t.Fatalf("undo of the undo: %+v", redo)
		}
		redone := deckCards(t, cs, deck.ID)
		for i, id := range ids {
			if i != 7 && redone[id].Back != fmt.Sprintf("agent's back %d", i) {
				t.Fatalf("card %d after the redo: %q", i, redone[id].Back)
			}
		}

		// Refusals a model can act on.
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: contracts.ToolUndoChanges, Arguments: map[string]any{}})
		if err != nil || !res.IsError {
			t.Errorf("undo_changes with nothing to pick: %v %+v, want an isError result", err, res)
		}
	})
}

// TestBrowserUndoFromAuditPage, on both databases: an agent (official Go
// SDK client) updates 300 cards; the person opens the audit page in
// chromium, presses Undo on that row, and every card is back; the page
// says so, marks the row undone, and offers to undo the undo (its own
// row), which redoes the edits.
func TestBrowserUndoFromAuditPage(t *testing.T) {
	chromium(t)
	forEachDB(t, func(t *testing.T, db string) {
		e, cs, keyID := agentEnv(t, db)
		deck, ids := agentDeck(t, cs, "Years of cards", 300)
		before := deckCards(t, cs, deck.ID)
		updates := make([]map[string]any, len(ids))
		for i, id := range ids {
			updates[i] = map[string]any{"id": id, "back": fmt.Sprintf("agent's back %d", i), "suspended": true}
		}
		op := resultOperation(t, call(t, cs, contracts.ToolUpdateCards, map[string]any{"updates": updates}, nil))

		b := auditBrowser(t, e)
		undoButton := b.undoButton(op, "the update_cards row")
		b.look("audit-undo")
		b.pressUndo(undoButton, "300 items")
		after := deckCards(t, cs, deck.ID)
		for i, id := range ids {
			if got, want := after[id], before[id]; got.Back != want.Back || got.Suspended != want.Suspended {
				t.Fatalf("card %d after the page's undo: %q suspended=%v, want %q %v", i, got.Back, got.Suspended, want.Back, want.Suspended)
			}
		}
		redoButton := b.undoButton(lastOperation(t, e, contracts.ToolUndoChanges), "the undo's own row")
		b.look("audit-undone")
		b.submit(redoButton)
		redone := deckCards(t, cs, deck.ID)
		for i, id := range ids {
			if got := redone[id]; got.Back != fmt.Sprintf("agent's back %d", i) {
				t.Fatalf("card %d after undoing the undo: %q", i, got.Back)
			}
		}

		// "Undo everything this key did since …": a preview, then the POST.
		more := make([]map[string]any, 10)
		for i := range more {
			more[i] = map[string]any{"id": ids[i], "tags": []string{"late"}}
		}
		call(t, cs, contracts.ToolUpdateCards, map[string]any{"updates": more}, nil)
		// The day in the person's learner's day (UTC, rolling over at 4:00):
		// between midnight and 4:00 UTC the calendar date is tomorrow's.
		today := contracts.LearnerDay{RolloverHour: contracts.DefaultRolloverHour}.DateString(e.clock.Now())
		b.open("/audit?" + url.Values{"credential": {keyID}, "from": {today}}.Encode())
		b.submit("#undo-since")
		if text := b.text(); !strings.Contains(text, "10 changes would be put back") || !strings.Contains(text, "card.update") {
			t.Fatalf("the undo preview says:\n%s", text)
		}
		b.look("audit-undo-preview")
		if got := deckCards(t, cs, deck.ID)[ids[0]]; fmt.Sprint(got.Tags) != "[late]" {
			t.Fatalf("the preview changed a card: %v", got.Tags)
		}
		b.submit("#undo-all")
		if text := b.textOf(".flash"); !strings.Contains(text, "Undone: 10 items.") {
			t.Fatalf("after the undo the page says %q", text)
		}
		final := deckCards(t, cs, deck.ID)
		for i, id := range ids[:10] {
			if got := final[id]; fmt.Sprint(got.Tags) != fmt.Sprint(redone[id].Tags) {
				t.Fatalf("card %d's tags after undoing the key's changes: %v, want %v", i, got.Tags, redone[id].Tags)
			}
		}
		b.checkClean("audit undo")
	})
}

// TestUndoDeletions, with the official Go SDK client on both databases:
// delete_cards previews (dryRun: nothing goes) and deletes; undoing it
// brings every card back from the trash, undoing that deletes them again;
// delete_deck previews (dryRun: the same result, the deck stays, no
// audit row) and is undone the same way, the deck back with its cards.
func TestUndoDeletions(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e, cs, _ := agentEnv(t, db)
		deck, ids := agentDeck(t, cs, "Doomed", 60)
		victims := append(ids[:50:50], ids[0], "0190d5a0-0000-7000-8000-000000000000")

		var preview contracts.BulkResult
		call(t, cs, contracts.ToolDeleteCards, map[string]any{"cardIds": victims, "dryRun": true}, &preview)
		if !preview.DryRun || preview.Counts["deleted"] != 50 || preview.Counts["duplicate"] != 1 || preview.Counts["not_found"] != 1 {
			t.Fatalf("delete_cards dry run: %+v", preview.Counts)
		}
		if n := len(deckCards(t, cs, deck.ID)); n != 60 {
			t.Fatalf("after a dry run the deck has %d cards, want 60", n)
		}
		var deleted contracts.BulkResult
		deletedOp := resultOperation(t, call(t, cs, contracts.ToolDeleteCards, map[string]any{"cardIds": victims}, &deleted))
		if !equalCounts(deleted.Counts, preview.Counts) {
			t.Fatalf("delete_cards counts %v, the dry run said %v", deleted.Counts, preview.Counts)
		}
		if n := len(deckCards(t, cs, deck.ID)); n != 10 {
			t.Fatalf("after deleting 50 the deck has %d cards", n)
		}
		var undo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{deletedOp}}, &undo)
		if undo.Undone != 50 || undo.Skipped != 0 {
			t.Fatalf("undo of delete_cards: %+v", undo)
		}
		if n := len(deckCards(t, cs, deck.ID)); n != 60 {
			t.Fatalf("after the undo the deck has %d cards, want 60", n)
		}
		var redo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{undo.OperationID}}, &redo)
		if redo.Undone != 50 {
			t.Fatalf("undo of the undo: %+v", redo)
		}
		if n := len(deckCards(t, cs, deck.ID)); n != 10 {
			t.Fatalf("after undoing the undo the deck has %d cards, want 10", n)
		}

		var dryDeck contracts.DeleteResult
		call(t, cs, contracts.ToolDeleteDeck, map[string]any{"deckId": deck.ID, "dryRun": true}, &dryDeck)
		if !dryDeck.DryRun || dryDeck.CardsDeleted != 10 {
			t.Fatalf("delete_deck dry run: %+v", dryDeck)
		}
		if n := len(deckCards(t, cs, deck.ID)); n != 10 {
			t.Fatalf("after a delete_deck dry run the deck has %d cards, want 10", n)
		}
		if n := auditRows(t, e, contracts.ToolDeleteDeck); n != 0 {
			t.Fatalf("a delete_deck dry run left %d audit rows", n)
		}
		var gone contracts.DeleteResult
		goneOp := resultOperation(t, call(t, cs, contracts.ToolDeleteDeck, map[string]any{"deckId": deck.ID}, &gone))
		if dryDeck.DryRun = false; gone != dryDeck {
			t.Fatalf("delete_deck %+v, its dry run said %+v", gone, dryDeck)
		}
		if n := auditRows(t, e, contracts.ToolDeleteDeck); n != 1 {
			t.Fatalf("delete_deck left %d audit rows, want 1", n)
		}
		var back contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{goneOp}}, &back)
		if back.Undone != 1 {
			t.Fatalf("undo of delete_deck: %+v", back)
		}
		var got contracts.Deck
		call(t, cs, contracts.ToolGetDeck, map[string]any{"deckId": deck.ID}, &got)
		if got.Counts.Total != 10 {
			t.Errorf("the deck came back with %d cards, want 10", got.Counts.Total)
		}
	})
}

// equalCounts compares outcome counts.
func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestUndoReschedule, with the official Go SDK client on both databases:
// a reviewed card moved by reschedule_cards (previewed first with dryRun)
// gets its schedule back from undo_changes by time range (the agent's own
// credential since the reschedule).
func TestUndoReschedule(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		deck, _ := agentDeck(t, cs, "Reviewed", 3)
		var sess contracts.StudySession
		call(t, cs, contracts.ToolStartStudySession, map[string]any{"deckId": deck.ID}, &sess)
		id := sess.Current.CardID
		call(t, cs, contracts.ToolSubmitReview, map[string]any{"sessionId": sess.ID, "cardId": id, "position": sess.Current.Position, "rating": "easy"}, nil)
		before := deckCards(t, cs, deck.ID)[id]
		if before.State.Phase != contracts.PhaseReview {
			t.Fatalf("after an easy rating the card is %s", before.State.Phase)
		}
		var dry contracts.BulkResult
		call(t, cs, contracts.ToolRescheduleCards, map[string]any{"cardIds": []string{id}, "days": []int{90, 90}, "dryRun": true}, &dry)
		if !dry.DryRun || dry.Counts["updated"] != 1 || len(dry.Changes) != 1 {
			t.Fatalf("reschedule dry run: %+v", dry)
		}
		if got := deckCards(t, cs, deck.ID)[id]; !got.State.Due.Equal(before.State.Due) {
			t.Fatalf("a dry run moved the card to %v", got.State.Due)
		}
		e.clock.Advance(time.Minute) // the reschedule is the only change since
		since := e.clock.Now().UTC().Format(time.RFC3339)
		call(t, cs, contracts.ToolRescheduleCards, map[string]any{"cardIds": []string{id}, "days": []int{90, 90}}, nil)
		if got := deckCards(t, cs, deck.ID)[id]; got.State.Due.Sub(before.State.Due) < 60*24*time.Hour {
			t.Fatalf("rescheduled to %v from %v", got.State.Due, before.State.Due)
		}
		var undo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"since": since}, &undo)
		if undo.Undone != 1 || undo.Items[0].Kind != contracts.ChangeCardSchedule {
			t.Fatalf("undo since %s: %+v", since, undo)
		}
		after := deckCards(t, cs, deck.ID)[id]
		if !after.State.Due.Equal(before.State.Due) || after.State.ScheduledDays != before.State.ScheduledDays || after.State.Phase != before.State.Phase {
			t.Errorf("after the undo the card is %+v, want %+v", after.State, before.State)
		}
	})
}

// TestUndoAdditions, with the official Go SDK client on both databases:
// undoing everything the agent did since it started (its own credential)
// takes back an edit and then the additions, newest first: the cards it
// added go to the trash, then the deck it created (empty by then), where
// restore_items would find them.
func TestUndoAdditions(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		since := e.clock.Now().UTC().Format(time.RFC3339)
		deck, ids := agentDeck(t, cs, "Added", 5)
		call(t, cs, contracts.ToolUpdateCards, map[string]any{"updates": []map[string]any{{"id": ids[2], "back": "edited"}}}, nil)
		var undo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"since": since}, &undo)
		if undo.Undone != 7 || undo.Skipped != 0 || undo.Items[0].Kind != contracts.ChangeCardUpdate || undo.Items[5].Kind != contracts.ChangeCardAdd ||
			undo.Items[6].Kind != contracts.ChangeDeckAdd || undo.Items[6].ID != deck.ID {
			t.Fatalf("undo since the start: %+v", undo)
		}
		var trash contracts.TrashPage
		call(t, cs, contracts.ToolListTrash, map[string]any{}, &trash)
		decks := 0
		for _, it := range trash.Items {
			if it.Kind == "deck" && it.ID == deck.ID {
				decks++
			}
		}
		if len(trash.Items) != 6 || decks != 1 {
			t.Errorf("the trash holds %+v, want the 5 cards and their deck", trash.Items)
		}
	})
}

// TestUndoDeckUpdate, with the official Go SDK client on both databases:
// update_deck's change (a rename, a description, a daily limit) is undone
// by its operation id, the deck's previous values back; undoing the undo
// redoes it; after a later edit of the deck an undo of the earlier change
// is skipped with a reason, leaving the later edit.
func TestUndoDeckUpdate(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		var deck contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Spanish"}, &deck)
		read := func() contracts.Deck {
			t.Helper()
			var page contracts.DeckPage
			call(t, cs, contracts.ToolListDecks, map[string]any{}, &page)
			for _, d := range page.Items {
				if d.ID == deck.ID {
					return d
				}
			}
			t.Fatalf("deck %s is not listed", deck.ID)
			return contracts.Deck{}
		}
		before := read()
		e.clock.Advance(time.Minute)
		op := resultOperation(t, call(t, cs, contracts.ToolUpdateDeck, map[string]any{"deckId": deck.ID, "name": "Español", "description": "verbs first",
			"newCardsPerDay": before.Settings.NewCardsPerDay + 3}, nil))
		changed := read()
		if changed.Name != "Español" || changed.Settings.NewCardsPerDay != before.Settings.NewCardsPerDay+3 {
			t.Fatalf("the update left %+v", changed)
		}
		e.clock.Advance(time.Minute)
		var undo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{op}}, &undo)
		if undo.Undone != 1 || undo.Items[0].Kind != contracts.ChangeDeckUpdate {
			t.Fatalf("undo of the update: %+v", undo)
		}
		if got := read(); got.Name != before.Name || got.Description != before.Description || got.Settings.NewCardsPerDay != before.Settings.NewCardsPerDay {
			t.Errorf("after the undo the deck is %q %q %d new a day, want %q %q %d", got.Name, got.Description, got.Settings.NewCardsPerDay,
				before.Name, before.Description, before.Settings.NewCardsPerDay)
		}
		e.clock.Advance(time.Minute)
		var redo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{undo.OperationID}}, &redo)
		if redo.Undone != 1 {
			t.Fatalf("undo of the undo: %+v", redo)
		}
		if got := read(); got.Name != changed.Name || got.Description != changed.Description || got.Settings.NewCardsPerDay != changed.Settings.NewCardsPerDay {
			t.Errorf("after redoing, the deck is %q %q %d new a day, want %q %q %d", got.Name, got.Description, got.Settings.NewCardsPerDay,
				changed.Name, changed.Description, changed.Settings.NewCardsPerDay)
		}
		// A later edit: undoing the redo must not overwrite it.
		e.clock.Advance(time.Minute)
		call(t, cs, contracts.ToolUpdateDeck, map[string]any{"deckId": deck.ID, "description": "the person's own words"}, nil)
		var stale contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{redo.OperationID}}, &stale)
		if stale.Undone != 0 || stale.Skipped != 1 || !strings.Contains(stale.Items[0].Reason, "changed after") {
			t.Fatalf("undo after a later edit: %+v", stale)
		}
		if got := read(); got.Description != "the person's own words" || got.Name != changed.Name {
			t.Errorf("the skipped undo changed the deck: %q %q", got.Name, got.Description)
		}
	})
}

// TestUndoSettingsUpdate, with the official Go SDK client on both
// databases: update_settings' change (timezone and a daily cap) is undone
// by its operation id; undoing the undo redoes it; after a later change
// an undo of the earlier one is skipped with a reason.
func TestUndoSettingsUpdate(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		read := func() contracts.AccountSettings {
			t.Helper()
			var a contracts.AccountSettings
			call(t, cs, contracts.ToolGetSettings, map[string]any{}, &a)
			return a
		}
		before := read()
		e.clock.Advance(time.Minute)
		op := resultOperation(t, call(t, cs, contracts.ToolUpdateSettings, map[string]any{"timezone": "Asia/Tokyo", "reviewsPerDay": 150}, nil))
		if got := read(); got.Timezone != "Asia/Tokyo" || got.ReviewsPerDay != 150 {
			t.Fatalf("the update left %+v", got)
		}
		e.clock.Advance(time.Minute)
		var undo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{op}}, &undo)
		if undo.Undone != 1 || undo.Items[0].Kind != contracts.ChangeSettingsUpdate {
			t.Fatalf("undo of the update: %+v", undo)
		}
		if got := read(); got.Timezone != before.Timezone || got.ReviewsPerDay != before.ReviewsPerDay {
			t.Errorf("after the undo the settings are %s, %d reviews a day; want %s, %d", got.Timezone, got.ReviewsPerDay, before.Timezone, before.ReviewsPerDay)
		}
		e.clock.Advance(time.Minute)
		var redo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{undo.OperationID}}, &redo)
		if got := read(); redo.Undone != 1 || got.Timezone != "Asia/Tokyo" || got.ReviewsPerDay != 150 {
			t.Fatalf("undo of the undo: %+v, settings %+v", redo, got)
		}
		e.clock.Advance(time.Minute)
		call(t, cs, contracts.ToolUpdateSettings, map[string]any{"rolloverHour": 6}, nil)
		var stale contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{redo.OperationID}}, &stale)
		if stale.Undone != 0 || stale.Skipped != 1 || !strings.Contains(stale.Items[0].Reason, "changed after") {
			t.Fatalf("undo after a later change: %+v", stale)
		}
		if got := read(); got.RolloverHour != 6 || got.Timezone != "Asia/Tokyo" {
			t.Errorf("the skipped undo changed the settings: %+v", got)
		}
	})
}

// TestUndoNoteUpdate, with the official Go SDK client on both databases:
// update_notes previewed with dryRun reports the real call's outcomes and
// changes nothing; the real call (a field, the tags, and a new cloze
// deletion that makes a card) is undone by its operation id: the note's
// fields and tags are back, the card it made is in the trash and its
// other cards read as before; undoing the undo redoes; after a later
// edit an undo of the earlier change is skipped.
func TestUndoNoteUpdate(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		var deck contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Geo"}, &deck)
		var added contracts.BulkResult
		call(t, cs, contracts.ToolAddNotes, map[string]any{"deckId": deck.ID, "notes": []any{
			map[string]any{"noteType": "Cloze", "fields": map[string]string{"Text": "{{c1::Ankara}} is the capital of Turkey"}, "tags": []string{"Europe"}},
		}}, &added)
		noteID := added.Items[0].ID
		read := func() contracts.Note {
			t.Helper()
			var n contracts.Note
			call(t, cs, contracts.ToolGetNote, map[string]any{"noteId": noteID}, &n)
			return n
		}
		before := read()
		patch := map[string]any{"updates": []any{map[string]any{"id": noteID, "tags": []string{"Asia", "capitals"},
			"fields": map[string]string{"Text": "{{c1::Ankara}} is the capital of {{c2::Turkey}}"}}, map[string]any{"id": "nope"}}}
		e.clock.Advance(time.Minute)
		dryArgs := map[string]any{"dryRun": true, "updates": patch["updates"]}
		var dry, real contracts.BulkResult
		call(t, cs, contracts.ToolUpdateNotes, dryArgs, &dry)
		if got := read(); !dry.DryRun || len(dry.Changes) == 0 || got.Fields["Text"] != before.Fields["Text"] || len(got.Cards) != 1 {
			t.Fatalf("the dry run reported %+v and left the note %+v", dry, got)
		}
		op := resultOperation(t, call(t, cs, contracts.ToolUpdateNotes, patch, &real))
		if fmt.Sprint(dry.Counts) != fmt.Sprint(real.Counts) || dry.Items[0].Status != real.Items[0].Status || dry.Items[1].Status != real.Items[1].Status {
			t.Errorf("the dry run said %v %+v, the real call %v %+v", dry.Counts, dry.Items, real.Counts, real.Items)
		}
		changed := read()
		if len(changed.Cards) != 2 || strings.Join(changed.Tags, ",") != "Asia,capitals" {
			t.Fatalf("the update left %+v", changed)
		}
		e.clock.Advance(time.Minute)
		var undo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{op}}, &undo)
		if undo.Undone != 2 || undo.Skipped != 0 {
			t.Fatalf("undo of the update: %+v", undo)
		}
		got := read()
		if got.Fields["Text"] != before.Fields["Text"] || strings.Join(got.Tags, ",") != strings.Join(before.Tags, ",") || len(got.Cards) != 1 ||
			got.Cards[0].ID != before.Cards[0].ID || got.Cards[0].Front != before.Cards[0].Front {
			t.Errorf("after the undo the note is %+v, want %+v", got, before)
		}
		e.clock.Advance(time.Minute)
		var redo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{undo.OperationID}}, &redo)
		if got := read(); redo.Undone != 2 || got.Fields["Text"] != changed.Fields["Text"] || len(got.Cards) != 2 {
			t.Fatalf("undo of the undo: %+v, note %+v", redo, got)
		}
		e.clock.Advance(time.Minute)
		call(t, cs, contracts.ToolUpdateNotes, map[string]any{"updates": []any{map[string]any{"id": noteID, "tags": []string{"mine"}}}}, nil)
		var stale contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{redo.OperationID}}, &stale)
		var noteItem *contracts.UndoItem
		for i := range stale.Items {
			if stale.Items[i].Kind == contracts.ChangeNoteUpdate {
				noteItem = &stale.Items[i]
			}
		}
		if noteItem == nil || noteItem.Status != contracts.UndoSkipped || !strings.Contains(noteItem.Reason, "changed after") {
			t.Fatalf("undo after a later edit: %+v", stale)
		}
		if got := read(); strings.Join(got.Tags, ",") != "mine" || got.Fields["Text"] != changed.Fields["Text"] {
			t.Errorf("the skipped undo changed the note: %+v", got)
		}
	})
}
