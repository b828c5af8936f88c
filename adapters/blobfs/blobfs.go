// Package blobfs is a ports.BlobStore on a local directory: each blob is one
// file, written to a temporary name and renamed into place, so a reader
// never sees half a blob. It suits one instance, or several that share the
// directory (a network file system); object storage is a later adapter.
package blobfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Store keeps blobs under a root directory.
type Store struct {
	root string
}

var _ ports.BlobStore = (*Store)(nil)

// Open returns a store rooted at dir, creating it if needed.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("blobfs: %w", err)
	}
	return &Store{root: dir}, nil
}

// path maps a key such as "media/0193…" to a file below the root. Keys are
// made by the domain, but a key that could climb out of the root is refused
// all the same.
func (s *Store) path(key string) (string, error) {
	if key == "" || !fs.ValidPath(key) || strings.Contains(key, `\`) {
		return "", contracts.Errorf(contracts.KindInvalid, "blob key %q is not valid", key)
	}
	return filepath.Join(s.root, filepath.FromSlash(key)), nil
}

// PutBlob stores at most maxBytes bytes from r under key, replacing any
// blob there. It fails invalid, storing nothing, when r holds more.
func (s *Store) PutBlob(ctx context.Context, key string, r io.Reader, maxBytes int64) (int64, error) {
	p, err := s.path(key)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		return 0, contracts.Internal(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".upload-*")
	if err != nil {
		return 0, contracts.Internal(err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	n, err := io.Copy(tmp, io.LimitReader(&ctxReader{ctx, r}, maxBytes+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return 0, contracts.Errorf(contracts.KindUnavailable, "upload cancelled")
	case err != nil:
		return 0, contracts.Internal(err)
	case n > maxBytes:
		return 0, contracts.Errorf(contracts.KindInvalid, "the file is larger than the %d bytes announced", maxBytes)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return 0, contracts.Internal(err)
	}
	return n, nil
}

// GetBlob opens a blob for reading. Not found when absent.
func (s *Store) GetBlob(ctx context.Context, key string) (io.ReadCloser, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, contracts.Errorf(contracts.KindNotFound, "blob not found")
	}
	if err != nil {
		return nil, contracts.Internal(err)
	}
	return f, nil
}

// DeleteBlob removes a blob; an absent blob is not an error.
func (s *Store) DeleteBlob(ctx context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return contracts.Internal(err)
	}
	return nil
}

// ctxReader stops a copy when the context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
