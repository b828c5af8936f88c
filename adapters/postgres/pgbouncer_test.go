package postgres

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/takhtabush/takhtabush/adapters/pgbouncer"
	"github.com/takhtabush/takhtabush/ports"
	"github.com/takhtabush/takhtabush/ports/storetest"
)

// pgbouncerEnv names the pgbouncer binary the pgbouncer variant of the
// store suite starts (make pgbouncer-suite sets it; .ci/run runs it).
const pgbouncerEnv = "TAKHTABUSH_TEST_PGBOUNCER"

// throughPgbouncer starts pgbouncer in transaction pooling mode in front
// of the test server and returns a function that makes a fresh database
// and the URL of it through pgbouncer, as an operator would set it up:
// statement_cache=off in the URL, the timeouts on the database.
func throughPgbouncer(t *testing.T) func(t *testing.T) string {
	t.Helper()
	bin := os.Getenv(pgbouncerEnv)
	if bin == "" {
		t.Skip(pgbouncerEnv + " is not set (make pgbouncer-suite sets it)")
	}
	base := baseURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pgbouncer.Start(context.Background(), bin, t.TempDir(), u.Host, u.User.Username())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Stop)
	return func(t *testing.T) string {
		direct := freshDatabase(t)
		admin, err := sql.Open("postgres", direct)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close()
		name := strings.TrimPrefix(mustParse(t, direct).Path, "/")
		for _, set := range []string{"statement_timeout = '15s'", "lock_timeout = '5s'", "synchronous_commit = off"} {
			if _, err := admin.Exec("ALTER DATABASE " + name + " SET " + set); err != nil {
				t.Fatal(err)
			}
		}
		via, err := b.URL(direct)
		if err != nil {
			t.Fatal(err)
		}
		return via
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// The store contract suite through pgbouncer in transaction pooling mode:
// every query of the store must work when consecutive transactions (and
// statements outside one) land on different server connections.
func TestStoreThroughPgbouncer(t *testing.T) {
	fresh := throughPgbouncer(t)
	storetest.TestStore(t, func(t *testing.T) ports.Database { return open(t, fresh(t)) })
}

// Instances starting together through pgbouncer apply the migrations
// once: the lock is a row (a session advisory lock does not survive
// transaction pooling), and each instance's pool then serves.
func TestMigrateThroughPgbouncer(t *testing.T) {
	fresh := throughPgbouncer(t)
	via := fresh(t)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() {
			s, err := Open(context.Background(), via)
			if err == nil {
				err = s.Ping(context.Background())
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("instance %d: %v", i, err)
		}
	}
	s := open(t, via)
	var n int
	if err := s.DB().QueryRow(`SELECT count(*) FROM goose_db_version WHERE version_id > 0`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != len(mustMigrations(t)) {
		t.Errorf("%d migrations recorded, want %d (each once)", n, len(mustMigrations(t)))
	}
}

func mustMigrations(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sql") {
			out = append(out, e.Name())
		}
	}
	return out
}
