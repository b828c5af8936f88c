//go:build !unix

package harness

// processCPUNanos is not available on this platform; it reports -1.
func processCPUNanos() int64 { return -1 }
