package ankipkg_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
)

// fuzzLimits keep one fuzz input small and quick.
var fuzzLimits = ankipkg.Limits{Entries: 64, CollectionBytes: 4 << 20, MediaFileBytes: 1 << 20, TotalBytes: 16 << 20,
	FieldBytes: 256 << 10, TemplateBytes: 64 << 10, MetaBytes: 1 << 20}

// FuzzReadPackage feeds the reader mutated packages (the seed corpus in
// testdata/fuzz/FuzzReadPackage holds our writer's, genanki-js's and a
// hand-built current-format package): it reads them, or refuses them as
// invalid, within bounded time and memory; it never panics, and every
// media file it lists opens or fails cleanly.
func FuzzReadPackage(f *testing.F) {
	for _, name := range []string{"testdata/genanki.apkg", "testdata/genanki-custom.apkg"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("PK\x05\x06" + string(make([]byte, 18))))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, pkg []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		p, err := (ankipkg.Reader{TempDir: dir, Limits: fuzzLimits}).ReadPackage(ctx, bytes.NewReader(pkg), int64(len(pkg)))
		if err != nil {
			if k := contracts.KindOf(err); k != contracts.KindInvalid && k != contracts.KindUnavailable {
				t.Fatalf("a bad package gave a %s error: %v", k, err)
			}
			if contracts.MessageOf(err) == "" {
				t.Fatalf("an error without a reason: %v", err)
			}
			return
		}
		for _, m := range p.Media {
			rc, err := m.Open(ctx)
			if err != nil {
				if contracts.KindOf(err) != contracts.KindInvalid {
					t.Fatalf("media %q: %v", m.Name, err)
				}
				continue
			}
			n, err := io.Copy(io.Discard, rc)
			rc.Close()
			if n > fuzzLimits.MediaFileBytes || (err != nil && contracts.KindOf(err) != contracts.KindInvalid) {
				t.Fatalf("media %q: %d bytes, %v", m.Name, n, err)
			}
		}
		for _, n := range p.Notes {
			size := 0
			for _, fld := range n.Fields {
				size += len(fld)
			}
			if size > fuzzLimits.FieldBytes {
				t.Fatalf("note %d has %d bytes of fields past the limit", n.Key, size)
			}
		}
	})
}
