package mcpbind_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/takhtabush/takhtabush/adapters/sqlite"
	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/apiserver/internal/mcpbind"
	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/ports"
)

const base = "https://takhtabush.example"

// stack is the real domain on a temporary SQLite database.
func stack(t *testing.T) (*domain.Services, ports.Database, context.Context) {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, sqlite.Memory)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	svc := domain.NewServices(store, nil, domain.SystemClock{}, domain.RandomIDs{}, fsrs.New(), domain.Config{BaseURL: base})
	u, err := svc.Accounts.CreateUser(ctx, "ada@example.com", "Ada")
	if err != nil {
		t.Fatal(err)
	}
	p := contracts.Principal{UserID: u.ID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialAPIKey, CredentialID: "key-1"}
	ctx = contracts.WithPrincipal(ctx, p)
	return svc, store, mcpcore.WithPrincipal(ctx, auth.MCPPrincipal(p))
}

func services(svc *domain.Services, tx ports.TxRunner) mcpbind.Services {
	return mcpbind.Services{Decks: svc.Decks, Cards: svc.Cards, Notes: svc.Notes, Study: svc.Study, Stats: svc.Stats,
		Media: svc.Media, Exposure: svc.Exposure, Audit: svc.Audit, Tx: tx}
}

// failingAudit refuses every write.
type failingAudit struct{ ports.AuditService }

func (failingAudit) Record(context.Context, contracts.AuditEvent) error {
	return contracts.Internal(errors.New("disk full"))
}

// rpc sends one tools/call in process and decodes the response.
func rpc(t *testing.T, ctx context.Context, srv *mcpcore.Server, id int, tool string, args any) (result map[string]any, rpcErr map[string]any) {
	t.Helper()
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	return send(t, ctx, srv, msg)
}

func send(t *testing.T, ctx context.Context, srv *mcpcore.Server, msg []byte) (result map[string]any, rpcErr map[string]any) {
	t.Helper()
	h := map[string][]string{"Mcp-Protocol-Version": {"2025-11-25"}}
	out := srv.HandleStream(ctx, msg, h, func([]byte) {})
	var resp struct {
		Result map[string]any `json:"result"`
		Error  map[string]any `json:"error"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("response %s: %v", out, err)
	}
	return resp.Result, resp.Error
}

// A failed audit write leaves the mutation applied, marks the result's
// _meta, and is counted and logged, once each.
func TestFailedAuditKeepsMutationAndMarksResult(t *testing.T) {
	svc, store, ctx := stack(t)
	m := obs.NewMetrics()
	s := services(svc, store)
	s.Audit = failingAudit{svc.Audit}
	var logs bytes.Buffer
	srv, err := mcpbind.NewServer(mcpbind.New(s, m), mcpbind.ServerConfig{BaseURL: base, Observer: m, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	res, rerr := rpc(t, ctx, srv, 1, "create_deck", map[string]any{"name": "Kept"})
	if rerr != nil || res["isError"] == true {
		t.Fatalf("create_deck: %v %v", res, rerr)
	}
	meta, _ := res["_meta"].(map[string]any)
	if meta["takhtabush/auditFailed"] != true {
		t.Errorf("_meta = %v, want takhtabush/auditFailed: true", res["_meta"])
	}
	page, err := svc.Decks.ListDecks(ctx, contracts.ListDecksArgs{})
	if err != nil || len(page.Items) != 1 || page.Items[0].Name != "Kept" {
		t.Fatalf("decks after a failed audit: %+v %v, want the deck kept", page, err)
	}
	if got := scrape(t, m); !strings.Contains(got, "takhtabush_audit_write_failures_total 1\n") {
		t.Errorf("the failure was not counted:\n%s", got)
	}
	if n := strings.Count(logs.String(), `"msg":"audit write failed"`); n != 1 {
		t.Errorf("the failure was logged %d times, want once:\n%s", n, logs.String())
	}

	// A working audit service writes the row and leaves _meta unmarked.
	good, err := mcpbind.NewServer(mcpbind.New(services(svc, store), m), mcpbind.ServerConfig{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	res, _ = rpc(t, ctx, good, 2, "create_deck", map[string]any{"name": "Audited"})
	if meta, _ := res["_meta"].(map[string]any); meta["takhtabush/auditFailed"] != nil {
		t.Errorf("_meta = %v after a successful audit", meta)
	}
	events, err := svc.Audit.List(ctx, contracts.AuditFilter{}, "", 10)
	if err != nil || len(events.Items) != 1 || events.Items[0].Tool != "create_deck" {
		t.Fatalf("audit rows %+v %v, want only the second create_deck", events.Items, err)
	}
}

func scrape(t *testing.T, m *obs.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String()
}

// countingExposure counts exposure reads.
type countingExposure struct {
	ports.ExposureService
	reads atomic.Int32
}

func (c *countingExposure) Exposure(ctx context.Context) (contracts.ExposureSettings, error) {
	c.reads.Add(1)
	return c.ExposureService.Exposure(ctx)
}

// tools/list reads the exposure settings once per HTTP request (the
// request state memoizes it), not once per tool; each request reads afresh.
func TestExposureReadOncePerRequest(t *testing.T) {
	svc, store, ctx := stack(t)
	exp := &countingExposure{ExposureService: svc.Exposure}
	s := services(svc, store)
	s.Exposure = exp
	srv, err := mcpbind.NewServer(mcpbind.New(s, nil), mcpbind.ServerConfig{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	list := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	for i := 1; i <= 2; i++ {
		// Every toolset, so the list holds the whole catalog (the test
		// account is new: its own default is the lean set).
		reqCtx := mcpcore.WithToolSelection(obs.WithRequest(ctx, &obs.Request{ID: "r"}), mcpcore.ToolSelection{Sets: []string{contracts.ToolsetsAll}})
		res, rerr := send(t, reqCtx, srv, list)
		if tools, _ := res["tools"].([]any); rerr != nil || len(tools) != len(contracts.Catalog()) {
			t.Fatalf("tools/list: %v %v", res, rerr)
		}
		if n := exp.reads.Load(); n != int32(i) {
			t.Fatalf("after %d tools/list requests: %d exposure reads, want %d", i, n, i)
		}
	}
	// Without request state (stdio), every check reads: settings apply at once.
	exp.reads.Store(0)
	send(t, ctx, srv, list)
	if n := exp.reads.Load(); n < 2 {
		t.Errorf("without request state: %d reads, want one per tool", n)
	}
}

// render_study_session starts a session from a deck id, or loads one, and
// links it absolutely; the current card comes rendered and sanitised by
// the content renderer, with each rating's next interval.
func TestRenderStudySessionLinks(t *testing.T) {
	svc, store, ctx := stack(t)
	b := mcpbind.New(services(svc, store), nil)
	deck, err := svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "D"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: deck.ID, Cards: []contracts.NewCard{{Front: "**a** <script>alert(1)</script>", Back: "b"}}}); err != nil {
		t.Fatal(err)
	}
	started, err := b.RenderStudySession(ctx, contracts.RenderStudySessionArgs{DeckID: deck.ID})
	if err != nil || started.ID == "" || started.StudyURL != base+"/study/"+started.ID {
		t.Fatalf("render with a deck id: %+v %v", started, err)
	}
	if started.FrontHTML != "<p><strong>a</strong> </p>" || started.BackHTML != "<p>b</p>" {
		t.Errorf("rendered card: front %q back %q", started.FrontHTML, started.BackHTML)
	}
	if len(started.Ratings) != 4 || started.Ratings[0].Rating != contracts.RatingAgain || started.Ratings[3].IntervalHuman == "" {
		t.Errorf("rating previews: %+v", started.Ratings)
	}
	if !strings.Contains(started.Lead, started.StudyURL) {
		t.Errorf("the lead sentence has no study link: %q", started.Lead)
	}
	loaded, err := b.RenderStudySession(ctx, contracts.RenderStudySessionArgs{SessionID: started.ID})
	if err != nil || loaded.ID != started.ID || loaded.StudyURL != started.StudyURL {
		t.Fatalf("render with a session id: %+v %v", loaded, err)
	}
	for _, args := range []contracts.RenderStudySessionArgs{{}, {SessionID: started.ID, DeckID: deck.ID}} {
		if _, err := b.RenderStudySession(ctx, args); !contracts.IsKind(err, contracts.KindInvalid) {
			t.Errorf("render %+v: %v, want invalid", args, err)
		}
	}
	if s, err := b.StartStudySession(ctx, contracts.StartStudySessionArgs{DeckID: deck.ID}); err != nil || s.StudyURL != base+"/study/"+s.ID {
		t.Errorf("start_study_session: %+v %v, want an absolute study link", s, err)
	}
}
