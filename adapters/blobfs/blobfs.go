// Package blobfs is a ports.BlobStore on a local directory: each blob is one
// file (mode 0600), written under .staging/ and renamed into place, so a
// reader never sees half a blob and a reader that opened the old file keeps
// it. It suits SQLite deployments (one machine), or several instances that
// share the directory; a Postgres deployment behind a load balancer keeps
// its blobs in the database instead (sqlstore.BlobStore).
package blobfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/takhtabush/takhtabush/adapters/internal/blobkey"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// stagingDir holds blobs being written; keys never start with a dot.
const stagingDir = ".staging"

// Store keeps blobs under a root directory.
type Store struct {
	root string
}

var _ ports.BlobStore = (*Store)(nil)

// Open returns a store rooted at dir, creating it if needed.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(filepath.Join(dir, stagingDir), 0o700); err != nil {
		return nil, fmt.Errorf("blobfs: %w", err)
	}
	return &Store{root: dir}, nil
}

// path maps a valid key to a file below the root.
func (s *Store) path(key string) (string, error) {
	if err := blobkey.Check(key); err != nil {
		return "", err
	}
	return filepath.Join(s.root, filepath.FromSlash(key)), nil
}

// CreateBlob begins a blob in the staging directory.
func (s *Store) CreateBlob(ctx context.Context) (ports.BlobWriter, error) {
	f, err := os.CreateTemp(filepath.Join(s.root, stagingDir), "blob-*")
	if err != nil {
		return nil, unavailable(err)
	}
	return &writer{s: s, f: f}, nil
}

// writer is a blob being written.
type writer struct {
	s    *Store
	f    *os.File
	done bool
}

func (w *writer) Write(p []byte) (int, error) {
	if w.done {
		return 0, contracts.Errorf(contracts.KindInvalid, "the blob was already committed or aborted")
	}
	n, err := w.f.Write(p)
	if err != nil {
		return n, unavailable(err)
	}
	return n, nil
}

// Commit syncs the file and renames it to key's path.
func (w *writer) Commit(ctx context.Context, key string) error {
	if w.done {
		return contracts.Errorf(contracts.KindInvalid, "the blob was already committed or aborted")
	}
	p, err := w.s.path(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return contracts.Errorf(contracts.KindUnavailable, "cancelled")
	}
	if err := w.f.Sync(); err != nil {
		return unavailable(err)
	}
	if err := w.f.Close(); err != nil {
		return unavailable(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return unavailable(err)
	}
	if err := os.Rename(w.f.Name(), p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return contracts.Errorf(contracts.KindConflict, "the staged blob was purged before its commit")
		}
		return unavailable(err)
	}
	w.done = true
	return nil
}

// Abort removes the staged file.
func (w *writer) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	_ = w.f.Close()
	if err := os.Remove(w.f.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return unavailable(err)
	}
	return nil
}

// OpenBlob opens a blob for reading. Not found when absent.
func (s *Store) OpenBlob(ctx context.Context, key string) (ports.Blob, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, contracts.Errorf(contracts.KindNotFound, "blob not found")
	}
	if err != nil {
		return nil, unavailable(err)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, contracts.Errorf(contracts.KindNotFound, "blob not found")
	}
	return file{File: f, size: st.Size()}, nil
}

// file is an open blob.
type file struct {
	*os.File
	size int64
}

func (f file) Size() int64 { return f.size }

// DeleteBlob removes a blob; an absent blob is not an error.
func (s *Store) DeleteBlob(ctx context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return unavailable(err)
	}
	return nil
}

// PurgeStaged removes staged files last written before before.
func (s *Store) PurgeStaged(ctx context.Context, before time.Time) (int, error) {
	dir := filepath.Join(s.root, stagingDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, unavailable(err)
	}
	n := 0
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(before) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err == nil {
			n++
		} else if !errors.Is(err, fs.ErrNotExist) {
			return n, unavailable(err)
		}
	}
	return n, nil
}

// unavailable reports a file system failure without its paths.
func unavailable(err error) error {
	return &contracts.Error{Kind: contracts.KindUnavailable, Message: "the media storage cannot be written", Err: err}
}
