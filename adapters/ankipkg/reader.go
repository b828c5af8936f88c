package ankipkg

import (
	"archive/zip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Reader reads .apkg and .colpkg files: the legacy collection.anki2 and
// collection.anki21 (schema 11, JSON note types, decks and presets) and
// the current collection.anki21b (zstd, schema 18, protobuf records).
type Reader struct {
	// TempDir holds the unpacked collection while it is read ("" is
	// os.TempDir()).
	TempDir string
	// Limits bound what a package may hold; zero fields take the
	// DefaultLimits value.
	Limits Limits
}

var _ ports.PackageReader = Reader{}

// Limits bound a package, so a hostile one fails early with a reason
// instead of filling the disk or the memory.
type Limits struct {
	Entries         int   // zip entries
	CollectionBytes int64 // the unpacked SQLite collection
	MediaFileBytes  int64 // one media file, unpacked
	TotalBytes      int64 // every entry, unpacked
	FieldBytes      int   // one note's fields together
	TemplateBytes   int   // one template side, or a note type's CSS
	MetaBytes       int64 // the meta file, the media map, each JSON value of the col row
	// ValueBytes is the reading connection's length limit
	// (SQLITE_LIMIT_LENGTH): no value of the collection, nor any a query
	// makes, may be longer. The largest legitimate one is a legacy
	// collection's col.models, every note type in one JSON value.
	ValueBytes int
	// InflateRatio bounds an entry's unpacked size by its compressed
	// bytes read so far, past its first 16 MiB.
	InflateRatio int64
	// ReadTime bounds opening a package: unpacking the collection,
	// checking it and reading its head (its counts sort the cards).
	ReadTime time.Duration
}

// DefaultLimits are generous for real collections (the largest decks
// people share hold a few hundred thousand notes and a few GiB of media).
var DefaultLimits = Limits{
	Entries:         200_000,
	CollectionBytes: 2 << 30,
	MediaFileBytes:  512 << 20,
	TotalBytes:      16 << 30,
	FieldBytes:      4 << 20,
	TemplateBytes:   1 << 20,
	MetaBytes:       64 << 20,
	ValueBytes:      64 << 20,
	InflateRatio:    100,
	ReadTime:        5 * time.Minute,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	set(&d.Entries, l.Entries)
	set(&d.CollectionBytes, l.CollectionBytes)
	set(&d.MediaFileBytes, l.MediaFileBytes)
	set(&d.TotalBytes, l.TotalBytes)
	set(&d.FieldBytes, l.FieldBytes)
	set(&d.TemplateBytes, l.TemplateBytes)
	set(&d.MetaBytes, l.MetaBytes)
	set(&d.ValueBytes, l.ValueBytes)
	set(&d.InflateRatio, l.InflateRatio)
	set(&d.ReadTime, l.ReadTime)
	return d
}

// set overrides a default with a positive value.
func set[T int | int64 | time.Duration](dst *T, v T) {
	if v > 0 {
		*dst = v
	}
}

// The collection file names, by package version.
const (
	colLegacy1 = "collection.anki2"
	colLegacy2 = "collection.anki21"
	colLatest  = "collection.anki21b"
)

// invalid is the error of a package that cannot be read, with a reason a
// person can act on; cause stays out of the message.
func invalid(cause error, format string, args ...any) error {
	return &contracts.Error{Kind: contracts.KindInvalid, Message: "the Anki package cannot be read: " + fmt.Sprintf(format, args...), Err: cause}
}

// OpenPackage implements ports.PackageReader: it unpacks the collection
// to a temporary file, reads its head and leaves the notes, cards and
// review log to the source's Chunks.
func (rd Reader) OpenPackage(ctx context.Context, r io.ReaderAt, size int64) (ports.PackageSource, error) {
	lim := rd.Limits.withDefaults()
	ctx, cancel := context.WithTimeoutCause(ctx, lim.ReadTime, errReadTime)
	defer cancel()
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, invalid(err, "it is not a zip file (an .apkg or .colpkg is one)")
	}
	files, err := index(zr, lim)
	if err != nil {
		return nil, err
	}
	latest, err := isLatest(files, lim)
	if err != nil {
		return nil, err
	}
	name := colLatest
	if !latest {
		switch {
		case files[colLegacy2] != nil:
			name = colLegacy2
		case files[colLegacy1] != nil:
			name = colLegacy1
		default:
			return nil, invalid(nil, "it holds no collection (collection.anki2, collection.anki21 or collection.anki21b)")
		}
	} else if files[colLatest] == nil {
		return nil, invalid(nil, "its meta file announces the current format, but it holds no collection.anki21b")
	}
	dir, err := os.MkdirTemp(rd.TempDir, "apkg-read-*")
	if err != nil {
		return nil, contracts.Internal(err)
	}
	src := &source{dir: dir}
	ok := false
	defer func() {
		if !ok {
			_ = src.Close()
		}
	}()
	path := filepath.Join(dir, "collection.db")
	if err := unpackCollection(ctx, files[name], latest, path, lim); err != nil {
		return nil, err
	}
	if err := checkHeader(path); err != nil {
		return nil, err
	}
	if src.c, err = openHead(ctx, path, latest, lim); err != nil {
		return nil, err
	}
	if src.c.head.Media, src.c.head.MissingMedia, err = readMedia(files, latest, lim); err != nil {
		return nil, err
	}
	ok = true
	return src, nil
}

// errReadTime is the cause of a package read's context when its
// ReadTime ends.
var errReadTime = errors.New("the package read's time budget is spent")

// ended is the error of a read whose context ended: invalid when its
// time budget is spent (the package is too slow to read), canceled
// otherwise.
func ended(ctx context.Context, lim Limits) error {
	if errors.Is(context.Cause(ctx), errReadTime) {
		return invalid(ctx.Err(), "reading it took longer than %s, the limit; split the deck into smaller packages", lim.ReadTime)
	}
	return &contracts.Error{Kind: contracts.KindUnavailable, Message: "the package read was canceled", Err: ctx.Err()}
}

// source is an opened package: its unpacked collection and head.
type source struct {
	dir string
	c   *collection
}

// Head implements ports.PackageSource.
func (s *source) Head() ports.AnkiPackageHead { return s.c.head }

// Chunks implements ports.PackageSource.
func (s *source) Chunks(ctx context.Context, n int, fn func(ports.AnkiChunk) error) error {
	return s.c.wrap(ctx, s.c.chunks(ctx, max(n, 1), fn))
}

// Close implements ports.PackageSource: it closes the collection and
// removes its temporary copy.
func (s *source) Close() error {
	if s.c != nil {
		s.c.close()
	}
	return os.RemoveAll(s.dir)
}

// index checks the zip's entries against the limits and maps them by name.
func index(zr *zip.Reader, lim Limits) (map[string]*zip.File, error) {
	if len(zr.File) > lim.Entries {
		return nil, invalid(nil, "it has %d entries; the limit is %d", len(zr.File), lim.Entries)
	}
	files := make(map[string]*zip.File, len(zr.File))
	var total uint64
	for _, f := range zr.File {
		total += f.UncompressedSize64
		if total > uint64(lim.TotalBytes) {
			return nil, invalid(nil, "it unpacks to more than %s, the limit", size(lim.TotalBytes))
		}
		if _, dup := files[f.Name]; dup {
			return nil, invalid(nil, "it holds the entry %q twice", clip(f.Name))
		}
		files[f.Name] = f
	}
	return files, nil
}

// unpackCollection copies the collection entry to path (unpacking zstd
// for the current format), refusing one larger than the limit.
func unpackCollection(ctx context.Context, f *zip.File, latest bool, path string, lim Limits) error {
	if !latest && f.UncompressedSize64 > uint64(lim.CollectionBytes) {
		return invalid(nil, "its collection unpacks to %s; the limit is %s", size(f.UncompressedSize64), size(lim.CollectionBytes))
	}
	e, err := openEntry(f)
	if err != nil {
		return err
	}
	defer e.Close()
	var src io.Reader = e
	if latest {
		zd, err := newZstd(e)
		if err != nil {
			return invalid(err, "its collection is not zstd-compressed")
		}
		defer zd.Close()
		src = zd
	}
	out, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return contracts.Internal(err)
	}
	n, err := io.Copy(out, io.LimitReader(ctxReader{ctx, ratioReader(src, e, lim.InflateRatio)}, lim.CollectionBytes+1))
	if cerr := out.Close(); err == nil && cerr != nil {
		return contracts.Internal(cerr)
	}
	var ce *contracts.Error
	switch {
	case ctx.Err() != nil:
		return ended(ctx, lim)
	case errors.As(err, &ce):
		return err
	case err != nil:
		return invalid(err, "its collection entry is damaged or not compressed as announced")
	case n > lim.CollectionBytes:
		return invalid(nil, "its collection unpacks to more than %s, the limit", size(lim.CollectionBytes))
	case n == 0:
		return invalid(nil, "its collection is empty")
	}
	return nil
}

// ctxReader stops a copy when its context ends.
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

// openHead opens the unpacked collection read-only on one connection
// with the length limit, checks its tables and reads its head.
func openHead(ctx context.Context, path string, latest bool, lim Limits) (*collection, error) {
	db := openCollection(path)
	conn, err := db.Conn(ctx)
	if err == nil {
		_, err = sqlite.Limit(conn, sqlite3.SQLITE_LIMIT_LENGTH, lim.ValueBytes)
	}
	if err == nil {
		err = conn.PingContext(ctx)
	}
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		db.Close()
		return nil, invalid(err, "its collection is not a SQLite database")
	}
	c := &collection{db: db, conn: conn, lim: lim}
	if err := c.wrap(ctx, checkSchema(ctx, conn, latest)); err != nil {
		c.close()
		return nil, err
	}
	if err := c.wrap(ctx, c.readHead(ctx, latest)); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// close closes the collection's connection and database.
func (c *collection) close() {
	_ = c.conn.Close()
	_ = c.db.Close()
}

// wrap turns an error of reading the collection into the port's:
// canceled when ctx ended (invalid when its time budget did), invalid
// when the collection is damaged or holds a value past the length limit;
// the importer's own errors (from a chunk's callback) pass unchanged.
func (c *collection) wrap(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var ce *contracts.Error
	var fe callbackError
	var se *sqlite.Error
	switch {
	case errors.As(err, &fe):
		return fe.err
	case ctx.Err() != nil:
		return ended(ctx, c.lim)
	case errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_TOOBIG:
		return invalid(err, "a value in its collection is longer than %s, the limit; Anki's notes, note types and decks are far smaller", size(c.lim.ValueBytes))
	case errors.As(err, &ce):
		return err
	}
	return invalid(err, "its collection is damaged")
}

// callbackError carries the error of a chunk's callback through unchanged.
type callbackError struct{ err error }

func (e callbackError) Error() string { return e.err.Error() }

// size is a byte count for a person: MiB, KiB or bytes.
func size[T int | int64 | uint64](n T) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// clip shortens a name from the package for an error message.
func clip(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// openCollection opens the SQLite file read-only, with the schema
// untrusted (no functions from views or triggers) and the unicase
// collation Anki's schema-18 tables declare. The reader uses one
// connection of it (openHead), whose length limit it sets.
func openCollection(path string) *sql.DB {
	dsn := "file:" + path + "?mode=ro&immutable=1&_pragma=trusted_schema(0)&_pragma=query_only(1)"
	db := sql.OpenDB(connector{dsn: dsn})
	db.SetMaxOpenConns(1)
	return db
}
