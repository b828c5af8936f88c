package postgres

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
	"github.com/takhtabush/takhtabush/ports/blobtest"
	"github.com/takhtabush/takhtabush/ports/storetest"
)

// envURL names the environment variable holding the base database URL.
const envURL = "TAKHTABUSH_TEST_POSTGRES_URL"

// baseURL returns the test database URL or skips the test.
func baseURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(envURL)
	if u == "" {
		t.Skip(envURL + " not set: Postgres suite skipped")
	}
	return u
}

// freshDatabase creates an empty database next to the base URL's and
// returns its URL; t.Cleanup drops it.
func freshDatabase(t testing.TB) string {
	t.Helper()
	base := baseURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", envURL, err)
	}
	admin, err := sql.Open("postgres", base)
	if err != nil {
		t.Fatalf("open %s: %v", envURL, err)
	}
	defer admin.Close()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "tb_test_" + hex.EncodeToString(b)
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		admin, err := sql.Open("postgres", base)
		if err != nil {
			t.Errorf("drop database: %v", err)
			return
		}
		defer admin.Close()
		if _, err := admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// freshSchema creates an empty schema in the database at dbURL and returns
// a URL whose connections use it (search_path); dropping the database
// drops it.
func freshSchema(t testing.TB, dbURL string) string {
	t.Helper()
	admin, err := sql.Open("postgres", dbURL)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer admin.Close()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "s_" + hex.EncodeToString(b)
	if _, err := admin.Exec("CREATE SCHEMA " + name); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	q.Set("synchronous_commit", "off") // tests need no durability
	u.RawQuery = q.Encode()
	return u.String()
}

// open opens a store on url, closing it at the end of the test.
func open(t testing.TB, url string, opts ...Option) *Store {
	t.Helper()
	s, err := Open(context.Background(), url, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// withoutLock skips the migration lock: each test migrates a private schema.
func withoutLock() Option { return func(o *options) { o.noLock = true } }

func TestStore(t *testing.T) {
	db := freshDatabase(t)
	storetest.TestStore(t, func(t *testing.T) ports.Database { return open(t, freshSchema(t, db), withoutLock()) })
}

// The blob store Postgres deployments use passes its contract.
func TestBlobStore(t *testing.T) {
	db := freshDatabase(t)
	blobtest.TestBlobStore(t, func(t *testing.T) ports.BlobStore { return open(t, freshSchema(t, db), withoutLock()).Blobs() })
}

func TestStatementCacheParam(t *testing.T) {
	for _, c := range []struct {
		in, out string
		off     bool
		bad     bool
	}{
		{in: "postgres://u@h/db?sslmode=disable", out: "postgres://u@h/db?sslmode=disable"},
		{in: "postgres://u@h/db?sslmode=disable&statement_cache=off", out: "postgres://u@h/db?binary_parameters=yes&sslmode=disable", off: true},
		{in: "postgres://u@h/db?statement_cache=off&binary_parameters=no", out: "postgres://u@h/db?binary_parameters=no", off: true},
		{in: "postgresql://u@h/db?statement_cache=on", out: "postgresql://u@h/db"},
		{in: "postgres://u@h/db?statement_cache=no", bad: true},
		{in: "host=h dbname=db", out: "host=h dbname=db"},
	} {
		out, off, err := statementCache(c.in)
		if c.bad {
			if contracts.KindOf(err) != contracts.KindInvalid {
				t.Errorf("%s: err = %v, want invalid", c.in, err)
			}
			continue
		}
		if err != nil || out != c.out || off != c.off {
			t.Errorf("%s: (%q, %v, %v), want (%q, %v)", c.in, out, off, err, c.out, c.off)
		}
	}
	if TxSlots(16) != 12 || TxSlots(3) != 2 || TxSlots(2) != 1 {
		t.Errorf("TxSlots(16, 3, 2) = %d, %d, %d", TxSlots(16), TxSlots(3), TxSlots(2))
	}
}

// TestStatementCacheOff runs a transaction and a read on a store opened
// with statement_cache=off.
func TestStatementCacheOff(t *testing.T) {
	u, err := url.Parse(freshSchema(t, freshDatabase(t)))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(StatementCacheParam, "off")
	u.RawQuery = q.Encode()
	s := open(t, u.String(), withoutLock())
	ctx := context.Background()
	users := seedStallUsers(t, s, 1)
	if err := stallRequest(ctx, s, users[0], "off"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Users().UserByID(ctx, users[0].id); err != nil {
		t.Fatal(err)
	}
}
