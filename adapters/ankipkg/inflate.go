package ankipkg

import (
	"archive/zip"
	"compress/flate"
	"hash"
	"hash/crc32"
	"io"
)

// inflateSlack is what an entry may unpack to before its ratio to the
// compressed bytes read counts: small entries of zeros or repeated text
// compress far better than a whole collection does.
const inflateSlack = 16 << 20

// openEntry opens a zip entry as Anki writes them (stored or deflated),
// counting the compressed bytes it reads, so a reader further on can
// check the unpacked size against them as it goes (bounded); the CRC
// and the announced size are checked at the end, as archive/zip does.
func openEntry(f *zip.File) (*entryReader, error) {
	raw, err := f.OpenRaw()
	if err != nil {
		return nil, invalid(err, "its %s entry is damaged", clip(f.Name))
	}
	e := &entryReader{f: f, crc: crc32.NewIEEE()}
	counted := &countingReader{r: raw, n: &e.in}
	switch f.Method {
	case zip.Store:
		e.r = counted
	case zip.Deflate:
		fr := flate.NewReader(counted)
		e.r, e.c = fr, fr
	default:
		return nil, invalid(nil, "its %s entry is compressed with zip method %d; Anki writes stored or deflated entries", clip(f.Name), f.Method)
	}
	return e, nil
}

// entryReader reads one entry's unpacked bytes.
type entryReader struct {
	f   *zip.File
	r   io.Reader
	c   io.Closer
	in  int64 // compressed bytes read
	out uint64
	crc hash.Hash32
}

func (e *entryReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.crc.Write(p[:n])
	e.out += uint64(n)
	if e.out > e.f.UncompressedSize64 {
		return n, invalid(nil, "its %s entry unpacks past the size it announces", clip(e.f.Name))
	}
	if err == io.EOF {
		if e.out != e.f.UncompressedSize64 || (e.f.CRC32 != 0 && e.crc.Sum32() != e.f.CRC32) {
			return n, invalid(nil, "its %s entry is damaged (its size or checksum does not match)", clip(e.f.Name))
		}
	} else if err != nil {
		return n, invalid(err, "its %s entry is damaged", clip(e.f.Name))
	}
	return n, err
}

// Close closes the decompressor.
func (e *entryReader) Close() error {
	if e.c != nil {
		return e.c.Close()
	}
	return nil
}

// ratioReader reads an entry's content (after zstd, in the current
// format) and fails, as soon as it happens, when the content passes
// inflateSlack plus ratio times the compressed bytes read so far: a
// zip or zstd bomb is refused after a few MiB, not after filling the
// disk up to the size limit.
func ratioReader(r io.Reader, e *entryReader, ratio int64) io.Reader {
	return &ratioCheck{r: r, e: e, ratio: ratio}
}

type ratioCheck struct {
	r     io.Reader
	e     *entryReader
	ratio int64
	out   int64
}

func (c *ratioCheck) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.out += int64(n)
	if c.out > inflateSlack && c.out > c.ratio*c.e.in {
		return n, invalid(nil, "its %s entry unpacks to more than %d times its compressed size (%s from %s), which no Anki collection or media file does: it looks like a zip bomb", clip(c.e.f.Name), c.ratio, size(c.out), size(c.e.in))
	}
	return n, err
}

// countingReader counts the bytes read through it into *n.
type countingReader struct {
	r io.Reader
	n *int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}
