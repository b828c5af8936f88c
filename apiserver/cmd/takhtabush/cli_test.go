package main

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
)

var keyLine = regexp.MustCompile(`^tbk_[A-Za-z0-9-]+_[A-Za-z0-9_-]+\n$`)

// The operator commands, as DESIGN.md §6 spells them.
func TestOperatorCommands(t *testing.T) {
	db := sqliteDB(t)
	env := []string{"TAKHTABUSH_DATABASE_URL=" + db} // --db falls back to the environment

	if out, errOut, code := tb(t, nil); code != 2 || out != "" || !strings.Contains(errOut, "usage:") {
		t.Errorf("no command: exit %d, stdout %q", code, out)
	}
	if _, _, code := tb(t, env, "frobnicate"); code != 2 {
		t.Errorf("unknown command: exit %d, want 2", code)
	}
	if _, errOut, code := tb(t, env, "keys", "create", "--scopes", "decks:read"); code != 2 || !strings.Contains(errOut, "--email is required") {
		t.Errorf("keys create without --email: exit %d %s", code, errOut)
	}

	mustTB(t, nil, "migrate", "--db", db)
	if out := mustTB(t, env, "users", "create", "--email", "Bo@Example.com", "--name", "Bo"); !strings.Contains(out, "bo@example.com") {
		t.Errorf("users create printed %q", out)
	}
	if _, errOut, code := tb(t, env, "users", "create", "--email", "bo@example.com"); code != 1 || !strings.Contains(errOut, "already exists") {
		t.Errorf("creating the account twice: exit %d %s", code, errOut)
	}

	key := mustTB(t, nil, "keys", "create", "--db", db, "--email", "bo@example.com", "--scopes", "decks:read,decks:write", "--expires", "720h", "--name", "ci")
	if !keyLine.MatchString(key) {
		t.Fatalf("keys create printed %q, want the key alone on one line", key)
	}
	key = strings.TrimSpace(key)
	if _, errOut, code := tb(t, env, "keys", "create", "--email", "bo@example.com", "--scopes", "decks:read,root"); code != 1 || !strings.Contains(errOut, `unknown scope "root"`) {
		t.Errorf("an unknown scope: exit %d %s", code, errOut)
	}

	list := mustTB(t, env, "keys", "list", "--email", "bo@example.com")
	if !strings.Contains(list, "ci") || !strings.Contains(list, "decks:read,decks:write") || !strings.Contains(list, key[len(key)-6:]) ||
		!strings.Contains(list, "active") || strings.Contains(list, key) {
		t.Errorf("keys list:\n%s", list)
	}
	id := strings.Fields(strings.Split(list, "\n")[1])[0]

	link := strings.TrimSpace(mustTB(t, env, "users", "login-link", "--email", "bo@example.com", "--base-url", "https://t.example"))
	if !regexp.MustCompile(`^https://t\.example/login\?token=[A-Za-z0-9_-]{20,}$`).MatchString(link) {
		t.Errorf("users login-link printed %q", link)
	}
	// Like serve: --addr gives the link's origin when there is no base URL,
	// and so does TAKHTABUSH_ADDR.
	link = strings.TrimSpace(mustTB(t, env, "users", "login-link", "--email", "bo@example.com", "--addr", "127.0.0.1:9931"))
	if !strings.HasPrefix(link, "http://127.0.0.1:9931/login?token=") {
		t.Errorf("users login-link --addr printed %q", link)
	}
	link = strings.TrimSpace(mustTB(t, append(env, "TAKHTABUSH_ADDR=0.0.0.0:9932"), "users", "login-link", "--email", "bo@example.com"))
	if !strings.HasPrefix(link, "http://127.0.0.1:9932/login?token=") {
		t.Errorf("users login-link with TAKHTABUSH_ADDR printed %q", link)
	}

	if out := mustTB(t, env, "audit", "--email", "bo@example.com", "--json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("empty audit --json printed %q", out)
	}

	// A mutation through stdio, then the audit trail shows it.
	cs := stdioSession(t, db, key)
	if _, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "create_deck", Arguments: map[string]any{"name": "From stdio"}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	var events []contracts.AuditEvent
	if err := json.Unmarshal([]byte(mustTB(t, env, "audit", "--email", "bo@example.com", "--json")), &events); err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 || events[0].Tool != "create_deck" || events[0].CredentialID != id {
		t.Errorf("audit --json = %+v, want one create_deck row by key %s", events, id)
	}
	if table := mustTB(t, env, "audit", "--email", "bo@example.com"); !strings.Contains(table, "create_deck") || !strings.Contains(table, "deck.create") {
		t.Errorf("audit table:\n%s", table)
	}

	if out := mustTB(t, env, "keys", "revoke", "--id", id); !strings.Contains(out, id) {
		t.Errorf("keys revoke printed %q", out)
	}
	if list := mustTB(t, env, "keys", "list", "--email", "bo@example.com"); !strings.Contains(list, "revoked") {
		t.Errorf("keys list after revoke:\n%s", list)
	}
	if _, errOut, code := tb(t, env, "keys", "revoke", "--id", "no-such-key"); code != 1 || errOut == "" {
		t.Errorf("revoking an unknown key: exit %d %q", code, errOut)
	}
}

// stdioSession starts `takhtabush stdio` for key and connects the SDK client.
func stdioSession(t *testing.T, db, key string, flags ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"stdio", "--db", db}, flags...)...)
	cmd.Env = cleanEnv("TAKHTABUSH_API_KEY=" + key)
	client := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx(t), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting over stdio: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// `takhtabush stdio` serves the same tools as HTTP for the key's scopes.
func TestStdioServesTheSurface(t *testing.T) {
	db := sqliteDB(t)
	mustTB(t, nil, "users", "create", "--db", db, "--email", "cy@example.com")
	full := strings.TrimSpace(mustTB(t, nil, "keys", "create", "--db", db, "--email", "cy@example.com", "--scopes", contracts.JoinScopes(contracts.AllScopes, ",")))
	read := strings.TrimSpace(mustTB(t, nil, "keys", "create", "--db", db, "--email", "cy@example.com", "--scopes", "decks:read"))

	names := func(cs *mcp.ClientSession) []string {
		res, err := cs.ListTools(ctx(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		var n []string
		for _, tl := range res.Tools {
			n = append(n, tl.Name)
		}
		slices.Sort(n)
		return n
	}
	var all, lean, readOnly []string
	for _, d := range contracts.Catalog() {
		if ui, _ := d.Meta["ui"].(map[string]any); ui["visibility"] != nil {
			continue // app-only: not listed to a 2026-07-28 client without the MCP Apps extension, as the SDK's
		}
		all = append(all, d.Name)
		if slices.ContainsFunc(d.Sets, func(s string) bool { return slices.Contains(contracts.LeanToolsets, s) }) {
			lean = append(lean, d.Name)
		}
		if d.Allows([]contracts.Scope{contracts.ScopeDecksRead}) { // not the job tools: their AnyScopes are write scopes
			readOnly = append(readOnly, d.Name)
		}
	}
	slices.Sort(all)
	slices.Sort(lean)
	slices.Sort(readOnly)

	// A new account's default is the lean set; --toolsets chooses.
	if got := names(stdioSession(t, db, full)); !slices.Equal(got, lean) {
		t.Errorf("full key over stdio, the account's default, lists %v, want %v", got, lean)
	}
	cs := stdioSession(t, db, full, "--toolsets", "all")
	if got := names(cs); !slices.Equal(got, all) {
		t.Errorf("full key over stdio with --toolsets all lists %v, want %v", got, all)
	}
	res, err := cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "create_deck", Arguments: map[string]any{"name": "Stdio"}})
	if err != nil || res.IsError {
		t.Fatalf("create_deck over stdio: %v %v", res, err)
	}
	res, err = cs.CallTool(ctx(t), &mcp.CallToolParams{Name: "list_decks", Arguments: map[string]any{}})
	if err != nil || res.IsError || !strings.Contains(string(mustJSON(t, res.StructuredContent)), `"name":"Stdio"`) {
		t.Fatalf("list_decks over stdio: %v %v", res, err)
	}

	rs := stdioSession(t, db, read, "--toolsets", "all")
	if got := names(rs); !slices.Equal(got, readOnly) {
		t.Errorf("decks:read key over stdio lists %v, want %v", got, readOnly)
	}
	if _, err := rs.CallTool(ctx(t), &mcp.CallToolParams{Name: "create_deck", Arguments: map[string]any{"name": "x"}}); err == nil || !strings.Contains(err.Error(), "insufficient scope") {
		t.Errorf("create_deck with decks:read over stdio: %v, want insufficient scope", err)
	}

	// A bad or missing key: the process says why on stderr, writes nothing on stdout, exits 1.
	for _, k := range []string{"", "tbk_nope_nope"} {
		out, errOut, code := tb(t, []string{"TAKHTABUSH_API_KEY=" + k}, "stdio", "--db", db)
		if code != 1 || out != "" || !strings.Contains(errOut, "TAKHTABUSH_API_KEY") {
			t.Errorf("stdio with key %q: exit %d, stdout %q, stderr %q", k, code, out, errOut)
		}
	}
	// An unknown toolset is refused at the start, naming the known ones.
	if out, errOut, code := tb(t, []string{"TAKHTABUSH_API_KEY=" + full}, "stdio", "--db", db, "--toolsets", "study,nope"); code != 1 || out != "" ||
		!strings.Contains(errOut, `unknown toolset "nope"`) || !strings.Contains(errOut, "library") {
		t.Errorf("stdio --toolsets study,nope: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// keyHeader is the header set of an API key.
func keyHeader(key string) http.Header { return http.Header{"Authorization": {"Bearer " + key}} }

// --db-replica takes postgres:// URLs and needs a Postgres --db: the
// mistakes are refused before serving, with the reason.
func TestServeReplicaFlag(t *testing.T) {
	db := sqliteDB(t)
	if _, errOut, code := tb(t, nil, "serve", "--db", db, "--addr", "127.0.0.1:0", "--db-replica", "sqlite:/tmp/x.db"); code != 2 || !strings.Contains(errOut, "a replica is a postgres:// URL") {
		t.Errorf("a SQLite replica: exit %d %s", code, errOut)
	}
	if _, errOut, code := tb(t, nil, "serve", "--db", db, "--addr", "127.0.0.1:0", "--db-replica", "postgres://u@127.0.0.1:1/db"); code != 1 || !strings.Contains(errOut, "need a Postgres --db") {
		t.Errorf("replicas of a SQLite database: exit %d %s", code, errOut)
	}
}

// --job-runners takes 0 (no runner here) to 64; anything else is refused
// before serving, with the reason.
func TestServeJobRunnersFlag(t *testing.T) {
	db := sqliteDB(t)
	for _, bad := range []string{"-1", "65", "two", ""} {
		if _, errOut, code := tb(t, nil, "serve", "--db", db, "--addr", "127.0.0.1:0", "--job-runners", bad); code != 2 || !strings.Contains(errOut, "--job-runners") || !strings.Contains(errOut, "from 0 to 64") {
			t.Errorf("--job-runners %q: exit %d %s", bad, code, errOut)
		}
	}
	if _, errOut, code := tb(t, []string{"TAKHTABUSH_JOB_RUNNERS=many"}, "serve", "--db", db, "--addr", "127.0.0.1:0"); code != 2 || !strings.Contains(errOut, `--job-runners "many"`) {
		t.Errorf("TAKHTABUSH_JOB_RUNNERS=many: exit %d %s", code, errOut)
	}
}
