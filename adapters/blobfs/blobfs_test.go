package blobfs_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/adapters/blobfs"
	"github.com/takhtabush/takhtabush/contracts"
)

func TestPutGet(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := blobfs.Open(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.PutBlob(ctx, "media/m1", strings.NewReader("hello"), 5)
	if err != nil || n != 5 {
		t.Fatalf("PutBlob = %d, %v", n, err)
	}
	rc, err := s.GetBlob(ctx, "media/m1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(b) != "hello" {
		t.Fatalf("read %q", b)
	}

	// Too many bytes: invalid, and the earlier blob is untouched.
	if _, err := s.PutBlob(ctx, "media/m1", strings.NewReader("hello, world"), 5); !contracts.IsKind(err, contracts.KindInvalid) {
		t.Fatalf("oversized put: %v", err)
	}
	rc, _ = s.GetBlob(ctx, "media/m1")
	b, _ = io.ReadAll(rc)
	rc.Close()
	if string(b) != "hello" {
		t.Fatalf("a refused put changed the blob to %q", b)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "blobs", "media"))
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}

	if _, err := s.GetBlob(ctx, "media/none"); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Fatalf("missing blob: %v", err)
	}
	for _, bad := range []string{"../escape", "/abs", "media/../../x", "", `a\b`} {
		if _, err := s.PutBlob(ctx, bad, strings.NewReader("x"), 1); !contracts.IsKind(err, contracts.KindInvalid) {
			t.Errorf("key %q: %v", bad, err)
		}
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.PutBlob(cctx, "media/m2", strings.NewReader("x"), 1); !contracts.IsKind(err, contracts.KindUnavailable) {
		t.Fatalf("cancelled put: %v", err)
	}
}

func TestDeleteBlob(t *testing.T) {
	ctx := context.Background()
	s, err := blobfs.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutBlob(ctx, "media/d1", strings.NewReader("bye"), 3); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteBlob(ctx, "media/d1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetBlob(ctx, "media/d1"); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Fatalf("deleted blob still readable: %v", err)
	}
	if err := s.DeleteBlob(ctx, "media/d1"); err != nil {
		t.Fatalf("deleting an absent blob: %v", err)
	}
	if err := s.DeleteBlob(ctx, "../x"); !contracts.IsKind(err, contracts.KindInvalid) {
		t.Fatalf("bad key: %v", err)
	}
}
