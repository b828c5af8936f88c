package domain_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/postgres"
	"github.com/takhtabush/takhtabush/adapters/sqlite"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

// The service tests run the domain end to end on the real SQLite store
// with a clock the test controls.

// clock is a settable ports.Clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// dirBlobs is a ports.BlobStore over a directory.
type dirBlobs struct{ dir string }

func (b dirBlobs) PutBlob(_ context.Context, key string, r io.Reader, maxBytes int64) (int64, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return 0, err
	}
	if int64(len(data)) > maxBytes {
		return 0, contracts.Errorf(contracts.KindInvalid, "too large")
	}
	p := filepath.Join(b.dir, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return 0, err
	}
	return int64(len(data)), os.WriteFile(p, data, 0o600)
}

func (b dirBlobs) GetBlob(_ context.Context, key string) (io.ReadCloser, error) {
	data, err := os.ReadFile(filepath.Join(b.dir, filepath.FromSlash(key)))
	if err != nil {
		return nil, contracts.Errorf(contracts.KindNotFound, "blob not found")
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

func (b dirBlobs) DeleteBlob(_ context.Context, key string) error {
	err := os.Remove(filepath.Join(b.dir, filepath.FromSlash(key)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// t0 is the tests' starting time: a Tuesday, mid-morning UTC.
var t0 = time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)

const baseURL = "https://tb.example"

type env struct {
	t     testing.TB
	store ports.Database
	clock *clock
	svc   *domain.Services
	blobs dirBlobs
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
	store := openStore(t, kind)
	c := &clock{t: t0}
	blobs := dirBlobs{dir: t.TempDir()}
	svc := domain.NewServices(store, blobs, c, domain.RandomIDs{}, fsrs.New(), domain.Config{BaseURL: baseURL + "/"})
	return &env{t: t, store: store, clock: c, svc: svc, blobs: blobs}
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
