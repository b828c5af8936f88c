package domain_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/blobfs"
	"github.com/takhtabush/takhtabush/adapters/postgres"
	"github.com/takhtabush/takhtabush/adapters/sqlite"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// The service tests run the domain end to end on the real SQLite store
// with a clock the test controls.

// clock is a settable ports.Clock; with a tick it moves on by the tick at
// every read, as a real clock does between reads.
type clock struct {
	mu   sync.Mutex
	t    time.Time
	tick time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(c.tick)
	return t
}

// Tick makes every later read move the clock on by d (0: it stands).
func (c *clock) Tick(d time.Duration) { c.mu.Lock(); c.tick = d; c.mu.Unlock() }

func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// tinyPNG is a whole 1×1 PNG: uploads are sniffed, so test files must
// look like what they claim to be.
const tinyPNG = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
	"\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82"

// blob reads the stored bytes of a media file.
func (e *env) blob(mediaID string) ([]byte, error) {
	row, err := e.store.Media().MediaByID(context.Background(), mediaID)
	if err != nil {
		return nil, err
	}
	return e.blobKey(library.MediaBlobKey(row))
}

// blobKey reads the blob under key.
func (e *env) blobKey(key string) ([]byte, error) {
	b, err := e.blobs.OpenBlob(context.Background(), key)
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return io.ReadAll(b)
}

// t0 is the tests' starting time: a Tuesday, mid-morning UTC.
var t0 = time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)

const baseURL = "https://tb.example"

type env struct {
	t     testing.TB
	store ports.Database
	clock *clock
	svc   *domain.Services
	blobs *blobfs.Store
}

// The stores the service tests run on. Postgres runs when
// TAKHTABUSH_TEST_POSTGRES_URL names a database whose server lets the user
// create databases; each test gets a fresh one.
const (
	onSQLite   = "sqlite"
	onPostgres = "postgres"
	pgURLEnv   = "TAKHTABUSH_TEST_POSTGRES_URL"
)

// eachStore runs test as a subtest per store.
func eachStore(t *testing.T, test func(t *testing.T, store string)) {
	t.Run(onSQLite, func(t *testing.T) { test(t, onSQLite) })
	t.Run(onPostgres, func(t *testing.T) {
		if os.Getenv(pgURLEnv) == "" {
			t.Skip(pgURLEnv + " not set")
		}
		test(t, onPostgres)
	})
}

func openStore(t testing.TB, kind string) ports.Database {
	t.Helper()
	ctx := context.Background()
	if kind == onSQLite {
		store, err := sqlite.Open(ctx, sqlite.Memory)
		if err != nil {
			t.Fatalf("open sqlite: %v", err)
		}
		t.Cleanup(func() { store.Close() })
		return store
	}
	base := os.Getenv(pgURLEnv)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", pgURLEnv, err)
	}
	admin, err := sql.Open("postgres", base)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := "tb_domain_" + strings.ReplaceAll(domain.RandomIDs{}.NewID(), "-", "")
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	store, err := postgres.Open(ctx, u.String())
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

func newEnv(t testing.TB, kind string) *env {
	t.Helper()
	return newEnvWith(t, kind, fsrs.New())
}

// newEnvWith is newEnv with the scheduler sched.
func newEnvWith(t testing.TB, kind string, sched ports.Scheduler) *env {
	t.Helper()
	return newEnvIDs(t, kind, sched, domain.RandomIDs{})
}

// newEnvIDs is newEnvWith with the ID source ids.
func newEnvIDs(t testing.TB, kind string, sched ports.Scheduler, ids ports.IDSource) *env {
	t.Helper()
	store := openStore(t, kind)
	c := &clock{t: t0}
	blobs, err := blobfs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svc := domain.NewServices(store, blobs, c, ids, sched, domain.Config{BaseURL: baseURL + "/"})
	return &env{t: t, store: store, clock: c, svc: svc, blobs: blobs}
}

// countedIDs gives the same time-ordered UUIDv7-shaped ids on every run
// (t0's millisecond, then a counter), for tests whose outcome depends on
// ids: the optimiser holds cards out by a hash of their ids, so with
// random ids a seeded learner's held-out cards change from run to run.
type countedIDs struct {
	domain.RandomIDs // secrets stay random
	mu               sync.Mutex
	n                uint64
}

// NewID returns the next id.
func (c *countedIDs) NewID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	ms := uint64(t0.UnixMilli())
	return fmt.Sprintf("%08x-%04x-7000-8000-%012x", ms>>16, ms&0xffff, c.n)
}

// user creates an account and returns a context acting for it through a
// web session principal.
func (e *env) user(email string) context.Context {
	e.t.Helper()
	u, err := e.svc.Accounts.CreateUser(context.Background(), email, "")
	if err != nil {
		e.t.Fatalf("create user %s: %v", email, err)
	}
	return as(u.ID, contracts.CredentialSession)
}

func as(userID string, kind contracts.CredentialKind) context.Context {
	return contracts.WithPrincipal(context.Background(), contracts.Principal{
		UserID: userID, Scopes: contracts.AllScopes, CredentialKind: kind, CredentialID: "cred-" + string(kind),
	})
}

func (e *env) deck(ctx context.Context, name string) contracts.Deck {
	e.t.Helper()
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: name})
	if err != nil {
		e.t.Fatalf("create deck %s: %v", name, err)
	}
	return d
}

func (e *env) add(ctx context.Context, deckID string, cards ...contracts.NewCard) contracts.BulkResult {
	e.t.Helper()
	r, err := e.svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: deckID, Cards: cards})
	if err != nil {
		e.t.Fatalf("add cards: %v", err)
	}
	return r
}

func card(front, back string, tags ...string) contracts.NewCard {
	return contracts.NewCard{Front: front, Back: back, Tags: tags}
}

func wantKind(t testing.TB, err error, kind contracts.ErrorKind) {
	t.Helper()
	if !contracts.IsKind(err, kind) {
		t.Fatalf("error %v (kind %q), want kind %q", err, contracts.KindOf(err), kind)
	}
}

func ptr[T any](v T) *T { return &v }
