package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
)

// e2eKind is a job kind the test registers: it counts to 4 in steps,
// reporting progress, and stops when canceled.
const e2eKind = "e2e_count"

func registerE2EKind(e *env, step time.Duration) {
	e.app.Services().Jobs.Register(e2eKind, contracts.ScopeDecksWrite, func(ctx context.Context, run *domain.JobRun) (any, error) {
		for i := int64(1); i <= 4; i++ {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(step):
			}
			run.Progress(i, 4, "counting")
		}
		return map[string]int{"counted": 4}, nil
	})
}

// Jobs through the official Go SDK client: get_job waits and streams
// progress notifications when the call carries a progressToken, reports
// the result; cancel_job stops a running job; a credential without the
// job's scope (but with another that reaches get_job) is refused, another
// user never sees it.
func TestJobsOverMCP(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		registerE2EKind(e, 1100*time.Millisecond) // a step spans a heartbeat, so each is stored
		u, _, err := e.app.EnsureUser(context.Background(), testUser, "")
		if err != nil {
			t.Fatal(err)
		}
		asUser := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: u.ID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialLocal})
		job, err := e.app.Services().Jobs.Submit(asUser, e2eKind, nil)
		if err != nil {
			t.Fatal(err)
		}

		key, _ := e.key(t, contracts.ScopeDecksRead, contracts.ScopeDecksWrite)
		var mu sync.Mutex
		var progress []float64
		client := mcp.NewClient(&mcp.Implementation{Name: "jobs-test", Version: "1.0.0"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				progress = append(progress, r.Params.Progress)
				mu.Unlock()
			},
		})
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
			Endpoint: e.base + "/mcp", HTTPClient: &http.Client{Transport: headerTransport{header: bearer(key)}, Timeout: time.Minute},
			DisableStandaloneSSE: true, MaxRetries: -1,
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if names := toolNames(t, cs); !slices.Contains(names, contracts.ToolGetJob) || !slices.Contains(names, contracts.ToolCancelJob) {
			t.Fatalf("tools/list lacks the job tools: %v", names)
		}

		params := &mcp.CallToolParams{Name: contracts.ToolGetJob, Arguments: map[string]any{"jobId": job.ID}}
		params.SetProgressToken("job-progress")
		res, err := cs.CallTool(context.Background(), params)
		if err != nil || res.IsError {
			t.Fatalf("get_job with a progress token: %v %s", err, resultText(res))
		}
		checkResult(t, contracts.ToolGetJob, res)
		var got contracts.Job
		decodeStructured(t, res, &got)
		if got.Status != contracts.JobSucceeded || string(got.Result) != `{"counted":4}` || got.Progress.Done != 4 {
			t.Fatalf("waited job = %+v (result %s)", got, got.Result)
		}
		// The client may hand notifications to its handler after the
		// response; give the last one a moment.
		for wait := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			heard := slices.Clone(progress)
			mu.Unlock()
			if len(heard) >= 3 && heard[len(heard)-1] == 4 {
				break
			}
			if time.Now().After(wait) {
				t.Fatalf("progress notifications = %v; want one per step, ending at 4", heard)
			}
		}

		// Without a token get_job answers at once.
		var again contracts.Job
		call(t, cs, contracts.ToolGetJob, map[string]any{"jobId": job.ID}, &again)
		if again.ID != job.ID || again.Status != contracts.JobSucceeded {
			t.Errorf("get_job = %+v", again)
		}

		// cancel_job stops a running job at its next step.
		running, err := e.app.Services().Jobs.Submit(asUser, e2eKind, nil)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for again.Status = ""; again.Status != contracts.JobRunning; {
			if time.Now().After(deadline) {
				t.Fatalf("the job never started: %+v", again)
			}
			time.Sleep(50 * time.Millisecond)
			call(t, cs, contracts.ToolGetJob, map[string]any{"jobId": running.ID}, &again)
		}
		var canceled contracts.Job
		call(t, cs, contracts.ToolCancelJob, map[string]any{"jobId": running.ID}, &canceled)
		if !canceled.CancelRequested {
			t.Errorf("cancel_job = %+v", canceled)
		}
		for again.Status != contracts.JobCanceled {
			if time.Now().After(deadline) {
				t.Fatalf("the canceled job did not stop: %+v", again)
			}
			time.Sleep(50 * time.Millisecond)
			call(t, cs, contracts.ToolGetJob, map[string]any{"jobId": running.ID}, &again)
		}

		// A study:write key sees get_job but not the job, which needs decks:write.
		sw, _ := e.key(t, contracts.ScopeStudyWrite)
		scs := connect(t, e.base+"/mcp", bearer(sw), "")
		res, err = scs.CallTool(context.Background(), &mcp.CallToolParams{Name: contracts.ToolGetJob, Arguments: map[string]any{"jobId": job.ID}})
		if err != nil || !res.IsError || !strings.Contains(resultText(res), "decks:write") {
			t.Errorf("get_job through a study:write key = %v, %s; want a refusal naming decks:write", err, resultText(res))
		}
		// Another user's job is not found.
		if _, _, err := e.app.EnsureUser(context.Background(), "bob@example.com", ""); err != nil {
			t.Fatal(err)
		}
		bob, err := e.app.CreateKey(context.Background(), "bob@example.com", "bob", []contracts.Scope{contracts.ScopeDecksRead, contracts.ScopeDecksWrite}, 0)
		if err != nil {
			t.Fatal(err)
		}
		bcs := connect(t, e.base+"/mcp", bearer(bob.Secret), "")
		for _, tool := range []string{contracts.ToolGetJob, contracts.ToolCancelJob} {
			res, err = bcs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"jobId": job.ID}})
			if err != nil || !res.IsError || !strings.Contains(resultText(res), "not found") {
				t.Errorf("%s of another user's job = %v, %s; want not found", tool, err, resultText(res))
			}
		}
	})
}

func decodeStructured(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}
