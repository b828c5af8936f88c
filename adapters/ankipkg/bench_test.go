package ankipkg_test

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// bigPackage is the large import: 20,000 notes (one card each,
// a fifth new), 100,000 review-log rows and media files of mediaSize
// bytes each, mediaTotal in all (incompressible, so the zip holds them
// at full size).
func bigPackage(mediaTotal, mediaSize int) ports.AnkiPackage {
	created := time.Date(2024, 1, 1, 4, 0, 0, 0, time.UTC)
	p := ports.AnkiPackage{
		Created:   created,
		Decks:     []ports.AnkiDeck{{Key: 10, Name: "Big", Settings: contracts.DefaultDeckSettings()}, {Key: 11, Name: "Big::Sub", Settings: contracts.DefaultDeckSettings()}},
		NoteTypes: []ports.AnkiNoteType{{Key: 20, Name: "Basic", Fields: []string{"Front", "Back"}, Templates: []ports.AnkiTemplate{{Name: "Card 1", Front: "{{Front}}", Back: "{{Back}}"}}}},
	}
	const notes, reviews = 20_000, 100_000
	for i := range notes {
		key := int64(1_000_000 + i)
		p.Notes = append(p.Notes, ports.AnkiNote{Key: key, GUID: "g" + strconv.Itoa(i), TypeKey: 20,
			Fields: []string{"<b>Wort " + strconv.Itoa(i) + "</b>", `word <img src="m` + strconv.Itoa(i%50) + `.bin">`}, Tags: []string{"big", "t" + strconv.Itoa(i%20)}, Modified: created})
		c := ports.AnkiCard{Key: key, NoteKey: key, DeckKey: 10 + int64(i%2), Modified: created, Position: i}
		if i%5 != 0 {
			last := created.Add(time.Duration(i%300) * 24 * time.Hour)
			c.State = contracts.CardState{Phase: contracts.PhaseReview, Due: last.Add(10 * 24 * time.Hour), Stability: 10, Difficulty: 5, ScheduledDays: 10, Reps: 5, LastReview: &last}
		} else {
			c.State.Phase = contracts.PhaseNew
		}
		p.Cards = append(p.Cards, c)
	}
	for i := range reviews {
		card := p.Cards[(i*7)%notes]
		at := created.Add(time.Duration(i) * time.Minute)
		p.Reviews = append(p.Reviews, ports.AnkiReview{Key: at.UnixMilli(), CardKey: card.Key, Rating: contracts.RatingGood, PrevPhase: contracts.PhaseReview,
			State: contracts.CardState{Phase: contracts.PhaseReview, ScheduledDays: 3, Difficulty: 5}, PrevInterval: 2, DurationMs: 3000})
	}
	for i := range mediaTotal / mediaSize {
		seed := uint64(i)
		p.Media = append(p.Media, ports.AnkiMedia{Name: "m" + strconv.Itoa(i) + ".bin", Open: func(context.Context) (io.ReadCloser, error) {
			return io.NopCloser(io.LimitReader(randReader{rand.New(rand.NewPCG(seed, 1))}, int64(mediaSize))), nil
		}})
	}
	return p
}

// randReader is incompressible bytes.
type randReader struct{ r *rand.Rand }

func (r randReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r.r.Uint32())
	}
	return len(p), nil
}

// BenchmarkReadPackage reads the large package (written by our
// writer to a file first, outside the timing) through OpenPackage, its
// notes, cards and reviews a chunk of 1000 notes at a time, and every
// media file in it, reporting the peak heap while reading: it stays near
// one chunk and one media file, not the package's size.
//
//	go test -run '^$' -bench ReadPackage -benchtime 1x ./adapters/ankipkg/
func BenchmarkReadPackage(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "big.apkg")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := (ankipkg.Writer{TempDir: dir}).WritePackage(context.Background(), f, bigPackage(200<<20, 4<<20)); err != nil {
		b.Fatal(err)
	}
	size, _ := f.Seek(0, io.SeekEnd)
	runtime.GC()
	b.ResetTimer()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	for b.Loop() {
		src, err := (ankipkg.Reader{TempDir: dir}).OpenPackage(context.Background(), f, size)
		if err != nil {
			b.Fatal(err)
		}
		var notes, cards, reviews int
		err = src.Chunks(context.Background(), 1000, func(ch ports.AnkiChunk) error {
			notes, cards, reviews = notes+len(ch.Notes), cards+len(ch.Cards), reviews+len(ch.Reviews)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		h := src.Head()
		if notes != 20_000 || cards != 20_000 || reviews != 100_000 || len(h.Media) != 50 || h.Notes != notes || h.Cards != cards || h.Reviews != reviews {
			b.Fatalf("read %d notes, %d cards, %d reviews, %d media (head %+v)", notes, cards, reviews, len(h.Media), h)
		}
		var media int64
		for _, m := range h.Media {
			rc, err := m.Open(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			n, err := io.Copy(io.Discard, rc)
			rc.Close()
			if err != nil {
				b.Fatal(err)
			}
			media += n
		}
		if media != 200<<20 {
			b.Fatalf("read %d bytes of media", media)
		}
		if err := src.Close(); err != nil {
			b.Fatal(err)
		}
	}
	close(done)
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(size)/(1<<20), "package-MiB")
	f.Close()
}
