package postgres

import (
	"context"
	"database/sql"
	"net/url"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/faultproxy"
	"github.com/takhtabush/takhtabush/contracts"
)

// through returns dbURL pointed at the proxy, with extra parameters.
func through(t *testing.T, dbURL, addr string, params map[string]string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = addr
	q := u.Query()
	for k, v := range params {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// timed runs f and fails when it takes longer than limit.
func timed(t *testing.T, what string, limit time.Duration, f func() error) (error, time.Duration) {
	t.Helper()
	start := time.Now()
	err := f()
	took := time.Since(start)
	if took > limit {
		t.Errorf("%s took %s, want at most %s", what, took.Round(time.Millisecond), limit)
	}
	return err, took
}

// A blackholed connection (the network path dies, nothing answers) ends
// every wait within the I/O timeout, as unavailable; a refused one at
// once; and the store recovers without a restart when the path heals.
func TestFaultBlackholeAndRefusal(t *testing.T) {
	db := freshDatabase(t)
	u, _ := url.Parse(db)
	p, err := faultproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	s, err := Open(ctx, through(t, db, p.Addr(), map[string]string{IOTimeoutParam: "1s", "connect_timeout": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	user := contracts.User{ID: "u1", Email: "u1@example.com", Name: "U", CreatedAt: time.Now().UTC()}
	if err := s.Users().CreateUser(ctx, user); err != nil {
		t.Fatal(err)
	}
	read := func() error {
		ctx, cancel := context.WithTimeout(ctx, 60*time.Second) // far beyond the bounds under test
		defer cancel()
		_, err := s.Users().UserByID(ctx, "u1")
		return err
	}

	p.Blackhole()
	err, took := timed(t, "a read through a blackhole", 5*time.Second, read)
	if !contracts.IsKind(err, contracts.KindUnavailable) {
		t.Errorf("read through a blackhole: %v, want unavailable", err)
	}
	t.Logf("blackhole: unavailable after %s", took.Round(time.Millisecond))
	err, _ = timed(t, "a ping through a blackhole", 5*time.Second, func() error { return s.Ping(ctx) })
	if !contracts.IsKind(err, contracts.KindUnavailable) {
		t.Errorf("ping through a blackhole: %v, want unavailable", err)
	}

	p.Heal()
	recovered := time.Now()
	for read() != nil {
		if time.Since(recovered) > 10*time.Second {
			t.Fatal("no recovery 10 s after the path healed")
		}
	}
	t.Logf("blackhole: recovered %s after healing", time.Since(recovered).Round(time.Millisecond))

	p.Refuse()
	err, took = timed(t, "a read against a refusing server", 3*time.Second, read)
	if !contracts.IsKind(err, contracts.KindUnavailable) {
		t.Errorf("read against a refusing server: %v, want unavailable", err)
	}
	t.Logf("refused: unavailable after %s", took.Round(time.Millisecond))
	p.Heal()
	if err := read(); err != nil {
		t.Errorf("no recovery after the server came back: %v", err)
	}
}

// Behind a table lock, a statement gives up after lock_timeout as
// unavailable instead of waiting for the caller's deadline.
func TestFaultLockedTable(t *testing.T) {
	db := freshDatabase(t)
	ctx := context.Background()
	u, _ := url.Parse(db)
	s, err := Open(ctx, through(t, db, u.Host, map[string]string{"lock_timeout": "500"}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	user := contracts.User{ID: "u1", Email: "u1@example.com", Name: "U", CreatedAt: time.Now().UTC()}
	if err := s.Users().CreateUser(ctx, user); err != nil {
		t.Fatal(err)
	}
	locker, err := sql.Open("postgres", db)
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	tx, err := locker.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`LOCK TABLE users IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	err, took := timed(t, "a read behind a table lock", 3*time.Second, func() error {
		ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		_, err := s.Users().UserByID(ctx, "u1")
		return err
	})
	if !contracts.IsKind(err, contracts.KindUnavailable) {
		t.Errorf("read behind a table lock: %v, want unavailable", err)
	}
	t.Logf("locked table: unavailable after %s", took.Round(time.Millisecond))
	_ = tx.Rollback()
	if _, err := s.Users().UserByID(ctx, "u1"); err != nil {
		t.Errorf("after the lock: %v", err)
	}
}
