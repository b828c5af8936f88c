package apiserver_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// catalogNames are the tools a 2026-07-28 client without the MCP Apps
// extension sees with every scope: all but the app-only ones.
func catalogNames() []string {
	var names []string
	for _, d := range contracts.Catalog() {
		if !isAppOnly(d) {
			names = append(names, d.Name)
		}
	}
	slices.Sort(names)
	return names
}

// isAppOnly reports whether a tool is for MCP Apps widgets only.
func isAppOnly(d contracts.ToolDef) bool {
	ui, _ := d.Meta["ui"].(map[string]any)
	v, _ := ui["visibility"].([]string)
	return slices.Equal(v, []string{"app"})
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// A key with every scope runs the whole study loop through the official
// SDK client, and every mutation (and only mutations) leaves an audit row
// naming the key.
func TestFullScopeKeyStudyLoop(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, keyID := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")

		if got, want := sorted(toolNames(t, cs)), catalogNames(); !slices.Equal(got, want) {
			t.Fatalf("tools/list = %v, want the whole catalog %v", got, want)
		}

		var deck contracts.Deck
		call(t, cs, "create_deck", map[string]any{"name": "Capitals"}, &deck)

		var bulk contracts.BulkResult
		call(t, cs, "add_cards", map[string]any{"deckId": deck.ID, "cards": []map[string]any{
			{"front": "France", "back": "Paris", "tags": []string{"europe"}},
			{"front": "Japan", "back": "Tokyo"},
			{"front": "Peru", "back": "Lima"},
			{"front": "France", "back": "Paris"},    // duplicate of the first
			{"front": "   ", "back": "blank front"}, // invalid
		}}, &bulk)
		if len(bulk.Items) != 5 {
			t.Fatalf("add_cards returned %d outcomes, want 5: %+v", len(bulk.Items), bulk)
		}
		for i := 0; i < 3; i++ {
			if bulk.Items[i].Status != contracts.OutcomeCreated || bulk.Items[i].ID == "" {
				t.Errorf("item %d = %+v, want created", i, bulk.Items[i])
			}
		}
		if it := bulk.Items[3]; it.Status != contracts.OutcomeDuplicate || it.ExistingID != bulk.Items[0].ID {
			t.Errorf("item 3 = %+v, want duplicate of %s", it, bulk.Items[0].ID)
		}
		if it := bulk.Items[4]; it.Status != contracts.OutcomeInvalid || it.Reason == "" {
			t.Errorf("item 4 = %+v, want invalid with a reason", it)
		}

		var found contracts.CardPage
		call(t, cs, "search_cards", map[string]any{"query": "tokyo"}, &found)
		if len(found.Items) != 1 || found.Items[0].Front != "Japan" {
			t.Fatalf("search_cards tokyo = %+v, want the Japan card", found.Items)
		}

		var sess contracts.StudySession
		call(t, cs, "start_study_session", map[string]any{"deckId": deck.ID}, &sess)
		if sess.Remaining != 3 || sess.Current == nil {
			t.Fatalf("session = %+v, want 3 cards and a current one", sess)
		}
		if want := e.base + "/study/" + sess.ID; sess.StudyURL != want {
			t.Errorf("studyUrl = %q, want %q", sess.StudyURL, want)
		}
		reviews := 0
		for cur := sess.Current; cur != nil; {
			if reviews++; reviews > 50 {
				t.Fatal("the queue never empties")
			}
			var rr contracts.ReviewResult
			call(t, cs, "submit_review", map[string]any{"sessionId": sess.ID, "cardId": cur.CardID, "position": cur.Position, "rating": "easy"}, &rr)
			if rr.Done != (rr.Next == nil) {
				t.Fatalf("review result done=%v next=%v", rr.Done, rr.Next)
			}
			cur = rr.Next
		}

		var stats contracts.Stats
		call(t, cs, "get_stats", map[string]any{"deckId": deck.ID}, &stats)
		if stats.TotalReviews != reviews || stats.CardStates.New != 0 {
			t.Errorf("stats = %+v, want %d reviews and no new cards", stats, reviews)
		}
		var plan contracts.StudyPlan
		call(t, cs, "get_study_plan", map[string]any{"deckId": deck.ID, "days": 7, "minutesPerDay": 10}, &plan)
		if len(plan.Forecast) != 7 {
			t.Errorf("plan forecast has %d days, want 7", len(plan.Forecast))
		}
		var decks contracts.DeckPage
		call(t, cs, "list_decks", map[string]any{}, &decks)

		// The audit trail: one row per mutation, newest first, none for reads.
		events, err := e.app.AuditTrail(context.Background(), testUser, 0)
		if err != nil {
			t.Fatal(err)
		}
		var tools []string
		for i := len(events) - 1; i >= 0; i-- {
			ev := events[i]
			tools = append(tools, ev.Tool)
			if ev.CredentialKind != contracts.CredentialAPIKey || ev.CredentialID != keyID {
				t.Errorf("%s row credential = %s/%s, want api_key/%s", ev.Tool, ev.CredentialKind, ev.CredentialID, keyID)
			}
			if ev.Outcome != contracts.AuditOK || ev.RequestID == "" || len(ev.AffectedIDs) == 0 {
				t.Errorf("%s row = %+v, want ok with a request id and affected ids", ev.Tool, ev)
			}
			if len(ev.InputSummary) > contracts.MaxAuditSummaryBytes {
				t.Errorf("%s summary is %d bytes", ev.Tool, len(ev.InputSummary))
			}
			if strings.Contains(string(ev.InputSummary), key) {
				t.Errorf("%s summary carries the key", ev.Tool)
			}
		}
		want := []string{"create_deck", "add_cards", "start_study_session"}
		for range reviews {
			want = append(want, "submit_review")
		}
		if !slices.Equal(tools, want) {
			t.Errorf("audited tools = %v, want %v", tools, want)
		}
	})
}

// A 1000-card add_cards leaves an audit row whose summary stays within
// the 2 KiB bound.
func TestAuditSummaryBoundedForLargeBatch(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, keyID := e.key(t, contracts.ScopeDecksWrite)
	cs := connect(t, e.base+"/mcp", bearer(key), "")
	var deck contracts.Deck
	call(t, cs, "create_deck", map[string]any{"name": "Big"}, &deck)
	cards := make([]map[string]any, contracts.MaxBulkItems)
	for i := range cards {
		cards[i] = map[string]any{"front": fmt.Sprintf("question %d %s", i, strings.Repeat("x", 300)), "back": fmt.Sprintf("answer %d", i)}
	}
	var bulk contracts.BulkResult
	call(t, cs, "add_cards", map[string]any{"deckId": deck.ID, "cards": cards}, &bulk)
	if bulk.Counts["created"] != contracts.MaxBulkItems {
		t.Fatalf("created %v, want %d", bulk.Counts, contracts.MaxBulkItems)
	}
	events, err := e.app.AuditTrail(context.Background(), testUser, 1)
	if err != nil || len(events) != 1 {
		t.Fatalf("audit: %v %v", events, err)
	}
	ev := events[0]
	if ev.Tool != "add_cards" || ev.CredentialID != keyID {
		t.Fatalf("newest row = %+v", ev)
	}
	if n := len(ev.InputSummary); n == 0 || n > contracts.MaxAuditSummaryBytes {
		t.Fatalf("summary is %d bytes, want 1..%d", n, contracts.MaxAuditSummaryBytes)
	}
}
