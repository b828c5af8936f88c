package ankipkg_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"hash/crc32"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
)

// TestHostilePackagesFailFast (issue 29 §2): packages an attacker can
// make in a few KiB or MiB, each of which read on the server for
// minutes, or took GiB of memory or temporary disk, fail within 2 s and
// 64 MiB of peak memory over the baseline, as invalid with a reason
// naming what is wrong (CPU time, so a loaded machine does not fail it;
// the wall clock is logged). The limits are the defaults: what the server
// runs with.
func TestHostilePackagesFailFast(t *testing.T) {
	if testing.Short() {
		t.Skip("builds packages of tens of MiB")
	}
	good := write(t, samplePackage())
	cases := []struct {
		name   string
		pkg    func() []byte
		reason string
	}{
		{"notes a view over an endless recursive query", func() []byte {
			return editCollection(t, good, `ALTER TABLE notes RENAME TO n2`,
				`CREATE VIEW notes AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i AS id, 'g' || i AS guid, (SELECT mid FROM n2) AS mid, 0 AS mod, 0 AS usn, '' AS tags, 'x' AS flds, '' AS sfld, 0 AS csum, 0 AS flags, '' AS data FROM r`)
		}, "notes is a view"},
		{"notes a view of 300 MB zero blobs", func() []byte {
			return editCollection(t, good, `ALTER TABLE notes RENAME TO n2`,
				`CREATE VIEW notes AS SELECT id, guid, mid, mod, usn, tags, CAST(zeroblob(300000000) AS TEXT) AS flds, sfld, csum, flags, data FROM n2`)
		}, "notes is a view"},
		{"a 2 MB zip of a 2 GiB collection", func() []byte { return zipBomb(t, 2047) }, "looks like a zip bomb"},
		{"a stored note of 48 MiB", func() []byte {
			return editCollection(t, good, `UPDATE notes SET flds = hex(randomblob(24 << 20)) WHERE id = (SELECT min(id) FROM notes)`)
		}, "of field text; the limit is 4 MiB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pkg := c.pkg()
			base, resetPeak := settle(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			start, cpu0 := time.Now(), cpuTime(t)
			_, err := (ankipkg.Reader{TempDir: t.TempDir()}).ReadPackage(ctx, bytes.NewReader(pkg), int64(len(pkg)))
			took, cpu := time.Since(start), cpuTime(t)-cpu0
			peak := procStatus(t, "VmHWM")
			t.Logf("%d KiB package: %v in %v (%v of CPU), peak %d MiB over the baseline", len(pkg)>>10, err, took.Round(time.Millisecond), cpu.Round(time.Millisecond), (peak-base)>>20)
			if contracts.KindOf(err) != contracts.KindInvalid || !strings.Contains(contracts.MessageOf(err), c.reason) {
				t.Errorf("err = %v, want invalid mentioning %q", err, c.reason)
			}
			// The process's CPU time, not the wall clock, which a loaded
			// shared machine stretches.
			if cpu > 2*time.Second {
				t.Errorf("refused after %v of CPU, want within 2 s", cpu)
			}
			if resetPeak && peak-base > 64<<20 {
				t.Errorf("peak memory %d MiB over the baseline, want at most 64 MiB", (peak-base)>>20)
			}
		})
	}
}

// zipBomb is a legacy package whose collection.anki2 inflates to mib MiB
// of zeros from about 1/1000 of that: one deflate block of back
// references to the previous zero, repeated (the announced sizes and
// checksum are honest).
func zipBomb(t testing.TB, mib int) []byte {
	t.Helper()
	var lit, blk bytes.Buffer
	fw, _ := flate.NewWriter(&lit, flate.BestCompression)
	fw.Write([]byte{0})
	fw.Flush()
	fw, _ = flate.NewWriterDict(&blk, flate.BestCompression, []byte{0})
	zeros := make([]byte, 1<<20)
	fw.Write(zeros)
	fw.Flush()
	var raw bytes.Buffer
	raw.Write(lit.Bytes())
	crc := crc32.Update(0, crc32.IEEETable, []byte{0})
	for range mib {
		raw.Write(blk.Bytes())
		crc = crc32.Update(crc, crc32.IEEETable, zeros)
	}
	raw.Write([]byte{0x03, 0x00}) // an empty final block
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "collection.anki2", Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(raw.Len()), UncompressedSize64: uint64(mib)<<20 + 1})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(raw.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// settle collects the garbage and returns the resident set size as the
// baseline, having reset the peak (VmHWM) to it when the kernel lets
// this process (resetPeak false: the peak cannot be checked).
func settle(t testing.TB) (base int64, resetPeak bool) {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	resetPeak = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	if !resetPeak {
		t.Log("cannot reset the peak resident set size (/proc/self/clear_refs): memory not checked")
	}
	return procStatus(t, "VmRSS"), resetPeak
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procStatus reads a size in bytes from /proc/self/status.
func procStatus(t testing.TB, field string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skipf("no %s in /proc/self/status", field)
	return 0
}

// TestMediaMapOfAbsentFiles (issue 29 §4): a media map naming files the
// package lacks costs a count, not a listed file each (every listed file
// is a lookup and a read attempt for the import): a few MiB naming a
// million absent files is refused, and of 5,000 absent ones only the
// first 100 are listed (so the import still reports some), all counted.
func TestMediaMapOfAbsentFiles(t *testing.T) {
	good := write(t, samplePackage())
	mediaMap := func(n int) []byte {
		var b strings.Builder
		b.WriteString(`{"0":"dog.png"`)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, `,"%d":"absent%d.png"`, i+1000, i)
		}
		b.WriteString("}")
		return []byte(b.String())
	}
	million := zipOf(t, replace(entries(t, good), "media", mediaMap(1_000_000))...)
	cpu0 := cpuTime(t)
	err := readErr(t, million, ankipkg.Limits{})
	cpu := cpuTime(t) - cpu0
	t.Logf("%d KiB package naming a million absent files: %v in %v of CPU", len(million)>>10, err, cpu.Round(time.Millisecond))
	if contracts.KindOf(err) != contracts.KindInvalid || !strings.Contains(contracts.MessageOf(err), "names more than 200000 files, the limit") {
		t.Errorf("err = %v, want invalid naming the count and the limit", err)
	}
	if cpu > 2*time.Second {
		t.Errorf("refused after %v of CPU, want within 2 s", cpu)
	}

	some := zipOf(t, replace(entries(t, good), "media", mediaMap(5000))...)
	src, err := (ankipkg.Reader{TempDir: t.TempDir()}).OpenPackage(context.Background(), bytes.NewReader(some), int64(len(some)))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	h := src.Head()
	if len(h.Media) != 101 || h.MissingMedia != 5000 || h.Media[0].Name != "dog.png" {
		t.Errorf("%d media listed (first %q), %d missing; want dog.png and 100 of the 5,000 missing, all counted", len(h.Media), h.Media[0].Name, h.MissingMedia)
	}
}

// TestReadTimeBudget: opening a package has a time budget through its
// context; when it is spent the package is invalid with a reason (too
// slow to read), not a cancellation of the caller's.
func TestReadTimeBudget(t *testing.T) {
	pkg := write(t, samplePackage())
	err := readErr(t, pkg, ankipkg.Limits{ReadTime: time.Nanosecond})
	if contracts.KindOf(err) != contracts.KindInvalid || !strings.Contains(contracts.MessageOf(err), "took longer than 1ns, the limit") {
		t.Errorf("err = %v, want invalid naming the time budget", err)
	}
}
