package ankipkg

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// newZstd is a zstd decoder with bounded memory: one goroutine, a window
// of at most 128 MiB (Anki compresses with the default level's 8 MiB).
func newZstd(r io.Reader) (*zstd.Decoder, error) {
	return zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(128<<20), zstd.WithDecoderMaxMemory(128<<20))
}

// isLatest reads the meta file: the current format (version 3) has
// collection.anki21b, a protobuf media map and zstd-compressed media.
// Without one, the package is legacy.
func isLatest(files map[string]*zip.File, lim Limits) (bool, error) {
	f := files["meta"]
	if f == nil {
		return false, nil
	}
	b, err := readSmall(f, false, lim.MetaBytes, lim.InflateRatio)
	if err != nil {
		return false, err
	}
	var version uint64
	if err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		if num == 1 && typ == protowire.VarintType {
			version = n
		}
		return nil
	}); err != nil {
		return false, invalid(err, "its meta file is damaged")
	}
	switch version {
	case 1, 2:
		return false, nil
	case 3:
		return true, nil
	}
	return false, invalid(nil, "its meta file names package version %d, which this reader does not know (1–3 are Anki's)", version)
}

// readSmall reads a small entry whole (unpacking zstd when asked),
// refusing one larger than max.
func readSmall(f *zip.File, compressed bool, limit, ratio int64) ([]byte, error) {
	e, err := openEntry(f)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	var src io.Reader = e
	if compressed {
		zd, err := newZstd(e)
		if err != nil {
			return nil, invalid(err, "its %s entry is not zstd-compressed", clip(f.Name))
		}
		defer zd.Close()
		src = zd
	}
	b, err := io.ReadAll(io.LimitReader(ratioReader(src, e, ratio), limit+1))
	var ce *contracts.Error
	switch {
	case errors.As(err, &ce):
		return nil, err
	case err != nil:
		return nil, invalid(err, "its %s entry is damaged", clip(f.Name))
	}
	if int64(len(b)) > limit {
		return nil, invalid(nil, "its %s entry unpacks to more than %s, the limit", clip(f.Name), size(limit))
	}
	return b, nil
}

// readMedia reads the media map (JSON {"0": "name"} in legacy packages,
// zstd protobuf MediaEntries in the current format) and gives each file
// an Open that reads it from the zip when called. Files the package lacks
// are counted; only the first maxMissingListed are listed.
func readMedia(files map[string]*zip.File, latest bool, lim Limits) ([]ports.AnkiMedia, int, error) {
	f := files["media"]
	if f == nil {
		return nil, 0, nil
	}
	b, err := readSmall(f, latest, lim.MetaBytes, lim.InflateRatio)
	if err != nil {
		return nil, 0, err
	}
	var entries []mediaEntry
	if latest {
		entries, err = protoMedia(b, lim.Entries)
	} else {
		entries, err = jsonMedia(b, lim.Entries)
	}
	if err != nil {
		return nil, 0, err
	}
	out := make([]ports.AnkiMedia, 0, min(len(entries), len(files)+maxMissingListed))
	names := make(map[string]bool, min(len(entries), len(files)))
	missing := 0
	for _, e := range entries {
		if err := checkMediaName(e.name); err != nil {
			return nil, 0, err
		}
		if names[e.name] {
			return nil, 0, invalid(nil, "its media map names %q twice", clip(e.name))
		}
		f := files[e.zipName]
		if f == nil {
			if missing++; missing > maxMissingListed {
				continue
			}
		}
		names[e.name] = true
		out = append(out, ports.AnkiMedia{Name: e.name, Open: opener(f, e.name, latest, lim.MediaFileBytes, lim.InflateRatio)})
	}
	return out, missing, nil
}

// maxMissingListed is how many files the media map names but the package
// lacks are listed (each one's Open fails, so the import reports it): a
// map naming a million absent files costs a count, not a million
// lookups (issue 29 §4).
const maxMissingListed = 100

// mediaEntry is one media map entry: the file's name in the notes and
// its entry's name in the zip.
type mediaEntry struct{ zipName, name string }

// jsonMedia reads a legacy media map, refusing one of more than limit
// files before sorting it.
func jsonMedia(b []byte, limit int) ([]mediaEntry, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	// Streamed, so a map past the limit is refused at its limit-th entry.
	dec := json.NewDecoder(bytes.NewReader(b))
	bad := func(err error) error { return invalid(err, "its media map is not valid JSON") }
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, bad(err)
	}
	byKey := map[string]int{} // a repeated key keeps its last name, as a JSON object does
	var out []mediaEntry
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, bad(err)
		}
		k, _ := tok.(string)
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, bad(err)
		}
		if i, ok := byKey[k]; ok {
			out[i].name = v
			continue
		}
		if len(out) == limit {
			return nil, invalid(nil, "its media map names more than %d files, the limit", limit)
		}
		byKey[k] = len(out)
		out = append(out, mediaEntry{zipName: k, name: v})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, bad(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad(err)
	}
	sort.Slice(out, func(i, j int) bool {
		a, aerr := strconv.Atoi(out[i].zipName)
		b, berr := strconv.Atoi(out[j].zipName)
		if aerr == nil && berr == nil {
			return a < b
		}
		return out[i].zipName < out[j].zipName
	})
	return out, nil
}

// protoMedia reads MediaEntries (at most limit of them): entries = 1, each {name = 1, size = 2,
// sha1 = 3, legacy_zip_filename = 255}; an entry's zip name is its index
// unless legacy_zip_filename is set.
func protoMedia(b []byte, limit int) ([]mediaEntry, error) {
	var out []mediaEntry
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if num != 1 || typ != protowire.BytesType {
			return nil
		}
		if len(out) == limit {
			return invalid(nil, "its media map names more than %d files, the limit", limit)
		}
		e := mediaEntry{zipName: strconv.Itoa(len(out))}
		err := eachField(v, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
			switch {
			case num == 1 && typ == protowire.BytesType:
				e.name = string(v)
			case num == 255 && typ == protowire.VarintType:
				e.zipName = strconv.FormatUint(n, 10)
			}
			return nil
		})
		out = append(out, e)
		return err
	})
	var ce *contracts.Error
	switch {
	case errors.As(err, &ce):
		return nil, err
	case err != nil:
		return nil, invalid(err, "its media map is damaged")
	}
	return out, nil
}

// checkMediaName refuses a media name that is not a plain file name: a
// path (traversal or absolute), a control character, invalid UTF-8, or
// one too long for a file system.
func checkMediaName(name string) error {
	bad := name == "" || name == "." || name == ".." || len(name) > 255 || !utf8.ValidString(name) ||
		strings.ContainsAny(name, `/\:`) || strings.HasPrefix(name, ".")
	for _, r := range name {
		if unicode.IsControl(r) || r == utf8.RuneError {
			bad = true
		}
	}
	if bad {
		return invalid(nil, "its media map names a file %q, which is not a plain file name (no paths, control characters or leading dot)", clip(name))
	}
	return nil
}

// opener reads one media file from the zip when called, unpacking zstd
// in the current format, and fails when it grows past the limit.
func opener(f *zip.File, name string, compressed bool, limit, ratio int64) func(context.Context) (io.ReadCloser, error) {
	return func(ctx context.Context) (io.ReadCloser, error) {
		if err := ctx.Err(); err != nil {
			return nil, &contracts.Error{Kind: contracts.KindUnavailable, Message: "the media read was canceled", Err: err}
		}
		if f == nil {
			return nil, invalid(nil, "the media file %q is missing from the package", clip(name))
		}
		if !compressed && f.UncompressedSize64 > uint64(limit) {
			return nil, invalid(nil, "the media file %q is %s; the limit is %s", clip(name), size(f.UncompressedSize64), size(limit))
		}
		e, err := openEntry(f)
		if err != nil {
			return nil, err
		}
		if !compressed {
			return &limited{r: ratioReader(e, e, ratio), c: e, left: limit, name: name}, nil
		}
		zd, err := newZstd(e)
		if err != nil {
			e.Close()
			return nil, invalid(err, "the media file %q is not zstd-compressed", clip(name))
		}
		return &limited{r: ratioReader(zd, e, ratio), c: closers{zd.IOReadCloser(), e}, left: limit, name: name}, nil
	}
}

type closers []io.Closer

func (cs closers) Close() error {
	var first error
	for _, c := range cs {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// limited reads at most left bytes and fails (invalid) past them; its
// read errors are invalid too (the package is damaged).
type limited struct {
	r    io.Reader
	c    io.Closer
	left int64
	name string
}

func (l *limited) Read(p []byte) (int, error) {
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return 0, invalid(nil, "the media file %q unpacks past the limit", clip(l.name))
	}
	var ce *contracts.Error
	switch {
	case errors.As(err, &ce):
		return n, err
	case err != nil && err != io.EOF:
		return n, invalid(err, "the media file %q is damaged", clip(l.name))
	}
	return n, err
}

func (l *limited) Close() error { return l.c.Close() }

// eachField walks a protobuf message's fields; v is a length-delimited
// field's bytes, n a varint's or fixed field's value.
func eachField(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error) error {
	for len(b) > 0 {
		num, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return protowire.ParseError(l)
		}
		b = b[l:]
		var v []byte
		var n uint64
		switch typ {
		case protowire.VarintType:
			n, l = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var x uint32
			x, l = protowire.ConsumeFixed32(b)
			n = uint64(x)
		case protowire.Fixed64Type:
			n, l = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			v, l = protowire.ConsumeBytes(b)
		default:
			l = protowire.ConsumeFieldValue(num, typ, b)
		}
		if l < 0 {
			return protowire.ParseError(l)
		}
		b = b[l:]
		if err := fn(num, typ, v, n); err != nil {
			return err
		}
	}
	return nil
}
