package harness

import "runtime"

// StatsPath is the path of the child's stats endpoint. It is served next to
// the MCP handler and never reaches it.
const StatsPath = "/__stats"

// Stats is a snapshot of a server process's resource counters.
type Stats struct {
	// CPUNanos is the process's user plus system CPU time (getrusage RUSAGE_SELF),
	// covering every thread: handlers, the garbage collector and net/http.
	CPUNanos int64 `json:"cpuNanos"`
	// Mallocs is runtime.MemStats.Mallocs, the cumulative count of heap objects allocated.
	Mallocs uint64 `json:"mallocs"`
	// TotalAlloc is runtime.MemStats.TotalAlloc, the cumulative bytes allocated.
	TotalAlloc uint64 `json:"totalAlloc"`
	// NumGC is the number of completed GC cycles.
	NumGC uint32 `json:"numGC"`
	// GOMAXPROCS is the child's GOMAXPROCS setting.
	GOMAXPROCS int `json:"gomaxprocs"`
	// Statements counts the database statements run so far (servers
	// without a database: 0).
	Statements int64 `json:"statements"`
	// DBCPUNanos is the CPU time the database server spent on the
	// server's connections (servers.Instance.DBCPU; 0 without one).
	DBCPUNanos int64 `json:"dbCpuNanos,omitempty"`
}

// readStats takes a snapshot of the current process and its statement count.
func readStats(statements, dbCPU func() int64) Stats {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return Stats{
		CPUNanos:   processCPUNanos(),
		Mallocs:    ms.Mallocs,
		TotalAlloc: ms.TotalAlloc,
		NumGC:      ms.NumGC,
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		Statements: count(statements),
		DBCPUNanos: count(dbCPU),
	}
}

func count(f func() int64) int64 {
	if f == nil {
		return 0
	}
	return f()
}
