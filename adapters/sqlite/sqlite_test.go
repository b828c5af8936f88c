package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/takhtabush/takhtabush/ports"
	"github.com/takhtabush/takhtabush/ports/blobtest"
	"github.com/takhtabush/takhtabush/ports/storetest"
)

// openTemp opens a fresh store in a temporary directory.
func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "takhtabush.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestStore(t *testing.T) {
	storetest.TestStore(t, func(t *testing.T) ports.Database { return openTemp(t) })
}

// The database blob store passes its contract on SQLite too (deployments
// on SQLite use blobfs; this keeps the shared SQL honest).
func TestBlobStore(t *testing.T) {
	blobtest.TestBlobStore(t, func(t *testing.T) ports.BlobStore { return openTemp(t).Blobs() })
}
