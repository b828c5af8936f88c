package apiserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/background"
)

// TestPurgeExpired runs the purge on what an agent and a person leave
// behind: it deletes nothing while things are live, deletes every expired
// study session, sign-in link, idempotency key and upload intent once
// their retention is over, counts them in the metrics, and a second run
// finds nothing (every instance runs it; a run after another is a no-op).
func TestPurgeExpired(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		ctx := context.Background()
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		var deck contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Purge"}, &deck)
		batch := map[string]any{"deckId": deck.ID, "idempotencyKey": "batch-1",
			"cards": []map[string]any{{"front": "Q1", "back": "A1"}, {"front": "Q2", "back": "A2"}}}
		call(t, cs, contracts.ToolAddCards, batch, nil)
		var sess contracts.StudySession
		call(t, cs, contracts.ToolStartStudySession, map[string]any{"deckId": deck.ID}, &sess)
		call(t, cs, contracts.ToolRequestMediaUpload, map[string]any{"contentType": "image/png", "bytes": 2048, "filename": "a.png"}, nil)
		if _, _, err := e.app.LoginLink(ctx, testUser); err != nil {
			t.Fatal(err)
		}

		purged, err := e.app.Purge(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for job, n := range purged {
			if n != 0 {
				t.Errorf("the purge deleted %d live rows of %s", n, job)
			}
		}
		if len(purged) < 6 {
			t.Errorf("the purge ran %d jobs (%v), want one per kind of expiring row", len(purged), purged)
		}

		// A day and more later every one of them is over its retention.
		e.clock.Advance(contracts.SessionTTL + background.IdempotencyKeyTTL + background.PurgeGrace)
		purged, err = e.app.Purge(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for job, want := range map[string]int{"study_sessions": 1, "web_sessions": 1, "idempotency_keys": 1, "upload_intents": 1} {
			if purged[job] != want {
				t.Errorf("the purge deleted %d rows of %s, want %d (all: %v)", purged[job], job, want, purged)
			}
		}
		again, err := e.app.Purge(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for job, n := range again {
			if n != 0 {
				t.Errorf("a second purge deleted %d rows of %s", n, job)
			}
		}

		// The session handle is gone, and the forgotten idempotency key
		// no longer replays: the batch is deduplicated by its content.
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: contracts.ToolSubmitReview, Arguments: map[string]any{"sessionId": sess.ID,
			"cardId": sess.Current.CardID, "position": sess.Current.Position, "rating": "good"}})
		if err != nil || !res.IsError || !strings.Contains(resultText(res), "Not found") {
			t.Errorf("submit_review on a purged session: %v %s, want a not-found tool error", err, resultText(res))
		}
		var again2 contracts.BulkResult
		call(t, cs, contracts.ToolAddCards, batch, &again2)
		if again2.Replayed || again2.Counts[string(contracts.OutcomeDuplicate)] != 2 {
			t.Errorf("the batch resent after its key was purged: %+v, want 2 duplicates", again2)
		}

		resp, body := e.request(t, http.MethodGet, "/metrics", nil, nil)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `takhtabush_purged_rows_total{job="study_sessions"} 1`) {
			t.Errorf("/metrics: %d, want the purged study session counted:\n%s", resp.StatusCode, grepLines(string(body), "purge"))
		}
	})
}

// grepLines returns the lines of s containing sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
