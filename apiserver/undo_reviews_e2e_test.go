package apiserver_test

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestUndoReviewsThroughMCP, with the official Go SDK client on both
// databases (issue 26 §2.2 and Done-when): an agent's submit_review calls
// are undone through undo_changes by their operation ids: the cards get
// their previous schedules back and get_stats reads exactly as before the
// reviews, while the day's new-card slots the reviews used stay used (the
// snapshot's newToday does not come back). Undoing the undo applies the
// reviews again (stats as after them), and undoing that takes them back
// again. A review followed by an edit of its card is skipped with a
// reason; "everything this key did since T" merges the key's reviews with
// its change records, newest first; a key without study:write has its
// reviews skipped with a reason; after 30 days a review is no longer
// taken back, as change records are purged by then.
func TestUndoReviewsThroughMCP(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e, cs, _ := agentEnv(t, db)
		deck, ids := agentDeck(t, cs, "Reviews to undo", 6)
		call(t, cs, contracts.ToolUpdateDeck, map[string]any{"deckId": deck.ID, "newCardsPerDay": 3}, nil)

		newToday := func() int {
			t.Helper()
			var snap contracts.StudySnapshot
			call(t, cs, contracts.ToolGetStudySnapshot, map[string]any{"deckId": deck.ID}, &snap)
			return snap.NewToday
		}
		sameSchedules := func(what string, got, want map[string]string) {
			t.Helper()
			for id, w := range want {
				if got[id] != w {
					t.Errorf("%s: card %s's schedule is %s, want %s", what, id, got[id], w)
				}
			}
		}
		review := func(c *contracts.StudyCard, sessionID string, rating contracts.Rating) (contracts.ReviewResult, string) {
			t.Helper()
			if c == nil {
				t.Fatal("no card to review")
			}
			e.clock.Advance(10 * time.Second)
			var r contracts.ReviewResult
			call(t, cs, contracts.ToolSubmitReview, map[string]any{"sessionId": sessionID, "cardId": c.CardID,
				"position": c.Position, "rating": rating, "durationMs": 4000}, &r)
			return r, lastOperation(t, e, contracts.ToolSubmitReview)
		}

		statsBefore, schedBefore := deckStats(t, cs, deck.ID), deckSchedules(t, cs, deck.ID)
		if n := newToday(); n != 3 {
			t.Fatalf("newToday before any review = %d, want the deck's limit 3", n)
		}
		var sess contracts.StudySession
		call(t, cs, contracts.ToolStartStudySession, map[string]any{"deckId": deck.ID}, &sess)
		r1, op1 := review(sess.Current, sess.ID, contracts.RatingGood)
		r2, op2 := review(r1.Next, sess.ID, contracts.RatingAgain)
		if r1.CardID == r2.CardID {
			t.Fatalf("the session served %s twice in a row", r1.CardID)
		}
		statsAfter, schedAfter := deckStats(t, cs, deck.ID), deckSchedules(t, cs, deck.ID)
		if statsAfter == statsBefore {
			t.Fatalf("get_stats did not change with two reviews: %s", statsAfter)
		}
		if n := newToday(); n != 1 {
			t.Fatalf("newToday after two new cards = %d, want 1", n)
		}

		// Undo both reviews by their operation ids.
		var undo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{op1, op2}}, &undo)
		if undo.Undone != 2 || undo.Skipped != 0 || undo.OperationID == "" || len(undo.Items) != 2 {
			t.Fatalf("undo of two reviews: %+v", undo)
		}
		if it := undo.Items; it[0].Kind != contracts.ChangeReview || it[0].ID != r2.CardID || it[1].ID != r1.CardID {
			t.Errorf("undo items %+v, want the reviews of %s then %s (newest first)", it, r2.CardID, r1.CardID)
		}
		if got := deckStats(t, cs, deck.ID); got != statsBefore {
			t.Errorf("get_stats after the undo:\n%s\nwant as before the reviews:\n%s", got, statsBefore)
		}
		sameSchedules("after the undo", deckSchedules(t, cs, deck.ID), schedBefore)
		if n := newToday(); n != 1 {
			t.Errorf("newToday after the undo = %d, want still 1: an undo gives back no daily-limit slot", n)
		}
		person := contracts.WithPrincipal(t.Context(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialLocal})
		if hist, err := e.app.Services().Cards.CardHistory(person, r1.CardID); err != nil || len(hist) != 0 {
			t.Errorf("card %s's history after the undo: %+v, %v; want no review", r1.CardID, hist, err)
		}
		if studied, err := e.app.Services().Study.Studied(person, sess.ID); err != nil || len(studied) != 0 {
			t.Errorf("the session's ratings after the undo: %+v, %v; want none (the session itself is not reopened)", studied, err)
		}
		var again contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{op1, op2}}, &again)
		if again.Undone != 0 || again.Skipped != 0 {
			t.Errorf("a second undo of the same reviews: %+v, want nothing left", again)
		}

		// Undoing the undo applies the reviews again; undoing that takes
		// them back once more.
		var redo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{undo.OperationID}}, &redo)
		if redo.Undone != 2 || redo.Skipped != 0 {
			t.Fatalf("undo of the undo: %+v", redo)
		}
		if got := deckStats(t, cs, deck.ID); got != statsAfter {
			t.Errorf("get_stats after the redo:\n%s\nwant as after the reviews:\n%s", got, statsAfter)
		}
		sameSchedules("after the redo", deckSchedules(t, cs, deck.ID), schedAfter)
		var reundo contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{redo.OperationID}}, &reundo)
		if reundo.Undone != 2 {
			t.Fatalf("undo of the redo: %+v", reundo)
		}
		if got := deckStats(t, cs, deck.ID); got != statsBefore {
			t.Errorf("get_stats after undoing the redo:\n%s\nwant as before the reviews:\n%s", got, statsBefore)
		}
		sameSchedules("after undoing the redo", deckSchedules(t, cs, deck.ID), schedBefore)

		// A review whose card was edited after it is skipped, with a reason.
		var s2 contracts.StudySession
		call(t, cs, contracts.ToolStartStudySession, map[string]any{"deckId": deck.ID}, &s2)
		r3, op3 := review(s2.Current, s2.ID, contracts.RatingAgain)
		call(t, cs, contracts.ToolUpdateCards, map[string]any{"updates": []map[string]any{{"id": r3.CardID, "back": "edited after the review"}}}, nil)
		edited := deckSchedules(t, cs, deck.ID)[r3.CardID]
		var skipped contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{op3}}, &skipped)
		if skipped.Undone != 0 || skipped.Skipped != 1 || !strings.Contains(skipped.Items[0].Reason, "changed after this review") {
			t.Fatalf("undo of a review edited since: %+v, want it skipped with a reason", skipped)
		}
		if got := deckSchedules(t, cs, deck.ID)[r3.CardID]; got != edited {
			t.Errorf("the skipped review's card changed: %s, want %s", got, edited)
		}

		// Everything this key did since T: its review and its change
		// record, newest first.
		e.clock.Advance(2 * time.Second)
		since := e.clock.Now().Truncate(time.Second)
		e.clock.Advance(time.Second)
		call(t, cs, contracts.ToolUpdateCards, map[string]any{"updates": []map[string]any{{"id": ids[5], "tags": []string{"late"}}}}, nil)
		e.clock.Advance(10 * time.Minute) // the again's learning step is due
		var cur contracts.StudySession
		call(t, cs, contracts.ToolStartStudySession, map[string]any{"deckId": deck.ID}, &cur)
		if cur.Current == nil || cur.Current.CardID != r3.CardID {
			t.Fatalf("a session after the step serves %+v, want the learning step of %s", cur.Current, r3.CardID)
		}
		r4, op4 := review(cur.Current, cur.ID, contracts.RatingGood)
		var all contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"since": since.Format(time.RFC3339)}, &all)
		if all.Undone != 2 || len(all.Items) != 2 || all.Items[0].Kind != contracts.ChangeReview || all.Items[0].ID != r4.CardID ||
			all.Items[1].Kind != contracts.ChangeCardUpdate || all.Items[1].ID != ids[5] {
			t.Fatalf("undo of everything since %s: %+v, want the review of %s then the card.update of %s", since, all, r4.CardID, ids[5])
		}
		if got := deckSchedules(t, cs, deck.ID)[r3.CardID]; got != edited {
			t.Errorf("card %s after undoing its second review: %s, want %s", r3.CardID, got, edited)
		}

		// A key without study:write cannot take reviews back.
		var redone contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{all.OperationID}}, &redone)
		if redone.Undone != 2 {
			t.Fatalf("redo of the since-undo: %+v", redone)
		}
		weak, _ := e.trustedKey(t, contracts.ScopeDecksRead, contracts.ScopeDecksWrite)
		wcs := connect(t, e.base+"/mcp", bearer(weak), "")
		var refused contracts.UndoChangesResult
		call(t, wcs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{op4}}, &refused)
		if refused.Undone != 0 || refused.Skipped != 1 || !strings.Contains(refused.Items[0].Reason, "study:write") {
			t.Errorf("undo of a review without study:write: %+v, want it skipped naming the scope", refused)
		}
		// Like change records, reviews can be taken back for 30 days; the
		// audit page offers Undo within them and says why not after.
		op4Undo := `name="operation" value="` + op4 + `"`
		auditPage := func() string {
			t.Helper()
			cookies, _ := e.signIn(t, testUser)
			resp, page := e.request(t, "GET", "/audit?tool="+contracts.ToolSubmitReview, nil, nil, cookies...)
			if resp.StatusCode != 200 {
				t.Fatalf("GET /audit: %d", resp.StatusCode)
			}
			return string(page)
		}
		if page := auditPage(); !strings.Contains(page, op4Undo) || strings.Contains(page, "Too old to undo") {
			t.Errorf("the audit page of a fresh review: Undo for %s %v, says too old %v; want Undo only", op4,
				strings.Contains(page, op4Undo), strings.Contains(page, "Too old to undo"))
		}
		e.clock.Advance(contracts.ChangeTTL + time.Hour)
		if page := auditPage(); strings.Contains(page, op4Undo) || !strings.Contains(page, "Too old to undo: reviews can be taken back for 30 days.") {
			t.Errorf("the audit page of a review 30 days and an hour old: Undo for %s %v, says too old %v; want no Undo, and why",
				op4, strings.Contains(page, op4Undo), strings.Contains(page, "Too old to undo"))
		}
		var late contracts.UndoChangesResult
		call(t, cs, contracts.ToolUndoChanges, map[string]any{"operationIds": []string{op4}}, &late)
		if late.Undone != 0 || len(late.Items) != 0 {
			t.Errorf("undo of a review older than 30 days: %+v, want nothing to undo", late)
		}
		res, err := wcs.CallTool(t.Context(), &mcp.CallToolParams{Name: contracts.ToolUndoChanges, Arguments: map[string]any{"operationIds": []string{op4}, "since": "2026-01-01"}})
		if err != nil || !res.IsError {
			t.Errorf("undo_changes with both operationIds and since: %v %+v, want an isError result", err, res)
		}
	})
}

// TestBrowserUndoReviewFromAuditPage, on both databases: an agent
// (official Go SDK client) rates a card; the audit page in chromium offers
// Undo on that submit_review row, and pressing it puts the card's schedule
// and get_stats back as before the review; the row then says undone, and
// the undo's own row redoes the review (stats as after it).
func TestBrowserUndoReviewFromAuditPage(t *testing.T) {
	chromium(t)
	forEachDB(t, func(t *testing.T, db string) {
		e, cs, _ := agentEnv(t, db)
		deck, _ := agentDeck(t, cs, "Reviewed by an agent", 3)
		statsBefore := deckStats(t, cs, deck.ID)
		var sess contracts.StudySession
		call(t, cs, contracts.ToolStartStudySession, map[string]any{"deckId": deck.ID}, &sess)
		cardID, schedBefore := sess.Current.CardID, deckSchedules(t, cs, deck.ID)[sess.Current.CardID]
		e.clock.Advance(time.Minute)
		call(t, cs, contracts.ToolSubmitReview, map[string]any{"sessionId": sess.ID, "cardId": cardID,
			"position": sess.Current.Position, "rating": "good", "durationMs": 3000}, nil)
		op := lastOperation(t, e, contracts.ToolSubmitReview)
		statsAfter, schedAfter := deckStats(t, cs, deck.ID), deckSchedules(t, cs, deck.ID)[cardID]
		if statsAfter == statsBefore {
			t.Fatal("get_stats did not change with the review")
		}

		b := auditBrowser(t, e)
		b.pressUndo(b.undoButton(op, "the submit_review row"), "1 item")
		b.look("audit-undo-review")
		if got := deckStats(t, cs, deck.ID); got != statsBefore {
			t.Errorf("get_stats after the page's undo:\n%s\nwant as before the review:\n%s", got, statsBefore)
		}
		if got := deckSchedules(t, cs, deck.ID)[cardID]; got != schedBefore {
			t.Errorf("card schedule after the page's undo: %s, want %s", got, schedBefore)
		}
		b.submit(b.undoButton(lastOperation(t, e, contracts.ToolUndoChanges), "the undo's own row"))
		if got := deckStats(t, cs, deck.ID); got != statsAfter {
			t.Errorf("get_stats after undoing the undo:\n%s\nwant as after the review:\n%s", got, statsAfter)
		}
		if got := deckSchedules(t, cs, deck.ID)[cardID]; got != schedAfter {
			t.Errorf("card schedule after undoing the undo: %s, want %s", got, schedAfter)
		}
		b.checkClean("audit undo review")
	})
}
