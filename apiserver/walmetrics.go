package apiserver

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/takhtabush/takhtabush/adapters/sqlite"
)

// registerWALMetrics exposes an embedded store's write-ahead log on reg:
// the log file's size and its checkpoints by mode and outcome, read from
// counters the checkpoint loop keeps (a scrape runs no query). Other
// stores have no such log: nothing is registered for them.
func registerWALMetrics(reg prometheus.Registerer, store any) {
	s, ok := store.(interface{ WALStats() sqlite.WALStats })
	if !ok {
		return
	}
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "takhtabush_sqlite_wal_bytes", Help: "Size of the SQLite write-ahead log file at the last checkpoint tick (every second).",
	}, func() float64 { return float64(s.WALStats().LogBytes) }))
	for _, c := range []struct {
		mode, outcome string
		n             func(sqlite.WALStats) uint64
	}{
		{"passive", "done", func(w sqlite.WALStats) uint64 { return w.Passive - w.PassivePartial }},
		{"passive", "partial", func(w sqlite.WALStats) uint64 { return w.PassivePartial }},
		{"truncate", "done", func(w sqlite.WALStats) uint64 { return w.Truncated }},
		{"truncate", "busy", func(w sqlite.WALStats) uint64 { return w.TruncateBusy }},
		{"any", "failed", func(w sqlite.WALStats) uint64 { return w.Failed }},
	} {
		reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "takhtabush_sqlite_checkpoints_total", Help: "SQLite checkpoints by mode (passive every second; truncate past 64 MiB of log or when idle) and outcome (done, partial: frames left behind, busy: gave up after 100 ms, failed).",
			ConstLabels: prometheus.Labels{"mode": c.mode, "outcome": c.outcome},
		}, func() float64 { return float64(c.n(s.WALStats())) }))
	}
}
