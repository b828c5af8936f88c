package sqlite

import (
	"testing"

	"github.com/takhtabush/takhtabush/adapters/internal/storebench"
	"github.com/takhtabush/takhtabush/ports"
)

// BenchmarkStore runs the shared store benchmarks on a temporary file.
func BenchmarkStore(b *testing.B) {
	storebench.Run(b, func(b *testing.B) ports.Database { return openTemp(b) })
}
