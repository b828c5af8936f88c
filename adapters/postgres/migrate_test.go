package postgres

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

func TestMigrateIsIdempotent(t *testing.T) {
	ctx := context.Background()
	s := open(t, freshDatabase(t), WithoutMigrate())
	n, err := s.migrate(ctx)
	if err != nil || n == 0 {
		t.Fatalf("first migration applied %d, %v; want every migration", n, err)
	}
	n, err = s.migrate(ctx)
	if err != nil || n != 0 {
		t.Fatalf("second migration applied %d, %v; want a no-op", n, err)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestInstancesStartTogether opens several stores on one empty database at
// once, as service instances behind a load balancer do: the advisory lock
// lets one apply the migrations and the others find them applied.
func TestInstancesStartTogether(t *testing.T) {
	ctx := context.Background()
	url := freshDatabase(t)
	const n = 4
	stores := make([]*Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = Open(ctx, url, WithMaxOpenConns(3))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	// They share the data.
	if err := stores[0].Users().CreateUser(ctx, contracts.User{ID: "u1", Email: "u1@example.com", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := stores[n-1].Users().UserByID(ctx, "u1"); err != nil {
		t.Fatalf("another instance does not see the user: %v", err)
	}
}

func TestOpenUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Open(ctx, "postgres://nobody:secret-password@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	if contracts.KindOf(err) != contracts.KindUnavailable {
		t.Fatalf("Open of an unreachable database: %v (kind %s), want unavailable", err, contracts.KindOf(err))
	}
	if msg := contracts.MessageOf(err); strings.Contains(msg, "secret-password") {
		t.Errorf("the error message leaks the password: %q", msg)
	}
}
