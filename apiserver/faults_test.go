package apiserver_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/adapters/faultproxy"
	"github.com/takhtabush/takhtabush/adapters/sqlcount"
	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// within runs f and fails the test when it takes longer than limit.
func within(t *testing.T, what string, limit time.Duration, f func()) time.Duration {
	t.Helper()
	start := time.Now()
	f()
	took := time.Since(start)
	if took > limit {
		t.Errorf("%s took %s, want at most %s", what, took.Round(time.Millisecond), limit)
	}
	return took
}

// The service on a Postgres whose connection is blackholed, then behind
// a locked table: /readyz answers 503 within its own timeout, tool calls
// answer "temporarily unavailable" with 503 and Retry-After within the
// database's bounds (never "internal error", never a hang), and both
// recover without a restart when the database comes back.
func TestFaultsThroughTheService(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test")
	}
	if os.Getenv(pgEnv) == "" {
		t.Skip(pgEnv + " is not set")
	}
	db := freshPostgres(t)
	u, _ := url.Parse(db)
	p, err := faultproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	viaProxy := *u
	viaProxy.Host = p.Addr()
	q := viaProxy.Query()
	q.Set("io_timeout", "1s")
	q.Set("lock_timeout", "1000")
	q.Set("connect_timeout", "1")
	viaProxy.RawQuery = q.Encode()
	e := newEnv(t, viaProxy.String(), nil)
	key, _ := e.key(t, contracts.AllScopes...)
	if resp, body := e.rpc(t, listDecks, bearer(key)); resp.StatusCode != http.StatusOK {
		t.Fatalf("before the fault: %d %s", resp.StatusCode, body)
	}
	unavailable := func(what string) {
		t.Helper()
		var resp *http.Response
		var body []byte
		took := within(t, what+": a tool call", 8*time.Second, func() { resp, body = e.rpc(t, listDecks, bearer(key)) })
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
			!strings.Contains(strings.ToLower(string(body)), "unavailable") || strings.Contains(string(body), "nternal error") {
			t.Errorf("%s: tool call %d (Retry-After %q) %s; want 503 temporarily unavailable", what, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
		t.Logf("%s: the tool call answered %d after %s", what, resp.StatusCode, took.Round(time.Millisecond))
		took = within(t, what+": /readyz", 3*time.Second, func() { resp, body = e.request(t, http.MethodGet, "/readyz", nil, nil) })
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Errorf("%s: /readyz %d %s, want 503", what, resp.StatusCode, body)
		}
		t.Logf("%s: /readyz answered %d after %s", what, resp.StatusCode, took.Round(time.Millisecond))
	}
	recovers := func(what string) {
		t.Helper()
		start := time.Now()
		for {
			resp, _ := e.rpc(t, listDecks, bearer(key))
			ready, _ := e.request(t, http.MethodGet, "/readyz", nil, nil)
			if resp.StatusCode == http.StatusOK && ready.StatusCode == http.StatusOK {
				break
			}
			if time.Since(start) > 15*time.Second {
				t.Fatalf("%s: no recovery within 15 s", what)
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("%s: recovered %s after the fault ended", what, time.Since(start).Round(time.Millisecond))
	}

	p.Blackhole()
	unavailable("blackholed")
	p.Heal()
	recovers("blackholed")

	p.Refuse()
	unavailable("refused")
	p.Heal()
	recovers("refused")

	locker, err := sql.Open("postgres", db)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	tx, err := locker.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`LOCK TABLE decks IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	unavailable("locked table")
	_ = tx.Rollback()
	recovers("locked table")
}

// SQLite behind a writer that holds the database's write lock (another
// process, a long backup): writes answer "temporarily unavailable" (503,
// Retry-After) after the busy timeout instead of hanging, reads keep
// working (WAL), and writes succeed again once the lock is released.
func TestFaultSQLiteLocked(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test")
	}
	dbURL := sqliteURL(t)
	e := newEnv(t, dbURL, nil)
	key, _ := e.key(t, contracts.AllScopes...)
	if resp, body := e.rpc(t, createDeck, bearer(key)); resp.StatusCode != http.StatusOK {
		t.Fatalf("before the fault: %d %s", resp.StatusCode, body)
	}
	other, err := sql.Open("sqlite", strings.TrimPrefix(dbURL, "sqlite:")+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.Begin() // BEGIN IMMEDIATE: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	write := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_deck","arguments":{"name":"During the lock"}}}`
	var resp *http.Response
	var body []byte
	// Two busy timeouts (5 s each): the mutation, then its audit row. The
	// bound tells an answer from a hang, not how fast it comes: SQLite's
	// busy handler adds up the sleeps it asks for, not the time that
	// passes, so on a loaded machine, where every sleep overshoots, the
	// two timeouts take well over their 10 s (over 15 s was seen).
	took := within(t, "a write behind the lock", 60*time.Second, func() { resp, body = e.rpc(t, write, bearer(key)) })
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "Temporarily unavailable") {
		t.Errorf("write behind the lock: %d %s; want 503 temporarily unavailable", resp.StatusCode, body)
	}
	t.Logf("locked SQLite: the write answered %d after %s", resp.StatusCode, took.Round(time.Millisecond))
	if resp, body := e.rpc(t, listDecks, bearer(key)); resp.StatusCode != http.StatusOK {
		t.Errorf("a read behind the lock: %d %s", resp.StatusCode, body)
	}
	_ = tx.Rollback()
	if resp, body := e.rpc(t, write, bearer(key)); resp.StatusCode != http.StatusOK || strings.Contains(string(body), "isError") && strings.Contains(string(body), `"isError":true`) {
		t.Errorf("after the lock: %d %s", resp.StatusCode, body)
	}
}

// The audit row is written in the mutation's transaction under a
// savepoint: when the database refuses the audit insert (a trigger
// raising an error, on both stores), only the savepoint rolls back, the
// mutation commits, the result carries the audit-failure marker, and the
// failure is logged and counted; once the database takes audit rows again,
// a mutation writes its row in the same single transaction.
func TestAuditInsertRefusedByTheDatabase(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		var counter sqlcount.Counter
		e := newEnv(t, dbURL, func(c *apiserver.Config) { c.StatementCounter = &counter })
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		driver, dsn, refuse, allow := "postgres", dbURL, []string{
			`CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit refused'; END $$`,
			`CREATE TRIGGER refuse_audit BEFORE INSERT ON mcp_audit_events FOR EACH ROW EXECUTE FUNCTION refuse_audit()`,
		}, []string{`DROP TRIGGER refuse_audit ON mcp_audit_events`}
		if strings.HasPrefix(dbURL, "sqlite:") {
			driver, dsn = "sqlite", strings.TrimPrefix(dbURL, "sqlite:")+"?_pragma=busy_timeout(5000)"
			refuse = []string{`CREATE TRIGGER refuse_audit BEFORE INSERT ON mcp_audit_events BEGIN SELECT RAISE(ABORT, 'audit refused'); END`}
			allow = []string{`DROP TRIGGER refuse_audit`}
		}
		admin, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		exec := func(stmts []string) {
			t.Helper()
			for _, q := range stmts {
				if _, err := admin.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
		}

		exec(refuse)
		before := counter.Read()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: contracts.ToolCreateDeck, Arguments: map[string]any{"name": "Kept"}})
		if err != nil || res.IsError {
			t.Fatalf("create_deck with the audit refused: %v %s; want the mutation to succeed", err, resultText(res))
		}
		if res.Meta[contracts.MetaAuditFailed] != true {
			t.Errorf("_meta %v, want %s", res.Meta, contracts.MetaAuditFailed)
		}
		if got := counter.Read().Sub(before); got.Transactions != 1 {
			t.Errorf("create_deck ran %d transactions, want 1 (the audit row under a savepoint of the mutation's)", got.Transactions)
		}
		var page contracts.DeckPage
		call(t, cs, contracts.ToolListDecks, map[string]any{}, &page)
		if len(page.Items) != 1 || page.Items[0].Name != "Kept" {
			t.Fatalf("decks after the refused audit: %+v, want the deck kept", page.Items)
		}
		if !strings.Contains(e.logs.String(), `"msg":"audit write failed"`) {
			t.Errorf("the refused audit was not logged")
		}
		if _, body := e.request(t, http.MethodGet, "/metrics", nil, nil); !strings.Contains(string(body), "takhtabush_audit_write_failures_total 1\n") {
			t.Errorf("the refused audit was not counted")
		}

		exec(allow)
		before = counter.Read()
		res = call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Audited"}, nil)
		if res.Meta[contracts.MetaAuditFailed] != nil {
			t.Errorf("_meta %v after the audit came back", res.Meta)
		}
		if got := counter.Read().Sub(before); got.Transactions != 1 {
			t.Errorf("create_deck ran %d transactions, want 1", got.Transactions)
		}
		var n int
		if err := admin.QueryRow(`SELECT COUNT(*) FROM mcp_audit_events WHERE tool = 'create_deck'`).Scan(&n); err != nil || n != 1 {
			t.Errorf("%d create_deck audit rows (%v), want 1: the second call's", n, err)
		}
	})
}
