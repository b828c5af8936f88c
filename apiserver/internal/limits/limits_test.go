package limits_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/apiserver/internal/limits"
	"github.com/takhtabush/takhtabush/contracts"
)

type refusals struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *refusals) Refused(limit string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[string]int{}
	}
	r.n[limit]++
}

func (r *refusals) count(limit string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[limit]
}

func TestRateIsPerCredentialWithRetryAfter(t *testing.T) {
	var m refusals
	l := limits.New(limits.Config{Rate: 2, Burst: 3}, &m)
	now := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	for i := range 3 {
		release, err := l.Acquire("u", "a", now)
		if err != nil {
			t.Fatalf("request %d of a burst of 3: %v", i+1, err)
		}
		release()
	}
	_, err := l.Acquire("u", "a", now)
	r, ok := contracts.RefusalOf(err)
	if !contracts.IsKind(err, contracts.KindRateLimited) || !ok || r.Limit != contracts.LimitRate {
		t.Fatalf("the fourth request at once: %v, want a rate refusal", err)
	}
	if r.RetryAfter <= 0 || r.RetryAfter > time.Second/2 {
		t.Errorf("retry after %v, want the 0.5 s one token takes at 2 a second", r.RetryAfter)
	}
	if msg := contracts.MessageOf(err); !strings.Contains(msg, "2 requests a second") || !strings.Contains(msg, "retry in 1 second") {
		t.Errorf("message %q does not say the rate and when to retry", msg)
	}
	if _, err := l.Acquire("u", "b", now); err != nil {
		t.Errorf("another credential was refused: %v", err)
	}
	// A refused request takes no token: half a second later one is back.
	if release, err := l.Acquire("u", "a", now.Add(500*time.Millisecond)); err != nil {
		t.Errorf("after the wait the refusal named: %v", err)
	} else {
		release()
	}
	if m.count(contracts.LimitRate) != 1 {
		t.Errorf("refusals counted: %v", m.n)
	}
}

func TestConcurrencyBoundsRequestsInFlight(t *testing.T) {
	var m refusals
	l := limits.New(limits.Config{Concurrent: 2}, &m)
	now := time.Now()
	r1, err1 := l.Acquire("u", "a", now)
	r2, err2 := l.Acquire("u", "a", now)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	_, err := l.Acquire("u", "a", now)
	if r, ok := contracts.RefusalOf(err); !ok || r.Limit != contracts.LimitConcurrency || r.RetryAfter != time.Second {
		t.Fatalf("a third request in flight: %v", err)
	}
	r1()
	r1() // releasing twice frees one slot only
	r3, err := l.Acquire("u", "a", now)
	if err != nil {
		t.Fatalf("after one ended: %v", err)
	}
	if _, err := l.Acquire("u", "a", now); err == nil {
		t.Error("a double release freed a second slot")
	}
	r2()
	r3()
	if m.count(contracts.LimitConcurrency) != 2 {
		t.Errorf("refusals counted: %v", m.n)
	}
}

func TestIdleCredentialsAreForgotten(t *testing.T) {
	l := limits.New(limits.Config{Rate: 1, Burst: 1}, &refusals{})
	now := time.Now()
	for _, k := range []string{"a", "b", "c"} {
		release, err := l.Acquire("u", k, now)
		if err != nil {
			t.Fatal(err)
		}
		release()
	}
	if l.Tracked() != 3 {
		t.Fatalf("tracked %d", l.Tracked())
	}
	release, err := l.Acquire("u", "d", now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	release()
	if l.Tracked() != 1 {
		t.Errorf("after an hour idle %d credentials are still tracked, want only the new one", l.Tracked())
	}
}

func TestUnlimited(t *testing.T) {
	l := limits.New(limits.Config{Rate: -1, Concurrent: -1}, &refusals{})
	for range 10_000 {
		if _, err := l.Acquire("u", "a", time.Now()); err != nil { // never released: no bound in flight either
			t.Fatal(err)
		}
	}
}

// The middleware refuses before the handler runs: 429, Retry-After, and
// the door's body; requests without a principal pass to authentication.
func TestMiddleware(t *testing.T) {
	var ran atomic.Int64
	block := make(chan struct{})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ran.Add(1)
		if r.Header.Get("Block") != "" {
			<-block
		}
		w.WriteHeader(http.StatusNoContent)
	})
	h := limits.New(limits.Config{Rate: 1, Burst: 1}, &refusals{}).Middleware(slog.New(slog.DiscardHandler), httperr.JSONRPC, handler)
	as := func(user string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		return r.WithContext(contracts.WithPrincipal(r.Context(), contracts.Principal{UserID: user, CredentialKind: contracts.CredentialAPIKey, CredentialID: "k-" + user}))
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, as("ada"))
	if w.Code != http.StatusNoContent {
		t.Fatalf("first request: %d", w.Code)
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, as("ada"))
	var body struct {
		Error struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]any `json:"data"`
		} `json:"error"`
	}
	raw, _ := io.ReadAll(w.Body)
	_ = json.Unmarshal(raw, &body)
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" || body.Error.Data["kind"] != "rate_limited" ||
		body.Error.Data["limit"] != "rate" || !strings.Contains(body.Error.Message, "rate limit") {
		t.Errorf("second request: %d Retry-After %q body %s", w.Code, w.Header().Get("Retry-After"), raw)
	}
	if ran.Load() != 1 {
		t.Errorf("the handler ran %d times, want once", ran.Load())
	}
	w = httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/mcp", nil))
	if w.Code != http.StatusNoContent {
		t.Errorf("a request without a principal: %d, want it passed on", w.Code)
	}

	// Concurrency: grace's first request blocks; her second is refused.
	h = limits.New(limits.Config{Rate: -1, Concurrent: 1}, &refusals{}).Middleware(slog.New(slog.DiscardHandler), httperr.JSON, handler)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := as("grace")
		r.Header.Set("Block", "1")
		h.ServeHTTP(httptest.NewRecorder(), r)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		w = httptest.NewRecorder()
		h.ServeHTTP(w, as("grace"))
		if w.Code == http.StatusTooManyRequests || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(block)
	<-done
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" || !strings.Contains(w.Body.String(), `"kind":"rate_limited"`) {
		t.Errorf("a second request in flight: %d %s", w.Code, w.Body.String())
	}
}

// An account's credentials together meet the account's limits: a new key
// does not buy a new budget (issue 30, item 5: 61 keys minted in a row had
// 61 budgets). A refusal names the account's limit and takes nothing from
// the credential's bucket.
func TestAccountLimitsSpanItsCredentials(t *testing.T) {
	var m refusals
	l := limits.New(limits.Config{Rate: 10, Burst: 2, AccountRate: 1, AccountBurst: 3}, &m)
	now := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	for i, key := range []string{"k1", "k1", "k2"} {
		release, err := l.Acquire("ada", key, now)
		if err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
		release()
	}
	_, err := l.Acquire("ada", "k3", now) // a fresh key of the same account
	r, ok := contracts.RefusalOf(err)
	if !ok || r.Limit != contracts.LimitAccountRate || r.RetryAfter <= 0 || r.RetryAfter > time.Second {
		t.Fatalf("a fourth request of the account with a fresh key: %v, want the account's rate refusal", err)
	}
	if msg := contracts.MessageOf(err); !strings.Contains(msg, "this account's credentials together may make 1 requests a second") {
		t.Errorf("message %q does not say it is the account's rate", msg)
	}
	if _, err := l.Acquire("grace", "g1", now); err != nil {
		t.Errorf("another account was refused: %v", err)
	}
	if m.count(contracts.LimitAccountRate) != 1 || m.count(contracts.LimitRate) != 0 {
		t.Errorf("refusals counted: %v", m.n)
	}
	// A request the account refuses takes no token of its credential: k2's
	// one token (refilled only after 100 s) is still there a second later.
	l = limits.New(limits.Config{Rate: 0.01, Burst: 1, AccountRate: 1, AccountBurst: 1}, &m)
	if _, err := l.Acquire("ada", "k1", now); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Acquire("ada", "k2", now); err == nil {
		t.Fatal("the account's second request at once was admitted")
	}
	if _, err := l.Acquire("ada", "k2", now.Add(time.Second)); err != nil {
		t.Errorf("k2 a second later: %v, want its token untouched by the account's refusal", err)
	}

	// Requests in flight, across credentials.
	l = limits.New(limits.Config{Concurrent: 2, AccountConcurrent: 3}, &m)
	var releases []func()
	for _, key := range []string{"k1", "k2", "k3"} {
		rel, err := l.Acquire("ada", key, now)
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, rel)
	}
	_, err = l.Acquire("ada", "k4", now)
	if r, ok := contracts.RefusalOf(err); !ok || r.Limit != contracts.LimitAccountConcurrency || r.RetryAfter != time.Second {
		t.Fatalf("a fourth request in flight of the account: %v, want the account's concurrency refusal", err)
	}
	releases[0]()
	if rel, err := l.Acquire("ada", "k4", now); err != nil {
		t.Errorf("after one ended: %v", err)
	} else {
		rel()
	}
}
