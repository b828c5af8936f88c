// Package blobdisk is a ports.BlobStore keeping each blob in a file under
// one directory. Writes go to a temporary file first and are renamed into
// place, so a reader never sees a partial blob.
package blobdisk

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

// Store keeps blobs under a directory.
type Store struct {
	dir string
}

var _ ports.BlobStore = (*Store)(nil)

// New returns a store over dir, creating it when absent. Unavailable when
// it cannot be created.
func New(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, &contracts.Error{Kind: contracts.KindUnavailable, Message: "the media directory cannot be created", Err: err}
	}
	return &Store{dir: dir}, nil
}

// path maps a key ("media/ID") to a file path. Invalid for keys that are
// empty, absolute, or have empty, "." or ".." segments or characters
// outside [A-Za-z0-9._-].
func (s *Store) path(key string) (string, error) {
	bad := key == "" || len(key) > 512
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.HasPrefix(seg, ".") {
			bad = true
		}
		for _, r := range seg {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
				bad = true
			}
		}
	}
	if bad {
		return "", contracts.Errorf(contracts.KindInvalid, "invalid blob key")
	}
	return filepath.Join(s.dir, filepath.FromSlash(key)), nil
}

// PutBlob stores at most maxBytes bytes from r under key, replacing any
// blob there, and returns the size. Invalid when r holds more (nothing is
// stored then).
func (s *Store) PutBlob(ctx context.Context, key string, r io.Reader, maxBytes int64) (n int64, err error) {
	path, err := s.path(key)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return 0, unavailable(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".upload-*")
	if err != nil {
		return 0, unavailable(err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	n, err = io.Copy(tmp, io.LimitReader(ctxReader{ctx, r}, maxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return 0, &contracts.Error{Kind: contracts.KindUnavailable, Message: "the upload was canceled", Err: err}
		}
		return 0, &contracts.Error{Kind: contracts.KindInvalid, Message: "the upload could not be read", Err: err}
	}
	if n > maxBytes {
		return 0, contracts.Errorf(contracts.KindInvalid, "the file is larger than %d bytes", maxBytes)
	}
	if err = tmp.Sync(); err != nil {
		return 0, unavailable(err)
	}
	if err = tmp.Close(); err != nil {
		return 0, unavailable(err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return 0, unavailable(err)
	}
	return n, nil
}

// GetBlob opens a blob. Not found when absent.
func (s *Store) GetBlob(_ context.Context, key string) (io.ReadCloser, error) {
	path, err := s.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, contracts.Errorf(contracts.KindNotFound, "file not found")
	}
	if err != nil {
		return nil, unavailable(err)
	}
	return f, nil
}

// ctxReader stops reading when the context ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// unavailable wraps a file system failure.
func unavailable(err error) error {
	return &contracts.Error{Kind: contracts.KindUnavailable, Message: "media storage is unavailable", Err: fmt.Errorf("blobdisk: %w", err)}
}
