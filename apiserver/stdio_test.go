package apiserver_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// TestStdioStopsWhenTheKeyIsRevoked: stdio serving checks its key again
// and stops once it is revoked, even while the client is quiet.
func TestStdioStopsWhenTheKeyIsRevoked(t *testing.T) {
	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.KeyRecheck = 20 * time.Millisecond })
	secret, id := e.key(t, contracts.ScopeDecksRead)
	in, w := io.Pipe()
	defer w.Close()
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- e.app.ServeStdio(context.Background(), secret, in, &out) }()
	select {
	case err := <-done:
		t.Fatalf("stopped with a valid key: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := e.app.RevokeKey(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "TAKHTABUSH_API_KEY refused") {
			t.Fatalf("after revocation: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("stdio kept serving a revoked key")
	}
}
