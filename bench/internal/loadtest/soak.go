package loadtest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A soak run (Config.Sample > 0, issue 29 §1.3) samples, every Sample
// while the agents run, what would show a leak or an unbounded log: the
// instances' resident memory, goroutines and open files, the database's
// log (SQLite's -wal file, Postgres's pg_wal directory), the p99 latency
// of the calls answered since the last sample, and the database's size
// per stored row (review logs and audit rows, which grow with the load).
// It fails when a figure grows without bound: the slope fitted over the
// second half of the run, times that half's length, is past both a
// floor and a share of the figure's mean there (a quarter; p99, which a
// busy machine swings, must double). The log is a saw by design (it
// fills to the restart threshold, and a checkpoint empties it when the
// readers let it): a slope through a few teeth says only where in the
// saw the samples fell, so the log's slope is fitted to its high-water
// mark (the largest size sampled so far), which stays flat under a saw
// whose teeth do not climb and rises with a log that does.

// SoakSample is one sample of a soak run.
type SoakSample struct {
	At          time.Duration // since the load started
	RSS         int64         // bytes, summed over the instances
	Goroutines  int           // summed over the instances
	OpenFiles   int           // summed over the instances
	LogBytes    int64         // SQLite's -wal file, or Postgres's pg_wal
	P99         time.Duration // of the calls answered since the last sample
	BytesPerRow float64       // database size over review-log and audit rows
}

// soakFigures are the sampled figures, how to read each from a sample,
// and the growth over the second half below which it counts as flat: a
// floor, and a share of the figure's mean over that half.
var soakFigures = []struct {
	name  string
	value func(SoakSample) float64
	floor float64
	share float64
	peak  bool // fit the running maximum, not the samples (a saw)
}{
	{"RSS (bytes)", func(s SoakSample) float64 { return float64(s.RSS) }, 16 << 20, 0.25, false},
	{"goroutines", func(s SoakSample) float64 { return float64(s.Goroutines) }, 20, 0.25, false},
	{"open files", func(s SoakSample) float64 { return float64(s.OpenFiles) }, 20, 0.25, false},
	{"log high-water mark (bytes)", func(s SoakSample) float64 { return float64(s.LogBytes) }, 64 << 20, 0.25, true},
	// p99 swings with whatever else the machine runs: only a doubling counts.
	{"p99 (ms)", func(s SoakSample) float64 { return float64(s.P99) / float64(time.Millisecond) }, 50, 1, false},
	{"bytes per row", func(s SoakSample) float64 { return s.BytesPerRow }, 64, 0.25, false},
}

// latencyWindow collects the latencies answered since the last sample.
type latencyWindow struct {
	mu  sync.Mutex
	lat []time.Duration
}

func (w *latencyWindow) add(d time.Duration) {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.lat = append(w.lat, d)
	w.mu.Unlock()
}

// take returns the window's p99 and empties it.
func (w *latencyWindow) take() time.Duration {
	w.mu.Lock()
	lat := w.lat
	w.lat = nil
	w.mu.Unlock()
	slices.Sort(lat)
	return percentile(lat, 0.99)
}

// soak samples e every cfg.Sample until stop closes, then returns the
// samples.
func soak(ctx context.Context, cfg Config, e *env, stop <-chan struct{}) []SoakSample {
	var out []SoakSample
	start := time.Now()
	t := time.NewTicker(cfg.Sample)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return out
		case <-ctx.Done():
			return out
		case <-t.C:
			s := e.sample(ctx)
			s.At = time.Since(start)
			out = append(out, s)
			cfg.logf("soak %5.0fs: RSS %d MiB, %d goroutines, %d files, log %d MiB, p99 %s, %.0f bytes/row",
				s.At.Seconds(), s.RSS>>20, s.Goroutines, s.OpenFiles, s.LogBytes>>20, ms(s.P99), s.BytesPerRow)
		}
	}
}

// sample reads the figures of one soak sample (At aside).
func (e *env) sample(ctx context.Context) SoakSample {
	var s SoakSample
	for _, p := range e.procs {
		s.RSS += procStatusBytes(p.pid(), "VmRSS")
		s.OpenFiles += openFiles(p.pid())
		s.Goroutines += goroutines(e.client, p.base)
	}
	s.P99 = e.window.take()
	var rows int64
	_ = e.check.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM review_logs) + (SELECT count(*) FROM mcp_audit_events)`).Scan(&rows)
	var size int64
	if e.kind == "sqlite" {
		db := filepath.Join(e.dir, "takhtabush.db")
		s.LogBytes = fileSize(db + "-wal")
		size = fileSize(db)
	} else {
		_ = e.check.QueryRowContext(ctx, `SELECT coalesce(sum(size), 0) FROM pg_ls_waldir()`).Scan(&s.LogBytes)
		_ = e.check.QueryRowContext(ctx, `SELECT pg_database_size(current_database())`).Scan(&size)
	}
	if rows > 0 {
		s.BytesPerRow = float64(size) / float64(rows)
	}
	return s
}

// idleLog waits, up to a minute after the load, for SQLite's log to shrink
// under 16 MiB, and returns its size and how long that took.
func (e *env) idleLog(ctx context.Context) (int64, time.Duration) {
	wal := filepath.Join(e.dir, "takhtabush.db-wal")
	start := time.Now()
	for {
		n := fileSize(wal)
		if n < 16<<20 || time.Since(start) > time.Minute || ctx.Err() != nil {
			return n, time.Since(start)
		}
		time.Sleep(time.Second)
	}
}

// unbounded names the figures that grow without bound over the second
// half of the samples (see soakFigures), with their growth.
func unbounded(samples []SoakSample) []string {
	if len(samples) < 4 {
		return nil
	}
	first := len(samples) / 2
	half := samples[first:]
	span := (half[len(half)-1].At - half[0].At).Seconds()
	var out []string
	for _, f := range soakFigures {
		values := make([]float64, len(samples))
		for i, s := range samples {
			values[i] = f.value(s)
			if f.peak && i > 0 {
				values[i] = max(values[i], values[i-1])
			}
		}
		xs, ys := make([]float64, len(half)), values[first:]
		mean := 0.0
		for i, s := range half {
			xs[i] = s.At.Seconds()
			mean += ys[i] / float64(len(half))
		}
		growth := slope(xs, ys) * span
		if growth > f.floor && growth > mean*f.share {
			out = append(out, fmt.Sprintf("soak: %s grows without bound: +%.4g over the second half (%.0f s), mean %.4g", f.name, growth, span, mean))
		}
	}
	return out
}

// slope is the least-squares slope of ys over xs.
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}

// WriteSoak prints each soaked configuration's samples as a table.
func WriteSoak(w io.Writer, results []Result) {
	for _, r := range results {
		if len(r.Soak) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nsoak %s, %d agents\n", r.Setup.Name, r.Agents)
		if r.Setup.DB == "sqlite" {
			fmt.Fprintf(w, "idle log %d MiB %.0f s after the load\n", r.IdleLog>>20, r.IdleAfter.Seconds())
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| t | RSS | goroutines | open files | log | p99 | bytes/row |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		for _, s := range r.Soak {
			fmt.Fprintf(w, "| %.0f s | %d MiB | %d | %d | %.1f MiB | %s | %.0f |\n", s.At.Seconds(), s.RSS>>20, s.Goroutines, s.OpenFiles, float64(s.LogBytes)/(1<<20), ms(s.P99), s.BytesPerRow)
		}
	}
}

// procStatusBytes reads a size from /proc/PID/status, in bytes.
func procStatusBytes(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// openFiles counts a process's open file descriptors.
func openFiles(pid int) int {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0
	}
	return len(fds)
}

// goroutines reads go_goroutines from an instance's /metrics (served to
// loopback clients).
func goroutines(c *http.Client, base string) int {
	resp, err := c.Get(base + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			n, _ := strconv.ParseFloat(rest, 64)
			return int(n)
		}
	}
	return 0
}

// fileSize is a file's size, 0 when it is absent.
func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}
