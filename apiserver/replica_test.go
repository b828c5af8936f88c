package apiserver_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/pgcluster"
	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// The service with --db-replica on a real streaming replica (a private
// primary and replica: make replica-test). With the replica's replay
// paused, so that it visibly lags: a principal who has not written lately
// reads list_decks from the replica (the old name of a deck renamed on
// the primary); an agent's create_deck followed at once by list_decks
// sees its deck (read from the primary); once the replica lags past its
// bound it is left out and every read is fresh; when the replica stops,
// reads keep answering from the primary.
func TestReadReplicaThroughTheService(t *testing.T) {
	bin := os.Getenv("TAKHTABUSH_TEST_PGBIN")
	if bin == "" {
		t.Skip("TAKHTABUSH_TEST_PGBIN is not set (make replica-test sets it)")
	}
	pair, err := pgcluster.StartPair(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pair.Close() })
	e := newEnv(t, pair.Primary.URL(), func(c *apiserver.Config) { c.DatabaseReplicas = []string{pair.Standby.URL()} })
	reader, _ := e.key(t, contracts.AllScopes...)
	if _, _, err := e.app.EnsureUser(context.Background(), "bo@example.com", "Bo"); err != nil {
		t.Fatal(err)
	}
	agent, err := e.app.CreateKey(context.Background(), "bo@example.com", "agent", contracts.AllScopes, 0)
	if err != nil {
		t.Fatal(err)
	}
	call := func(key, msg string) string {
		t.Helper()
		resp, body := e.rpc(t, msg, bearer(key))
		if resp.StatusCode != http.StatusOK || strings.Contains(string(body), `"isError":true`) {
			t.Fatalf("%s: %d %s", msg, resp.StatusCode, body)
		}
		return string(body)
	}
	createDeck := func(name string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_deck","arguments":{"name":%q}}}`, name)
	}
	call(reader, createDeck("Original name"))
	primary, err := sql.Open("postgres", pair.Primary.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Close()
	standby, err := sql.Open("postgres", pair.Standby.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer standby.Close()
	// Wait out the reader's read-your-writes window, and until the
	// replica holds the deck.
	time.Sleep(4 * time.Second)
	if !strings.Contains(call(reader, listDecks), "Original name") {
		t.Fatal("the deck is not listed")
	}

	if _, err := standby.Exec(`SELECT pg_wal_replay_pause()`); err != nil {
		t.Fatal(err)
	}
	paused := time.Now()
	if _, err := primary.Exec(`UPDATE decks SET name = 'Renamed on the primary' WHERE name = 'Original name'`); err != nil {
		t.Fatal(err)
	}
	if got := call(reader, listDecks); !strings.Contains(got, "Original name") {
		t.Errorf("a principal without recent writes did not read from the (paused) replica: %s", got)
	}
	call(agent.Secret, createDeck("Made just now"))
	if got := call(agent.Secret, listDecks); !strings.Contains(got, "Made just now") {
		t.Errorf("list_decks right after create_deck misses the deck: %s", got)
	}
	if time.Since(paused) > 4*time.Second {
		t.Logf("the checks above took %s: the replica may have been left out before them", time.Since(paused))
	}
	// The replica lags past its bound: it is left out, reads are fresh.
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(call(reader, listDecks), "Renamed on the primary") {
		if time.Now().After(deadline) {
			t.Fatal("a replica lagging past its bound still answers")
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Logf("the lagging replica was left out %s after its replay paused", time.Since(paused).Round(100*time.Millisecond))
	if _, err := standby.Exec(`SELECT pg_wal_replay_resume()`); err != nil {
		t.Fatal(err)
	}
	// The replica goes away: reads answer from the primary.
	if err := pair.Standby.Stop(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for range 3 {
		if got := call(reader, listDecks); !strings.Contains(got, "Renamed on the primary") {
			t.Errorf("with the replica gone: %s", got)
		}
		call(reader, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_stats","arguments":{}}}`)
	}
	t.Logf("three list_decks and get_stats with the replica gone took %s", time.Since(start).Round(time.Millisecond))
}
