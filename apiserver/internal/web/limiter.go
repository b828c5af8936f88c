package web

import (
	"sync"
	"time"
)

// limiter allows n events per key in a fixed window. It keeps at most
// maxKeys keys (expired windows are dropped first; when all are live, the
// newest key is refused rather than forgetting an older one). It lives in
// one process: several instances each apply it.
type limiter struct {
	n       int
	window  time.Duration
	maxKeys int
	now     func() time.Time

	mu   sync.Mutex
	keys map[string]*window
}

type window struct {
	start time.Time
	count int
}

func newLimiter(n int, per time.Duration, maxKeys int, now func() time.Time) *limiter {
	return &limiter{n: n, window: per, maxKeys: maxKeys, now: now, keys: map[string]*window{}}
}

// allow counts an event for key and reports whether it is within the limit.
func (l *limiter) allow(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	w := l.keys[key]
	if w == nil || now.Sub(w.start) >= l.window {
		if w == nil && len(l.keys) >= l.maxKeys {
			for k, v := range l.keys {
				if now.Sub(v.start) >= l.window {
					delete(l.keys, k)
				}
			}
			if len(l.keys) >= l.maxKeys {
				return false
			}
		}
		w = &window{start: now}
		l.keys[key] = w
	}
	w.count++
	return w.count <= l.n
}
