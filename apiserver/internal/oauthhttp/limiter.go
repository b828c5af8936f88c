package oauthhttp

import (
	"sync"
	"time"
)

// limiter allows n events per window per key, remembering at most max
// keys (when full, it forgets the windows that ended, then refuses new
// keys until some do: a flood of addresses cannot grow it without bound).
type limiter struct {
	n      int
	window time.Duration
	max    int

	mu   sync.Mutex
	seen map[string]*bucket
}

type bucket struct {
	start time.Time
	count int
}

func newLimiter(n int, window time.Duration, max int) *limiter {
	return &limiter{n: n, window: window, max: max, seen: map[string]*bucket{}}
}

// allow records an event of key at now and reports whether it is within
// the limit.
func (l *limiter) allow(key string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.seen[key]
	if ok && now.Sub(b.start) >= l.window {
		b.start, b.count = now, 0
	}
	if !ok {
		if len(l.seen) >= l.max {
			for k, old := range l.seen {
				if now.Sub(old.start) >= l.window {
					delete(l.seen, k)
				}
			}
			if len(l.seen) >= l.max {
				return false
			}
		}
		b = &bucket{start: now}
		l.seen[key] = b
	}
	if b.count >= l.n {
		return false
	}
	b.count++
	return true
}
