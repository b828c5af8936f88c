// Package blobtest is the contract suite every ports.BlobStore
// implementation runs, in the shape of testing/fstest.TestFS:
//
//	func TestBlobStore(t *testing.T) {
//		blobtest.TestBlobStore(t, func(t *testing.T) ports.BlobStore { return openFresh(t) })
//	}
//
// It checks streaming writes and reads (in order, at offsets, seeking),
// commit replacing a blob whole, abort and purge of staged blobs, key
// validation, deletion, and concurrent commits to one key.
package blobtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// TestBlobStore runs the contract suite. Every subtest calls open for a
// fresh, empty store; open registers its cleanup with t.Cleanup.
func TestBlobStore(t *testing.T, open func(t *testing.T) ports.BlobStore) {
	for _, c := range []struct {
		name string
		fn   func(t *testing.T, s ports.BlobStore)
	}{
		{"WriteCommitRead", testWriteCommitRead},
		{"LargeStreams", testLarge},
		{"ReplaceIsWhole", testReplace},
		{"AbortAndPurge", testAbortAndPurge},
		{"Delete", testDelete},
		{"BadKeys", testBadKeys},
		{"ConcurrentCommits", testConcurrentCommits},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

// put stores b under key.
func put(t *testing.T, s ports.BlobStore, key string, b []byte) {
	t.Helper()
	ctx := context.Background()
	w, err := s.CreateBlob(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Abort() }()
	// Write in uneven pieces, as a network body arrives.
	for rest := b; len(rest) > 0; {
		n := min(len(rest), 7000)
		if _, err := w.Write(rest[:n]); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if err := w.Commit(ctx, key); err != nil {
		t.Fatalf("Commit(%q): %v", key, err)
	}
}

// get reads the blob under key whole.
func get(t *testing.T, s ports.BlobStore, key string) []byte {
	t.Helper()
	b, err := s.OpenBlob(context.Background(), key)
	if err != nil {
		t.Fatalf("OpenBlob(%q): %v", key, err)
	}
	defer b.Close()
	out, err := io.ReadAll(b)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(out)) != b.Size() {
		t.Fatalf("Size() = %d, read %d bytes", b.Size(), len(out))
	}
	return out
}

func random(t *testing.T, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func testWriteCommitRead(t *testing.T, s ports.BlobStore) {
	ctx := context.Background()
	put(t, s, "media/u1/abc", []byte("hello"))
	if got := get(t, s, "media/u1/abc"); string(got) != "hello" {
		t.Fatalf("read %q", got)
	}
	put(t, s, "media/u1/empty", nil)
	if got := get(t, s, "media/u1/empty"); len(got) != 0 {
		t.Fatalf("empty blob read %q", got)
	}
	if _, err := s.OpenBlob(ctx, "media/u1/none"); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Fatalf("absent blob: %v", err)
	}
	// A committed writer is done: Abort after Commit keeps the blob.
	w, err := s.CreateBlob(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("kept"))
	if err := w.Commit(ctx, "media/u1/kept"); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatalf("Abort after Commit: %v", err)
	}
	if got := get(t, s, "media/u1/kept"); string(got) != "kept" {
		t.Fatalf("Abort after Commit changed the blob to %q", got)
	}
}

// testLarge streams a few megabytes through and reads them back in order,
// at offsets and after seeking.
func testLarge(t *testing.T, s ports.BlobStore) {
	data := random(t, 3<<20+12345)
	put(t, s, "pkg/u1/big.zip", data)
	b, err := s.OpenBlob(context.Background(), "pkg/u1/big.zip")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Size() != int64(len(data)) {
		t.Fatalf("Size() = %d, want %d", b.Size(), len(data))
	}
	for _, off := range []int64{0, 1, 1<<20 - 3, 2<<20 + 99, int64(len(data)) - 10} {
		p := make([]byte, 4096)
		n, err := b.ReadAt(p, off)
		want := data[off:min(off+4096, int64(len(data)))]
		if n != len(want) || !bytes.Equal(p[:n], want) || (n < len(p) && err != io.EOF) || (n == len(p) && err != nil && err != io.EOF) {
			t.Fatalf("ReadAt(%d) = %d, %v", off, n, err)
		}
	}
	if _, err := b.Seek(-100, io.SeekEnd); err != nil {
		t.Fatal(err)
	}
	tail, err := io.ReadAll(b)
	if err != nil || !bytes.Equal(tail, data[len(data)-100:]) {
		t.Fatalf("after Seek: %d bytes, %v", len(tail), err)
	}
	if _, err := b.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	all, err := io.ReadAll(b)
	if err != nil || !bytes.Equal(all, data) {
		t.Fatalf("re-read %d bytes, %v", len(all), err)
	}
}

// testReplace: committing under a taken key replaces the blob whole; a
// reader opened before reads the old bytes or fails, never a mix.
func testReplace(t *testing.T, s ports.BlobStore) {
	old, next := random(t, 300<<10), random(t, 200<<10)
	put(t, s, "media/u1/k", old)
	r, err := s.OpenBlob(context.Background(), "media/u1/k")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	put(t, s, "media/u1/k", next)
	if got := get(t, s, "media/u1/k"); !bytes.Equal(got, next) {
		t.Fatalf("after replacing: %d bytes, want the new %d", len(got), len(next))
	}
	if got, err := io.ReadAll(r); err == nil && !bytes.Equal(got, old) {
		t.Fatalf("a reader opened before the replacement read %d bytes that are not the old %d", len(got), len(old))
	}
}

func testAbortAndPurge(t *testing.T, s ports.BlobStore) {
	ctx := context.Background()
	w, err := s.CreateBlob(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("gone"))
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatalf("second Abort: %v", err)
	}
	// A staged blob left behind (a crash) is purged once old enough, and a
	// committed one never.
	put(t, s, "media/u1/stays", []byte("stays"))
	left, err := s.CreateBlob(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = left.Write(random(t, 1000))
	if n, err := s.PurgeStaged(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("PurgeStaged(an hour ago) = %d, %v; the staged blob is younger", n, err)
	}
	if n, err := s.PurgeStaged(ctx, time.Now().Add(time.Minute)); err != nil || n != 1 {
		t.Fatalf("PurgeStaged(now) = %d, %v; want 1", n, err)
	}
	if got := get(t, s, "media/u1/stays"); string(got) != "stays" {
		t.Fatalf("purge touched a committed blob: %q", got)
	}
	// Committing a purged writer fails rather than filing nothing.
	if err := left.Commit(ctx, "media/u1/late"); err == nil {
		if _, err := s.OpenBlob(ctx, "media/u1/late"); err != nil {
			t.Fatalf("Commit of a purged blob succeeded but the blob is absent: %v", err)
		}
	}
}

func testDelete(t *testing.T, s ports.BlobStore) {
	ctx := context.Background()
	put(t, s, "media/u1/d", []byte("bye"))
	put(t, s, "media/u1/other", []byte("stay"))
	if err := s.DeleteBlob(ctx, "media/u1/d"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenBlob(ctx, "media/u1/d"); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Fatalf("deleted blob: %v", err)
	}
	if err := s.DeleteBlob(ctx, "media/u1/d"); err != nil {
		t.Fatalf("deleting an absent blob: %v", err)
	}
	if got := get(t, s, "media/u1/other"); string(got) != "stay" {
		t.Fatalf("delete touched another blob: %q", got)
	}
}

func testBadKeys(t *testing.T, s ports.BlobStore) {
	ctx := context.Background()
	for _, bad := range []string{"", "../escape", "/abs", "media/../../x", `a\b`, "a//b", "a/./b", "a/b/", "a b", "a\x00b"} {
		if _, err := s.OpenBlob(ctx, bad); !contracts.IsKind(err, contracts.KindInvalid) {
			t.Errorf("OpenBlob(%q): %v", bad, err)
		}
		if err := s.DeleteBlob(ctx, bad); !contracts.IsKind(err, contracts.KindInvalid) {
			t.Errorf("DeleteBlob(%q): %v", bad, err)
		}
		w, err := s.CreateBlob(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write([]byte("x"))
		if err := w.Commit(ctx, bad); !contracts.IsKind(err, contracts.KindInvalid) {
			t.Errorf("Commit(%q): %v", bad, err)
		}
		_ = w.Abort()
	}
}

// testConcurrentCommits: writers racing to one key leave one of their
// blobs whole.
func testConcurrentCommits(t *testing.T, s ports.BlobStore) {
	const n = 4
	datas := make([][]byte, n)
	for i := range datas {
		datas[i] = random(t, 64<<10)
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			w, err := s.CreateBlob(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			defer func() { _ = w.Abort() }()
			if _, err := w.Write(datas[i]); err != nil {
				t.Error(err)
				return
			}
			if err := w.Commit(ctx, "media/u1/race"); err != nil && !contracts.IsKind(err, contracts.KindConflict) {
				t.Errorf("Commit: %v", err)
			}
		}()
	}
	wg.Wait()
	got := get(t, s, "media/u1/race")
	for _, d := range datas {
		if bytes.Equal(got, d) {
			return
		}
	}
	t.Fatalf("the blob after racing commits is none of the writers' (%d bytes)", len(got))
}
