package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"io"
	"time"

	"github.com/takhtabush/takhtabush/adapters/internal/blobkey"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// BlobChunkSize is the size of the chunks a blob's bytes are stored in.
const BlobChunkSize = 256 << 10

// BlobStore is a ports.BlobStore in the database, for deployments where
// several instances share one Postgres and no file system: every instance
// reads what any other wrote. A blob is an object row (blob_objects) whose
// bytes are chunk rows (blob_chunks); the object gets its key when it is
// committed. Committing under a taken key keeps the newest object and
// deletes the older ones, so a key always names one whole blob. Writing
// streams chunk by chunk and reading fetches one chunk at a time: memory
// stays at a chunk or two whatever the blob's size.
type BlobStore struct {
	s   *Store
	now func() time.Time
}

var _ ports.BlobStore = (*BlobStore)(nil)

// Blobs returns the store's blob store.
func (s *Store) Blobs() *BlobStore { return &BlobStore{s: s, now: time.Now} }

func newBlobID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// CreateBlob inserts a staged object.
func (b *BlobStore) CreateBlob(ctx context.Context) (ports.BlobWriter, error) {
	id := newBlobID()
	_, err := b.s.db.ExecContext(ctx, `INSERT INTO blob_objects (blob_id, blob_key, size, chunk_size, created_at) VALUES ($1, NULL, 0, $2, $3)`,
		id, BlobChunkSize, ms(b.now()))
	if err != nil {
		return nil, b.s.wrap(ctx, err, "create blob")
	}
	return &blobWriter{b: b, id: id, buf: make([]byte, 0, BlobChunkSize)}, nil
}

// blobWriter buffers one chunk and inserts it when full.
type blobWriter struct {
	b    *BlobStore
	id   string
	buf  []byte
	seq  int
	size int64
	done bool
	err  error
}

func (w *blobWriter) Write(p []byte) (int, error) {
	if w.done {
		return 0, contracts.Errorf(contracts.KindInvalid, "the blob was already committed or aborted")
	}
	if w.err != nil {
		return 0, w.err
	}
	n := 0
	for len(p) > 0 {
		k := min(len(p), BlobChunkSize-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p, n = p[k:], n+k
		if len(w.buf) == BlobChunkSize {
			if err := w.flush(context.Background()); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// flush inserts the buffered chunk.
func (w *blobWriter) flush(ctx context.Context) error {
	if len(w.buf) == 0 {
		return nil
	}
	if _, err := w.b.s.db.ExecContext(ctx, `INSERT INTO blob_chunks (blob_id, seq, data) VALUES ($1, $2, $3)`, w.id, w.seq, w.buf); err != nil {
		w.err = w.b.s.wrap(ctx, err, "write blob")
		if contracts.IsKind(w.err, contracts.KindNotFound) {
			w.err = contracts.Errorf(contracts.KindConflict, "the staged blob was purged before its commit")
		}
		return w.err
	}
	w.size += int64(len(w.buf))
	w.seq++
	w.buf = w.buf[:0]
	return nil
}

// Commit names the object key and deletes the key's older objects.
func (w *blobWriter) Commit(ctx context.Context, key string) error {
	if w.done {
		return contracts.Errorf(contracts.KindInvalid, "the blob was already committed or aborted")
	}
	if err := blobkey.Check(key); err != nil {
		return err
	}
	if w.err != nil {
		return w.err
	}
	if err := w.flush(ctx); err != nil {
		return err
	}
	s := w.b.s
	at := ms(w.b.now())
	// A commit orders after every earlier commit under the key even within
	// one millisecond (blob ids are random, so they cannot break that tie):
	// otherwise a replacement made in the same millisecond as the object it
	// replaces could lose to it.
	var last sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT MAX(committed_at) FROM blob_objects WHERE blob_key = $1`, key).Scan(&last); err != nil {
		return s.wrap(ctx, err, "commit blob")
	}
	if last.Valid && last.Int64 >= at {
		at = last.Int64 + 1
	}
	res, err := s.db.ExecContext(ctx, `UPDATE blob_objects SET blob_key = $2, size = $3, committed_at = $4 WHERE blob_id = $1 AND blob_key IS NULL`,
		w.id, key, w.size, at)
	n, err := s.root.affected(ctx, res, err, "commit blob")
	if err != nil {
		return err
	}
	if n == 0 {
		return contracts.Errorf(contracts.KindConflict, "the staged blob was purged before its commit")
	}
	w.done = true
	// Older objects under the key go; of racing commits the newest stays
	// (each deletes only objects ordered before itself).
	if _, err := s.db.ExecContext(ctx, `DELETE FROM blob_objects WHERE blob_key = $1
AND (committed_at < $2 OR (committed_at = $2 AND blob_id < $3))`, key, at, w.id); err != nil {
		return s.wrap(ctx, err, "replace blob")
	}
	return nil
}

// Abort deletes the staged object and its chunks.
func (w *blobWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := w.b.s.db.ExecContext(ctx, `DELETE FROM blob_objects WHERE blob_id = $1 AND blob_key IS NULL`, w.id); err != nil {
		return w.b.s.wrap(ctx, err, "abort blob")
	}
	return nil
}

// OpenBlob finds the key's newest object.
func (b *BlobStore) OpenBlob(ctx context.Context, key string) (ports.Blob, error) {
	if err := blobkey.Check(key); err != nil {
		return nil, err
	}
	r := &blobReader{b: b, ctx: context.WithoutCancel(ctx), cached: -1}
	err := b.s.db.QueryRowContext(ctx, `SELECT blob_id, size, chunk_size FROM blob_objects WHERE blob_key = $1
ORDER BY committed_at DESC, blob_id DESC LIMIT 1`, key).Scan(&r.id, &r.size, &r.chunk)
	if errNoRows(err) {
		return nil, contracts.Errorf(contracts.KindNotFound, "blob not found")
	}
	if err != nil {
		return nil, b.s.wrap(ctx, err, "open blob")
	}
	if r.chunk <= 0 {
		return nil, contracts.Internal(errors.New("sqlstore: blob with a chunk size of 0"))
	}
	return r, nil
}

// blobReader reads an object chunk by chunk, keeping the last one.
type blobReader struct {
	b      *BlobStore
	ctx    context.Context
	id     string
	size   int64
	chunk  int64
	off    int64
	cached int64
	data   []byte
}

func (r *blobReader) Size() int64  { return r.size }
func (r *blobReader) Close() error { r.data = nil; return nil }

// load fetches chunk i.
func (r *blobReader) load(i int64) error {
	if i == r.cached {
		return nil
	}
	var data []byte
	err := r.b.s.db.QueryRowContext(r.ctx, `SELECT data FROM blob_chunks WHERE blob_id = $1 AND seq = $2`, r.id, i).Scan(&data)
	if errNoRows(err) {
		// Replaced or deleted since it was opened: fail rather than mix.
		return contracts.Errorf(contracts.KindNotFound, "the blob was replaced or deleted while being read")
	}
	if err != nil {
		return r.b.s.wrap(r.ctx, err, "read blob")
	}
	r.cached, r.data = i, data
	return nil
}

// ReadAt reads len(p) bytes at off, or what is left with io.EOF.
func (r *blobReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, contracts.Errorf(contracts.KindInvalid, "negative offset")
	}
	n := 0
	for n < len(p) {
		pos := off + int64(n)
		if pos >= r.size {
			return n, io.EOF
		}
		i := pos / r.chunk
		if err := r.load(i); err != nil {
			return n, err
		}
		in := pos - i*r.chunk
		if in >= int64(len(r.data)) {
			return n, io.ErrUnexpectedEOF
		}
		n += copy(p[n:], r.data[in:])
	}
	return n, nil
}

func (r *blobReader) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	if int64(len(p)) > r.size-r.off {
		p = p[:r.size-r.off]
	}
	n, err := r.ReadAt(p, r.off)
	r.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (r *blobReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.size
	default:
		return 0, contracts.Errorf(contracts.KindInvalid, "bad whence")
	}
	if offset < 0 {
		return 0, contracts.Errorf(contracts.KindInvalid, "negative position")
	}
	r.off = offset
	return offset, nil
}

// DeleteBlob deletes every object under key.
func (b *BlobStore) DeleteBlob(ctx context.Context, key string) error {
	if err := blobkey.Check(key); err != nil {
		return err
	}
	if _, err := b.s.db.ExecContext(ctx, `DELETE FROM blob_objects WHERE blob_key = $1`, key); err != nil {
		return b.s.wrap(ctx, err, "delete blob")
	}
	return nil
}

// PurgeStaged deletes objects staged before before and never committed.
func (b *BlobStore) PurgeStaged(ctx context.Context, before time.Time) (int, error) {
	res, err := b.s.db.ExecContext(ctx, `DELETE FROM blob_objects WHERE blob_key IS NULL AND created_at < $1`, ms(before))
	n, err := b.s.root.affected(ctx, res, err, "purge staged blobs")
	return int(n), err
}
