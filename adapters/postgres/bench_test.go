package postgres

import (
	"testing"

	"github.com/takhtabush/takhtabush/adapters/internal/storebench"
	"github.com/takhtabush/takhtabush/ports"
)

// BenchmarkStore runs the shared store benchmarks, each on a fresh
// database, when TAKHTABUSH_TEST_POSTGRES_URL is set.
func BenchmarkStore(b *testing.B) {
	baseURL(b)
	storebench.Run(b, func(b *testing.B) ports.Database { return open(b, freshDatabase(b)) })
}
