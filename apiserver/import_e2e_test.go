package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
)

// A large text export through the official Go SDK client: request an
// upload, PUT the file, import_package starts a job and returns at once
// (with a progressToken too), get_job reports it succeeded with its
// report, and list_decks and search_cards show the cards; the submission
// and the import's end are both in the audit trail.
func TestImportPackageOverMCP(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		key, _ := e.key(t, contracts.ScopeDecksRead, contracts.ScopeDecksWrite, contracts.ScopeMediaWrite)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		var deck contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Vokabeln"}, &deck)
		var text strings.Builder
		text.WriteString("#separator:tab\n#html:true\n#deck column:3\n")
		for i := range 1500 {
			fmt.Fprintf(&text, "<b>Wort %d</b>\tword %d\tVokabeln::Teil %d\n", i, i, i%2+1)
		}
		in := intent(t, cs, "text/tab-separated-values", text.Len(), "vokabeln.txt")
		if code, body := e.put(t, in, text.String(), nil); code != http.StatusNoContent && code != http.StatusOK {
			t.Fatalf("PUT: %d %s", code, body)
		}

		var job contracts.Job
		started := time.Now()
		call(t, cs, contracts.ToolImportPackage, map[string]any{"uploadId": in.MediaID, "deckId": deck.ID}, &job)
		if job.Kind != contracts.JobKindImportPackage || job.Status.Final() || time.Since(started) > 10*time.Second {
			t.Fatalf("import_package answered %+v after %s; want the queued job at once", job, time.Since(started))
		}
		deadline := time.Now().Add(2 * time.Minute)
		for !job.Status.Final() && time.Now().Before(deadline) {
			time.Sleep(300 * time.Millisecond)
			call(t, cs, contracts.ToolGetJob, map[string]any{"jobId": job.ID}, &job)
		}
		if job.Status != contracts.JobSucceeded {
			t.Fatalf("job %+v", job)
		}
		var rep contracts.ImportReport
		if err := json.Unmarshal(job.Result, &rep); err != nil || rep.CardsCreated != 1500 || len(rep.DecksCreated) != 2 {
			t.Fatalf("report %+v %v", rep, err)
		}

		var decks contracts.DeckPage
		call(t, cs, contracts.ToolListDecks, map[string]any{}, &decks)
		names := map[string]int{}
		for _, d := range decks.Items {
			names[d.Name] = d.Counts.Total
		}
		if names["Vokabeln::Teil 1"] != 750 || names["Vokabeln::Teil 2"] != 750 {
			t.Errorf("decks after the import: %v", names)
		}
		var found contracts.CardPage
		call(t, cs, contracts.ToolSearchCards, map[string]any{"query": "Wort 1499"}, &found)
		if len(found.Items) != 1 || found.Items[0].Front != "<b>Wort 1499</b>" {
			t.Errorf("search: %+v", found.Items)
		}

		// The upload is released: its id is no longer an upload.
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: contracts.ToolImportPackage, Arguments: map[string]any{"uploadId": in.MediaID}})
		if err != nil || !res.IsError || !strings.Contains(resultText(res), "not found") {
			t.Errorf("importing a released upload again: %v %+v", err, res)
		}
		u, _, err := e.app.EnsureUser(context.Background(), testUser, "")
		if err != nil {
			t.Fatal(err)
		}
		uctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: u.ID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
		audit, err := e.app.Services().Audit.List(uctx, contracts.AuditFilter{}, "", 50)
		if err != nil {
			t.Fatal(err)
		}
		tools := map[string]contracts.AuditOutcome{}
		for _, ev := range audit.Items {
			if _, seen := tools[ev.Tool]; !seen {
				tools[ev.Tool] = ev.Outcome
			}
		}
		if tools[contracts.AuditImportDone] != contracts.AuditOK || tools[contracts.ToolImportPackage] == "" {
			t.Errorf("audit trail %v; want the submission and the import's end", tools)
		}
	})
}
