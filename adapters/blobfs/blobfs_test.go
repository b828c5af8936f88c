package blobfs_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/adapters/blobfs"
	"github.com/takhtabush/takhtabush/ports"
	"github.com/takhtabush/takhtabush/ports/blobtest"
)

func TestBlobStore(t *testing.T) {
	blobtest.TestBlobStore(t, func(t *testing.T) ports.BlobStore {
		s, err := blobfs.Open(filepath.Join(t.TempDir(), "blobs"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// Files are private to the service's user, and nothing is left in the
// staging directory after a commit.
func TestFileModes(t *testing.T) {
	dir := t.TempDir()
	s, err := blobfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	w, err := s.CreateBlob(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte(strings.Repeat("x", 100)))
	if err := w.Commit(ctx, "media/u/k"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "media", "u", "k"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("blob file: %v, %v", st, err)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, ".staging")); len(left) != 0 {
		t.Fatalf("staging not empty: %v", left)
	}
}
