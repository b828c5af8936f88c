package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pressly/goose/v3"
)

// openAt opens a new store migrated up to version only, for a migration
// test to write rows as they stood before the next migration; the test
// then runs s.migrate and checks what it made of them.
func openAt(t *testing.T, version int64) *Store {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "m.db"), WithoutMigrate())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	p, err := goose.NewProvider(goose.DialectSQLite3, s.DB(), Migrations(), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.UpTo(ctx, version); err != nil {
		t.Fatal(err)
	}
	return s
}
