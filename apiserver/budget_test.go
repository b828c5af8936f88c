package apiserver_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/takhtabush/takhtabush/adapters/sqlcount"
	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// budget is the most statements and transactions one call of a tool may
// run on the database, authentication (key lookup, exposure) included.
type budget struct{ statements, txs int64 }

// statementBudgets states each tool's budget (issue 12 §5): a change that
// makes a tool run more statements fails TestStatementBudgets and must
// either be fixed or raise the budget here, in review. The account holds
// one deck of a few cards; counts grow with the request (add_cards of 10
// cards), never with the account.
var statementBudgets = map[string]budget{
	contracts.ToolListDecks:          {2, 0}, // the key with the exposure settings; the decks with their maintained counts in one read
	contracts.ToolGetDeck:            {2, 0},
	contracts.ToolSearchCards:        {4, 0},
	contracts.ToolGetStudySnapshot:   {10, 1}, // + the account settings (learner's day); + whether the deck is a filtered deck (a primary-key read, as start_study_session's: a filtered deck's snapshot is what its session serves, every card it holds): 9 -> 10
	contracts.ToolGetStats:           {7, 0},  // + the account settings; + the account's data version (answers are remembered per learner's day and version: a repeated call runs 3)
	contracts.ToolGetStudyPlan:       {13, 1}, // + the account settings; + the account's data version (remembered as get_stats); + every deck's settings and counts (two reads, whatever the number of decks: each deck is simulated under its own preset); + day 0 built by the session's own queue function in one read transaction (issue 27: the settings, the decks, today's counts, and learning, review and new cards of the deck: six reads) so the plan's day 0 is what a session serves
	contracts.ToolGetRetentionAdvice: {8, 0},  // issue 28 §3: the key; the account's data version and settings (the answer is remembered per learner's day and version, as get_study_plan's); the settings again with the deck's limits, the deck with its preset, its scheduled cards' states, its phase counts, the mean review time of the last 30 days; the simulations run no statement
	contracts.ToolCreateDeck:         {7, 1},  // the audit row under a savepoint of the mutation's transaction (one commit; the service's own work joins it without one); + the deck's own preset (and its savepoint); + the deck cap (issue 10 §2); + the deck.add change record (issue 26 §2.1: undo moves the new deck to the trash): 6 -> 7
	contracts.ToolUpdateDeck:         {8, 1},
	contracts.ToolAddCards:           {8, 1},  // + the change records of the cards added (issue 26 §2.4); the insert with its check of the deck (read first only for an idempotency key) (duplicates skipped by the insert, looked up only when there are some); + the daily write counter and card cap (one upsert, issue 10 §2), + the account's day on its first counted write in 5 minutes (cached per instance)
	contracts.ToolAddNotes:           {12, 1}, // the deck; the duplicates' hashes; the daily write counter and card cap (one upsert); the notes' insert (under a savepoint) and the cards' insert with its check of the deck; + the change records of the cards added, one statement (issue 26 §2.1: undo moves them to the trash): 11 -> 12
	contracts.ToolUpdateCards:        {10, 1}, // + its change records, one statement (issue 26 §2.4)
	contracts.ToolImportCards:        {8, 1},  // + the change records of the cards added (issue 26 §2.4); + the card and deck caps (one statement; imports are not in the daily quota)
	contracts.ToolStartStudySession:  {16, 1}, // + settings, today's counts, the learning query; + whether the deck is a filtered deck (issue 28 §4: its session takes all its cards), a primary-key read
	contracts.ToolSubmitReview:       {12, 1}, // one read of session, item, card, deck and settings; the daily write counter (issue 10 §2); the deck lock and today's count (daily limits across sessions); item, card, log, requeue; the next card with the progress in one read. A rating that picks an interval in a fuzz range (a review card, a graduation) reads the deck's due counts over it instead of a requeue (issue 28 §2 load balancing): the same count
	contracts.ToolRenderStudySession: {17, 1}, // as start_study_session (with its filtered-deck read); + the deck's due counts over the rating previews' fuzz ranges (issue 28 §2: a new card's Easy graduates, and the preview shows the balanced day the review will give)
	contracts.ToolRequestMediaUpload: {7, 1},  // + the account's media lock, its usage (quota, open intents), their savepoint, the daily write counter (issue 10 §2)
	contracts.ToolDeleteCards:        {8, 1},  // + the copies of the cards and their reviews into the trash (issue 10 §3); + the change records (issue 26 §2.4)
	contracts.ToolDeleteDeck:         {12, 1}, // + the change record (issue 26 §2.4); + the cards a filtered deck holds sent home first (issue 28 §4: a filtered deck's own, or this deck's away in one), one update; + its preset, when no other deck uses it, + the copies of the deck, its cards and their reviews into the trash
	contracts.ToolListTrash:          {2, 0},
	contracts.ToolRestoreItems:       {16, 1}, // one card: holdings, the trashed items, its deck, a duplicate, the copies back under a savepoint
}

// TestStatementBudgets calls every tool once through /mcp with an API key
// (after a warm-up call, so the key's last-use write of the first request
// is not counted) and fails when one runs more statements or
// transactions than its budget.
func TestStatementBudgets(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		var counter sqlcount.Counter
		e := newEnv(t, db, func(c *apiserver.Config) {
			c.StatementCounter = &counter
			c.JobConcurrency = -1 // an idle job runner's polls would count against every call
		})
		key, _ := e.trustedKey(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		call(t, cs, contracts.ToolListDecks, map[string]any{}, nil) // the key's first use writes its last-use time

		measured := map[string]sqlcount.Counts{}
		ran := map[string][]string{} // the statements of each call, to show when a budget is exceeded
		var mu sync.Mutex
		var current []string
		counter.Trace(func(q string) {
			mu.Lock()
			current = append(current, strings.Join(strings.Fields(q), " "))
			mu.Unlock()
		})
		run := func(tool string, args map[string]any, out any) {
			t.Helper()
			mu.Lock()
			current = nil
			mu.Unlock()
			before := counter.Read()
			call(t, cs, tool, args, out)
			measured[tool] = counter.Read().Sub(before)
			mu.Lock()
			ran[tool] = current
			mu.Unlock()
		}
		var deck contracts.Deck
		run(contracts.ToolCreateDeck, map[string]any{"name": "Budget"}, &deck)
		cards := make([]map[string]any, 10)
		for i := range cards {
			cards[i] = map[string]any{"front": fmt.Sprintf("Question %d", i), "back": "Answer", "tags": []string{"t"}}
		}
		var added contracts.BulkResult
		run(contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": cards}, &added)
		run(contracts.ToolListDecks, map[string]any{}, nil)
		run(contracts.ToolGetDeck, map[string]any{"deckId": deck.ID}, nil)
		run(contracts.ToolSearchCards, map[string]any{"query": "question", "deckId": deck.ID}, nil)
		run(contracts.ToolGetStudySnapshot, map[string]any{"deckId": deck.ID}, nil)
		run(contracts.ToolGetStats, map[string]any{"deckId": deck.ID, "days": 7}, nil)
		run(contracts.ToolGetStudyPlan, map[string]any{"days": 14}, nil)
		run(contracts.ToolGetRetentionAdvice, map[string]any{"deckId": deck.ID}, nil)
		run(contracts.ToolUpdateDeck, map[string]any{"deckId": deck.ID, "description": "renamed"}, nil)
		run(contracts.ToolUpdateCards, map[string]any{"updates": []map[string]any{{"id": added.Items[0].ID, "back": "Changed"}}}, nil)
		run(contracts.ToolImportCards, map[string]any{"deckId": deck.ID, "text": "front,back\nImported,Card\n", "format": "csv"}, nil)
		var sess contracts.StudySession
		run(contracts.ToolStartStudySession, map[string]any{"deckId": deck.ID}, &sess)
		if sess.Current == nil {
			t.Fatal("the session has no current card")
		}
		run(contracts.ToolSubmitReview, map[string]any{"sessionId": sess.ID, "cardId": sess.Current.CardID,
			"position": sess.Current.Position, "rating": "good", "durationMs": 3000}, nil)
		run(contracts.ToolRenderStudySession, map[string]any{"deckId": deck.ID}, nil)
		// after the study calls: a deck with notes makes a session read their siblings
		run(contracts.ToolAddNotes, map[string]any{"deckId": deck.ID, "notes": []map[string]any{
			{"noteType": "Cloze", "fields": map[string]any{"Text": "{{c1::Ankara}} is the capital of {{c2::Turkey}}"}}}}, nil)
		run(contracts.ToolRequestMediaUpload, map[string]any{"contentType": "image/png", "bytes": 2048, "filename": "a.png"}, nil)
		run(contracts.ToolDeleteCards, map[string]any{"cardIds": []string{added.Items[1].ID}}, nil)
		run(contracts.ToolListTrash, map[string]any{}, nil)
		run(contracts.ToolRestoreItems, map[string]any{"cardIds": []string{added.Items[1].ID}}, nil)
		run(contracts.ToolDeleteDeck, map[string]any{"deckId": deck.ID}, nil)

		var report strings.Builder
		for _, d := range contracts.Catalog() {
			got, ok := measured[d.Name]
			b, budgeted := statementBudgets[d.Name]
			switch {
			case !ok:
				fmt.Fprintf(&report, "  %-22s not measured by this test\n", d.Name)
				continue
			case !budgeted:
				t.Errorf("%s ran %d statements in %d transactions and has no budget: state one in statementBudgets", d.Name, got.Statements, got.Transactions)
			case got.Statements > b.statements || got.Transactions > b.txs:
				t.Errorf("%s ran %d statements in %d transactions; its budget is %d in %d:\n  %s", d.Name, got.Statements, got.Transactions,
					b.statements, b.txs, strings.Join(ran[d.Name], "\n  "))
			}
			fmt.Fprintf(&report, "  %-22s %3d statements, %d transactions (budget %d, %d)\n", d.Name, got.Statements, got.Transactions, b.statements, b.txs)
			if testing.Verbose() {
				fmt.Fprintf(&report, "    %s\n", strings.Join(ran[d.Name], "\n    "))
			}
		}
		t.Logf("statements per call:\n%s", report.String())
	})
}
