package apiserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// An .apkg goes the whole way through /mcp, and its import runs as an MCP
// task that is the import job itself: one user exports a deck
// (export_deck, a plain GET of the link), another uploads the package and
// calls import_package declaring the tasks extension; the answer is a task
// whose id is the job's, tasks/get follows it to a completed result that
// is the finished job with its report, get_job reads the same job, and the
// cards are in the importer's account. A refused call is answered at once.
func TestImportPackageAsTaskOverMCP(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		scopes := []contracts.Scope{contracts.ScopeDecksRead, contracts.ScopeDecksWrite, contracts.ScopeMediaWrite}
		aliceKey, _ := e.key(t, scopes...)
		alice := connect(t, e.base+"/mcp", bearer(aliceKey), "")
		var deck contracts.Deck
		call(t, alice, contracts.ToolCreateDeck, map[string]any{"name": "Hafen"}, &deck)
		call(t, alice, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": []map[string]any{
			{"front": "der Hafen", "back": "the harbour"}, {"front": "das Schiff", "back": "the ship"}, {"front": "die Möwe", "back": "the gull"}}}, nil)
		var link contracts.ExportLink
		call(t, alice, contracts.ToolExportDeck, map[string]any{"deckId": deck.ID}, &link)
		resp, err := http.Get(link.DownloadURL)
		if err != nil {
			t.Fatal(err)
		}
		pkg, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || len(pkg) < 100 {
			t.Fatalf("GET the export: %d, %d bytes, %v", resp.StatusCode, len(pkg), err)
		}

		if _, _, err := e.app.EnsureUser(context.Background(), "bob@example.com", ""); err != nil {
			t.Fatal(err)
		}
		bobKey, err := e.app.CreateKey(context.Background(), "bob@example.com", "bob", scopes, 0)
		if err != nil {
			t.Fatal(err)
		}
		bob := connect(t, e.base+"/mcp", bearer(bobKey.Secret), "")
		in := intent(t, bob, "application/zip", len(pkg), "hafen.apkg")
		if code, body := e.put(t, in, string(pkg), nil); code != http.StatusNoContent && code != http.StatusOK {
			t.Fatalf("PUT: %d %s", code, body)
		}

		c := &modernClient{t: t, endpoint: e.base + "/mcp", key: bobKey.Secret, tasks: true}
		created := c.mustCall("tools/call", map[string]any{"name": contracts.ToolImportPackage, "arguments": map[string]any{"uploadId": in.MediaID}})
		taskID, _ := created["taskId"].(string)
		if created["resultType"] != "task" || taskID == "" || created["status"] != "working" || created["content"] != nil {
			t.Fatalf("import_package as a task = %v", created)
		}
		var done map[string]any
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
			done = c.mustCall("tasks/get", map[string]any{"taskId": taskID})
			if done["status"] != "working" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the task did not finish: %v", done)
			}
		}
		res, _ := done["result"].(map[string]any)
		if done["status"] != "completed" || res == nil || res["isError"] == true {
			t.Fatalf("finished task = %v", done)
		}
		var job contracts.Job
		if err := json.Unmarshal(mustJSON(t, res["structuredContent"]), &job); err != nil {
			t.Fatal(err)
		}
		var rep contracts.ImportReport
		if job.ID != taskID || job.Kind != contracts.JobKindImportPackage || job.Status != contracts.JobSucceeded ||
			json.Unmarshal(job.Result, &rep) != nil || rep.Format != "apkg" || rep.CardsCreated != 3 || rep.NotesCreated != 3 {
			t.Fatalf("the task's result is not the finished import job: %+v (report %+v)", job, rep)
		}
		var again contracts.Job
		call(t, bob, contracts.ToolGetJob, map[string]any{"jobId": taskID}, &again)
		if again.ID != taskID || again.Status != contracts.JobSucceeded {
			t.Errorf("get_job of the task's id = %+v", again)
		}
		var decks contracts.DeckPage
		call(t, bob, contracts.ToolListDecks, map[string]any{}, &decks)
		total := 0
		for _, d := range decks.Items {
			total += d.Counts.Total
		}
		if total != 3 {
			t.Errorf("bob's decks after the import: %+v", decks.Items)
		}

		// Alice cannot follow bob's import.
		ca := &modernClient{t: t, endpoint: e.base + "/mcp", key: aliceKey, tasks: true}
		if _, _, rpcErr := ca.call("tasks/get", map[string]any{"taskId": taskID}); rpcErr == nil || rpcErr["code"] != float64(-32602) {
			t.Errorf("tasks/get of another user's import = %v", rpcErr)
		}
		// A refused call (the upload is released) is answered at once, no task.
		refused := c.mustCall("tools/call", map[string]any{"name": contracts.ToolImportPackage, "arguments": map[string]any{"uploadId": in.MediaID}})
		if refused["resultType"] != "complete" || refused["isError"] != true || refused["taskId"] != nil {
			t.Errorf("import_package of a released upload, as a task = %v", refused)
		}
	})
}
