package apiserver_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// Job scopes over MCP, through the official Go SDK client: get_job and
// cancel_job are listed for a key holding either scope that starts jobs
// (decks:write for imports, study:write for optimisations), and each job
// then answers only a key holding its own kind's scope: a decks:write-only
// key reads and cancels its import but is refused the optimisation, with a
// forbidden result naming study:write, and the other way round. The tasks
// extension reads jobs through the same check. A decks:read key reaches
// neither tool (-32003). The runner is off, so the jobs stay queued until
// a cancel ends them.
func TestJobScopesOverMCP(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, func(c *apiserver.Config) { c.JobConcurrency = -1 })
		u, _, err := e.app.EnsureUser(context.Background(), testUser, "")
		if err != nil {
			t.Fatal(err)
		}
		as := func(scopes ...contracts.Scope) context.Context {
			return contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: u.ID, Scopes: scopes, CredentialKind: contracts.CredentialLocal})
		}
		jobs := e.app.Services().Jobs

		fullKey, _ := e.key(t, contracts.AllScopes...)
		deckKey, _ := e.key(t, contracts.ScopeDecksWrite)
		studyKey, _ := e.key(t, contracts.ScopeStudyWrite)
		readKey, _ := e.key(t, contracts.ScopeDecksRead)
		full := connect(t, e.base+"/mcp", bearer(fullKey), "")
		dw := connect(t, e.base+"/mcp", bearer(deckKey), "")
		sw := connect(t, e.base+"/mcp", bearer(studyKey), "")

		// Each key lists the job tools beside the one tool that starts its jobs.
		for _, c := range []struct {
			name      string
			cs        *mcp.ClientSession
			starts    string
			notStarts string
		}{{"decks:write", dw, contracts.ToolImportPackage, contracts.ToolOptimizeParameters},
			{"study:write", sw, contracts.ToolOptimizeParameters, contracts.ToolImportPackage}} {
			names := toolNames(t, c.cs)
			if !slices.Contains(names, contracts.ToolGetJob) || !slices.Contains(names, contracts.ToolCancelJob) ||
				!slices.Contains(names, c.starts) || slices.Contains(names, c.notStarts) {
				t.Errorf("a %s-only key lists %v; want get_job, cancel_job and %s, not %s", c.name, names, c.starts, c.notStarts)
			}
		}

		// The study:write key starts an optimisation itself (a deck's preset);
		// an import is submitted as import_package does, under decks:write.
		var deck contracts.Deck
		call(t, full, contracts.ToolCreateDeck, map[string]any{"name": "Scopes"}, &deck)
		var optimize contracts.Job
		call(t, sw, contracts.ToolOptimizeParameters, map[string]any{"deckId": deck.ID}, &optimize)
		if optimize.Kind != contracts.JobKindOptimizeParameters || optimize.Status != contracts.JobQueued {
			t.Fatalf("optimize_parameters through a study:write key = %+v", optimize)
		}
		imp, err := jobs.Submit(as(contracts.ScopeDecksWrite), contracts.JobKindImportPackage, map[string]string{"uploadId": "none"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := jobs.Submit(as(contracts.ScopeDecksWrite), contracts.JobKindOptimizeParameters, nil); !contracts.IsKind(err, contracts.KindForbidden) {
			t.Errorf("an optimisation submitted with decks:write only: %v, want forbidden", err)
		}

		refused := func(cs *mcp.ClientSession, tool, jobID string, scope contracts.Scope) {
			t.Helper()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"jobId": jobID}})
			if err != nil || res == nil || !res.IsError {
				t.Errorf("%s of job %s: %v %v; want a forbidden result", tool, jobID, err, res)
				return
			}
			text := resultText(res)
			if !strings.HasPrefix(text, "Forbidden: ") || !strings.Contains(text, string(scope)) || !strings.Contains(text, jobID) ||
				res.Meta[contracts.MetaErrorKind] != string(contracts.KindForbidden) {
				t.Errorf("%s of job %s: %q (meta %v); want Forbidden naming the job and %s", tool, jobID, text, res.Meta, scope)
			}
		}
		get := func(cs *mcp.ClientSession, jobID string) contracts.Job {
			t.Helper()
			var j contracts.Job
			call(t, cs, contracts.ToolGetJob, map[string]any{"jobId": jobID}, &j)
			if j.ID != jobID {
				t.Errorf("get_job(%s) = %+v", jobID, j)
			}
			return j
		}

		// Each key reads its own kind's job and is refused the other kind's.
		if j := get(dw, imp.ID); j.Kind != contracts.JobKindImportPackage || j.Status != contracts.JobQueued {
			t.Errorf("the import through decks:write = %+v", j)
		}
		if j := get(sw, optimize.ID); j.Kind != contracts.JobKindOptimizeParameters || j.Status != contracts.JobQueued {
			t.Errorf("the optimisation through study:write = %+v", j)
		}
		refused(dw, contracts.ToolGetJob, optimize.ID, contracts.ScopeStudyWrite)
		refused(dw, contracts.ToolCancelJob, optimize.ID, contracts.ScopeStudyWrite)
		refused(sw, contracts.ToolGetJob, imp.ID, contracts.ScopeDecksWrite)
		refused(sw, contracts.ToolCancelJob, imp.ID, contracts.ScopeDecksWrite)

		// The tasks extension reads jobs through the same check: the task of
		// the other kind's job is refused with the insufficient-scope error a
		// tool outside the grant gives (-32003 naming the scope it needs),
		// and a refused tasks/cancel leaves the job alone.
		for _, c := range []struct {
			key        string
			own, other string
			otherNeeds contracts.Scope
			ownKind    string
		}{{deckKey, imp.ID, optimize.ID, contracts.ScopeStudyWrite, contracts.JobKindImportPackage},
			{studyKey, optimize.ID, imp.ID, contracts.ScopeDecksWrite, contracts.JobKindOptimizeParameters}} {
			mc := &modernClient{t: t, endpoint: e.base + "/mcp", key: c.key, tasks: true}
			if task := mc.mustCall("tasks/get", map[string]any{"taskId": c.own}); task["taskId"] != c.own || task["status"] != "working" {
				t.Errorf("tasks/get of the key's own %s job = %v", c.ownKind, task)
			}
			for _, method := range []string{"tasks/get", "tasks/cancel"} {
				taskScopeRefused(t, mc, method, c.other, c.otherNeeds)
			}
		}
		// A key that can start no job is refused every task with the scope
		// the task's kind needs.
		rmc := &modernClient{t: t, endpoint: e.base + "/mcp", key: readKey, tasks: true}
		taskScopeRefused(t, rmc, "tasks/get", imp.ID, contracts.ScopeDecksWrite)
		taskScopeRefused(t, rmc, "tasks/get", optimize.ID, contracts.ScopeStudyWrite)
		// A wider key narrowed by the x-mcp-scopes header is refused the same
		// way: the services see the narrowed grant, as the engine does.
		nmc := &modernClient{t: t, endpoint: e.base + "/mcp", key: fullKey, tasks: true, scopes: string(contracts.ScopeDecksWrite)}
		if task := nmc.mustCall("tasks/get", map[string]any{"taskId": imp.ID}); task["taskId"] != imp.ID {
			t.Errorf("tasks/get of the import through a key narrowed to decks:write = %v", task)
		}
		taskScopeRefused(t, nmc, "tasks/get", optimize.ID, contracts.ScopeStudyWrite)
		taskScopeRefused(t, nmc, "tasks/cancel", optimize.ID, contracts.ScopeStudyWrite)
		refused(connect(t, e.base+"/mcp", http.Header{"Authorization": {"Bearer " + fullKey}, "X-Mcp-Scopes": {string(contracts.ScopeDecksWrite)}}, ""),
			contracts.ToolGetJob, optimize.ID, contracts.ScopeStudyWrite)

		// Another user's task answers exactly as an id that names no task,
		// whatever the scopes, so the refusal above reveals nothing to a
		// stranger: only the owner's own credentials learn a task exists.
		if _, _, err := e.app.EnsureUser(context.Background(), "bob@example.com", ""); err != nil {
			t.Fatal(err)
		}
		for _, scopes := range [][]contracts.Scope{contracts.AllScopes, {contracts.ScopeDecksRead}} {
			bob, err := e.app.CreateKey(context.Background(), "bob@example.com", "bob", scopes, 0)
			if err != nil {
				t.Fatal(err)
			}
			bmc := &modernClient{t: t, endpoint: e.base + "/mcp", key: bob.Secret, tasks: true}
			for _, method := range []string{"tasks/get", "tasks/cancel"} {
				unknownStatus, _, unknown := bmc.call(method, map[string]any{"taskId": "01a23058-32e0-7587-8ce3-02a62f1e7922"})
				for _, id := range []string{imp.ID, optimize.ID} {
					status, _, rpcErr := bmc.call(method, map[string]any{"taskId": id})
					if unknown == nil || unknown["code"] != float64(-32602) || status != unknownStatus ||
						string(mustJSON(t, rpcErr)) != string(mustJSON(t, unknown)) {
						t.Errorf("%s of another user's task with %v = %d %v; want the unknown task's %d %v", method, scopes, status, rpcErr, unknownStatus, unknown)
					}
				}
			}
		}
		for _, id := range []string{imp.ID, optimize.ID} {
			if j, err := jobs.GetJob(as(contracts.AllScopes...), id); err != nil || j.Status != contracts.JobQueued || j.CancelRequested {
				t.Fatalf("job %s after the refused cancels = %+v, %v; want it untouched", id, j, err)
			}
		}

		// Each key cancels its own job.
		var canceled contracts.Job
		call(t, dw, contracts.ToolCancelJob, map[string]any{"jobId": imp.ID}, &canceled)
		if canceled.Status != contracts.JobCanceled {
			t.Errorf("cancel_job of the import through decks:write = %+v", canceled)
		}
		call(t, sw, contracts.ToolCancelJob, map[string]any{"jobId": optimize.ID}, &canceled)
		if canceled.Status != contracts.JobCanceled {
			t.Errorf("cancel_job of the optimisation through study:write = %+v", canceled)
		}

		// A key that can start no job reaches neither tool.
		rcs := connect(t, e.base+"/mcp", bearer(readKey), "")
		if names := toolNames(t, rcs); slices.Contains(names, contracts.ToolGetJob) || slices.Contains(names, contracts.ToolCancelJob) {
			t.Errorf("a decks:read key lists %v", names)
		}
		scopeRefused(t, e, rcs, bearer(readKey), contracts.ToolGetJob, map[string]any{"jobId": imp.ID})
		scopeRefused(t, e, rcs, bearer(readKey), contracts.ToolCancelJob, map[string]any{"jobId": imp.ID})
	})
}

// taskScopeRefused checks method of task id is refused with the
// insufficient-scope error naming need (an API key: HTTP 200, no challenge).
func taskScopeRefused(t *testing.T, mc *modernClient, method, id string, need contracts.Scope) {
	t.Helper()
	status, _, rpcErr := mc.call(method, map[string]any{"taskId": id})
	data, _ := rpcErr["data"].(map[string]any)
	if status != http.StatusOK || rpcErr == nil || rpcErr["code"] != float64(-32003) ||
		string(mustJSON(t, data["requiredScopes"])) != `["`+string(need)+`"]` {
		t.Errorf("%s of task %s without %s = %d %v; want -32003 requiring %s", method, id, need, status, rpcErr, need)
	}
}
