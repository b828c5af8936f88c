package blobdisk

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

func TestPutGet(t *testing.T) {
	ctx := context.Background()
	s, err := New(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("png!"), 1000)
	n, err := s.PutBlob(ctx, "media/m1", bytes.NewReader(data), int64(len(data)))
	if err != nil || n != int64(len(data)) {
		t.Fatalf("PutBlob = %d, %v", n, err)
	}
	rc, err := s.GetBlob(ctx, "media/m1")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(got, data) {
		t.Errorf("GetBlob returned %d bytes, want the %d put", len(got), len(data))
	}
	// Replacing works.
	if _, err := s.PutBlob(ctx, "media/m1", strings.NewReader("new"), 10); err != nil {
		t.Fatal(err)
	}
	rc, _ = s.GetBlob(ctx, "media/m1")
	got, _ = io.ReadAll(rc)
	rc.Close()
	if string(got) != "new" {
		t.Errorf("after a replacement GetBlob = %q", got)
	}
}

func TestTooLargeStoresNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, _ := New(dir)
	_, err := s.PutBlob(ctx, "media/big", strings.NewReader("0123456789"), 9)
	if contracts.KindOf(err) != contracts.KindInvalid {
		t.Fatalf("PutBlob of 10 bytes with a limit of 9: %v, want invalid", err)
	}
	if _, err := s.GetBlob(ctx, "media/big"); contracts.KindOf(err) != contracts.KindNotFound {
		t.Errorf("GetBlob after a refused put: %v, want not_found", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "media"))
	if len(entries) != 0 {
		t.Errorf("a refused put left %d files behind", len(entries))
	}
	n, err := s.PutBlob(ctx, "media/exact", strings.NewReader("012345678"), 9)
	if err != nil || n != 9 {
		t.Errorf("PutBlob of exactly the limit = %d, %v", n, err)
	}
}

func TestBadKeys(t *testing.T) {
	s, _ := New(t.TempDir())
	for _, key := range []string{"", "/abs", "../escape", "media/../../x", "media//x", "media/.hidden", "media/a b", `media\x`} {
		if _, err := s.PutBlob(context.Background(), key, strings.NewReader("x"), 10); contracts.KindOf(err) != contracts.KindInvalid {
			t.Errorf("PutBlob(%q): %v, want invalid", key, err)
		}
		if _, err := s.GetBlob(context.Background(), key); contracts.KindOf(err) != contracts.KindInvalid {
			t.Errorf("GetBlob(%q): %v, want invalid", key, err)
		}
	}
}
