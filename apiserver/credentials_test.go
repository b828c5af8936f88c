package apiserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// Two credentials that disagree are refused with 401 and a reason, on the
// MCP door and the REST door, never resolved silently one way; the same
// key sent both ways is one credential.
func TestConflictingCredentials(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.AllScopes...)
	other, _ := e.key(t, contracts.ScopeDecksRead)
	for _, c := range []struct {
		name string
		h    http.Header
	}{
		{"bearer and a different x-api-key", http.Header{"Authorization": {"Bearer " + key}, "X-Api-Key": {other}}},
		{"bearer and a bad x-api-key", http.Header{"Authorization": {"Bearer " + key}, "X-Api-Key": {"tbk_nope"}}},
		{"two Authorization headers", http.Header{"Authorization": {"Bearer " + key, "Bearer " + other}}},
		{"two equal Authorization headers", http.Header{"Authorization": {"Bearer " + key, "Bearer " + key}}},
		{"two x-api-key headers", http.Header{"X-Api-Key": {key, other}}},
		{"basic and x-api-key", http.Header{"Authorization": {"Basic " + key}, "X-Api-Key": {key}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := e.rpc(t, listDecks, c.h)
			checkRefusal(t, e, resp, body, true)
			if !strings.Contains(string(body), "conflicting credentials") {
				t.Errorf("/mcp body %s does not name the conflict", body)
			}
			resp, body = e.request(t, http.MethodGet, "/api/decks", nil, c.h)
			checkRefusal(t, e, resp, body, false)
			if !strings.Contains(string(body), "conflicting credentials") {
				t.Errorf("/api/decks body %s does not name the conflict", body)
			}
			if strings.Contains(string(body), key) || strings.Contains(string(body), other) {
				t.Errorf("the refusal echoes a key: %s", body)
			}
		})
	}
	same := http.Header{"Authorization": {"Bearer " + key}, "X-Api-Key": {key}}
	if resp, body := e.rpc(t, listDecks, same); resp.StatusCode != http.StatusOK {
		t.Errorf("the same key sent both ways: %d %s, want 200", resp.StatusCode, body)
	}
}

// Development mode listens on loopback only, says loudly that it is on,
// and counts a request with an empty X-Forwarded-For as proxied.
func TestDevelopmentModeGuards(t *testing.T) {
	dev := func(c *apiserver.Config) { c.Environment = "development"; c.DevNoAuth = true }
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:8080", "example.com:80"} {
		cfg := apiserver.Config{DatabaseURL: sqliteURL(t), Addr: addr}
		dev(&cfg)
		app, err := apiserver.New(context.Background(), cfg)
		if err == nil {
			app.Close()
			t.Errorf("development mode started on %q", addr)
		} else if !strings.Contains(err.Error(), "loopback") {
			t.Errorf("development mode on %q: %v; want a reason naming loopback", addr, err)
		}
	}
	// Outside development (or without MCP_DEV_NO_AUTH) any address is fine.
	for _, cfg := range []apiserver.Config{
		{DatabaseURL: sqliteURL(t), Addr: "0.0.0.0:0", Environment: "production", DevNoAuth: true},
		{DatabaseURL: sqliteURL(t), Addr: "0.0.0.0:0", Environment: "development"},
	} {
		app, err := apiserver.New(context.Background(), cfg)
		if err != nil {
			t.Errorf("New(%+v): %v", cfg, err)
			continue
		}
		app.Close()
	}

	e := newEnv(t, sqliteURL(t), dev)
	if _, err := e.app.Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.logs.String(), "DEVELOPMENT MODE") {
		t.Errorf("no loud development-mode warning in the log:\n%s", e.logs.String())
	}
	if resp, body := e.rpc(t, listDecks, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("dev request from this machine: %d %s", resp.StatusCode, body)
	}
	for _, h := range []string{"X-Forwarded-For", "Forwarded", "X-Real-Ip"} {
		resp, body := e.rpc(t, listDecks, http.Header{h: {""}})
		checkRefusal(t, e, resp, body, true)
	}
}
