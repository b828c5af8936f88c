// Package limits holds the per-credential limits every authenticated
// request meets before any work is done for it: a token bucket of
// requests per second (golang.org/x/time/rate) and a bound on requests in
// flight. They live in the instance's memory: with several instances each
// allows its own rate, so a credential may reach the sum of the instances'
// rates (the per-account quota and caps, kept in the database, are
// shared).
package limits

import (
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
)

// Config are the per-credential limits. A Rate of zero or less allows any
// rate; a Concurrent of zero or less allows any number in flight.
type Config struct {
	Rate       float64 // requests a second, refilled continuously
	Burst      int     // requests allowed at once above the rate (at least 1)
	Concurrent int     // requests in flight at once
}

// Counter counts refusals (the service's metrics).
type Counter interface {
	// Refused counts a request refused by the limit named limit.
	Refused(limit string)
}

// idleAfter is how long a credential's state is kept after its last
// request; a credential idle that long has a full bucket anyway.
const idleAfter = 10 * time.Minute

// sweepEvery is the least time between two sweeps of idle credentials.
const sweepEvery = time.Minute

// Limiter enforces Config per credential. It is safe for concurrent use.
type Limiter struct {
	cfg   Config
	m     Counter
	mu    sync.Mutex
	creds map[string]*credential
	swept time.Time
}

// credential is one credential's state.
type credential struct {
	bucket   *rate.Limiter // nil when the rate is unlimited
	inFlight int
	seen     time.Time
}

// New returns a limiter of cfg that counts refusals on m.
func New(cfg Config, m Counter) *Limiter {
	if cfg.Burst < 1 {
		cfg.Burst = 1
	}
	return &Limiter{cfg: cfg, m: m, creds: map[string]*credential{}}
}

// Key is the limiter key of a principal: its credential, for its user
// (an OAuth client serves many users; each gets its own limits).
func Key(p contracts.Principal) string {
	return string(p.CredentialKind) + "\x00" + p.UserID + "\x00" + p.CredentialID
}

// Acquire admits one request of the credential key at now, or refuses it
// with a rate_limited error that says when to retry. An admitted request
// calls release when it ends.
func (l *Limiter) Acquire(key string, now time.Time) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	c := l.creds[key]
	if c == nil {
		c = &credential{}
		if l.cfg.Rate > 0 {
			c.bucket = rate.NewLimiter(rate.Limit(l.cfg.Rate), l.cfg.Burst)
		}
		l.creds[key] = c
	}
	c.seen = now
	if l.cfg.Concurrent > 0 && c.inFlight >= l.cfg.Concurrent {
		l.m.Refused(contracts.LimitConcurrency)
		return nil, contracts.Refused(contracts.LimitConcurrency, time.Second,
			"too many requests at once: this credential has %d in progress, the limit is %d; wait for them to finish, then retry",
			c.inFlight, l.cfg.Concurrent)
	}
	if c.bucket != nil {
		r := c.bucket.ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now)
			l.m.Refused(contracts.LimitRate)
			return nil, contracts.Refused(contracts.LimitRate, d,
				"rate limit: this credential may make %s requests a second (bursts of %d); retry in %s",
				strconv.FormatFloat(l.cfg.Rate, 'f', -1, 64), l.cfg.Burst, seconds(d))
		}
	}
	c.inFlight++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			c.inFlight--
			l.mu.Unlock()
		})
	}, nil
}

// seconds says d in whole seconds, at least one.
func seconds(d time.Duration) string {
	s := int((d + time.Second - 1) / time.Second)
	if s == 1 {
		return "1 second"
	}
	return strconv.Itoa(s) + " seconds"
}

// sweep forgets credentials idle for idleAfter, at most once a sweepEvery.
func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.swept) < sweepEvery {
		return
	}
	l.swept = now
	for k, c := range l.creds {
		if c.inFlight == 0 && now.Sub(c.seen) > idleAfter {
			delete(l.creds, k)
		}
	}
}

// Tracked returns how many credentials the limiter holds state for.
func (l *Limiter) Tracked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.creds)
}

// Middleware admits each request of an authenticated principal through l
// before next does any work, and answers a refused one out of door: 429
// with Retry-After and the door's error body. Requests without a
// principal pass (authentication refuses them first).
func (l *Limiter) Middleware(log *slog.Logger, door httperr.Door, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := contracts.PrincipalFrom(r.Context())
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		release, err := l.Acquire(Key(p), time.Now())
		if err != nil {
			httperr.Write(r.Context(), log, w, door, err)
			return
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}
