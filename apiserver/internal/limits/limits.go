// Package limits holds the limits every authenticated request meets before
// any work is done for it, per credential and per account (all of the
// account's keys, OAuth grants and web sessions together, so that minting
// more keys does not buy more): a token bucket of requests per second
// (golang.org/x/time/rate) and a bound on requests in flight. They live in
// the instance's memory: with several instances each allows its own rate,
// so a credential or an account may reach the sum of the instances' rates
// (the per-account quota and caps, kept in the database, are shared).
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

// Config are the limits. A rate of zero or less allows any rate; a
// concurrency of zero or less allows any number in flight.
type Config struct {
	Rate       float64 // requests a second of one credential, refilled continuously
	Burst      int     // requests a credential may make at once above the rate (at least 1)
	Concurrent int     // requests of one credential in flight at once
	// AccountRate, AccountBurst and AccountConcurrent are the same limits
	// for all of one account's credentials together.
	AccountRate       float64
	AccountBurst      int
	AccountConcurrent int
}

// Counter counts refusals (the service's metrics).
type Counter interface {
	// Refused counts a request refused by the limit named limit.
	Refused(limit string)
}

// idleAfter is how long a credential's or an account's state is kept after
// its last request; one idle that long has a full bucket anyway.
const idleAfter = 10 * time.Minute

// sweepEvery is the least time between two sweeps of idle state.
const sweepEvery = time.Minute

// Limiter enforces Config per credential and per account. It is safe for
// concurrent use.
type Limiter struct {
	cfg      Config
	m        Counter
	mu       sync.Mutex
	creds    map[string]*holder
	accounts map[string]*holder
	swept    time.Time
}

// holder is one credential's or one account's state.
type holder struct {
	bucket   *rate.Limiter // nil when the rate is unlimited
	inFlight int
	seen     time.Time
}

// level is one of the two levels a request is counted at, with the names
// and words of its refusals.
type level struct {
	rate                 float64
	burst, concurrent    int
	rateLimit, concLimit string
	inProgress, share    string
}

func (c Config) levels() [2]level {
	return [2]level{
		{c.Rate, c.Burst, c.Concurrent, contracts.LimitRate, contracts.LimitConcurrency,
			"this credential has", "this credential may make"},
		{c.AccountRate, c.AccountBurst, c.AccountConcurrent, contracts.LimitAccountRate, contracts.LimitAccountConcurrency,
			"this account's credentials together have", "this account's credentials together may make"},
	}
}

// New returns a limiter of cfg that counts refusals on m.
func New(cfg Config, m Counter) *Limiter {
	cfg.Burst, cfg.AccountBurst = max(cfg.Burst, 1), max(cfg.AccountBurst, 1)
	return &Limiter{cfg: cfg, m: m, creds: map[string]*holder{}, accounts: map[string]*holder{}}
}

// Key is the limiter key of a principal: its credential, for its user
// (an OAuth client serves many users; each gets its own limits).
func Key(p contracts.Principal) string {
	return string(p.CredentialKind) + "\x00" + p.UserID + "\x00" + p.CredentialID
}

// state returns the holder of key in m, made at the level's rate.
func (l *Limiter) state(m map[string]*holder, key string, lv level, now time.Time) *holder {
	h := m[key]
	if h == nil {
		h = &holder{}
		if lv.rate > 0 {
			h.bucket = rate.NewLimiter(rate.Limit(lv.rate), lv.burst)
		}
		m[key] = h
	}
	h.seen = now
	return h
}

// Acquire admits one request of the credential key of the account at now,
// or refuses it with a rate_limited error that names the limit (the
// credential's or the account's) and says when to retry. An admitted
// request calls release when it ends. A refused request takes nothing from
// either level.
func (l *Limiter) Acquire(account, key string, now time.Time) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	lv := l.cfg.levels()
	hs := [2]*holder{l.state(l.creds, key, lv[0], now), l.state(l.accounts, account, lv[1], now)}
	for i, h := range hs {
		if lv[i].concurrent > 0 && h.inFlight >= lv[i].concurrent {
			l.m.Refused(lv[i].concLimit)
			return nil, contracts.Refused(lv[i].concLimit, time.Second,
				"too many requests at once: %s %d in progress, the limit is %d; wait for them to finish, then retry",
				lv[i].inProgress, h.inFlight, lv[i].concurrent)
		}
	}
	var taken []*rate.Reservation
	for i, h := range hs {
		if h.bucket == nil {
			continue
		}
		r := h.bucket.ReserveN(now, 1)
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now)
			for _, t := range taken {
				t.CancelAt(now)
			}
			l.m.Refused(lv[i].rateLimit)
			return nil, contracts.Refused(lv[i].rateLimit, d,
				"rate limit: %s %s requests a second (bursts of %d); retry in %s",
				lv[i].share, strconv.FormatFloat(lv[i].rate, 'f', -1, 64), lv[i].burst, seconds(d))
		}
		taken = append(taken, r)
	}
	for _, h := range hs {
		h.inFlight++
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			for _, h := range hs {
				h.inFlight--
			}
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

// sweep forgets credentials and accounts idle for idleAfter, at most once
// a sweepEvery.
func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.swept) < sweepEvery {
		return
	}
	l.swept = now
	for _, m := range []map[string]*holder{l.creds, l.accounts} {
		for k, h := range m {
			if h.inFlight == 0 && now.Sub(h.seen) > idleAfter {
				delete(m, k)
			}
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
		release, err := l.Acquire(p.UserID, Key(p), time.Now())
		if err != nil {
			httperr.Write(r.Context(), log, w, door, err)
			return
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}
