package clientdoc

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// server serves documents on a loopback TLS server and counts requests.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func allowed(t *testing.T, s *httptest.Server) *Fetcher {
	f := New()
	if err := f.AllowLoopback(s.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs); err != nil {
		t.Fatal(err)
	}
	return f
}

func json200(body string, cc string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if cc != "" {
			w.Header().Set("Cache-Control", cc)
		}
		_, _ = w.Write([]byte(body))
	}
}

func TestFetchThroughTheTestAllowance(t *testing.T) {
	s, n := server(t, json200(`{"client_id":"x"}`, "max-age=60"))
	f := allowed(t, s)
	url := s.URL + "/client.json"
	for range 3 {
		body, err := f.FetchClientDocument(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		if string(body) != `{"client_id":"x"}` {
			t.Fatalf("body %q", body)
		}
	}
	if n.Load() != 1 {
		t.Errorf("%d requests for three fetches within max-age, want 1 (cached)", n.Load())
	}
	// Past its max-age the document is fetched again.
	f.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	if _, err := f.FetchClientDocument(context.Background(), url); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 2 {
		t.Errorf("%d requests after expiry, want 2", n.Load())
	}
}

// Every failure to fetch a document is invalid with the one message
// FetchFailed, whatever went wrong (the authorization endpoint answers
// strangers, who must not learn about hosts and ports from it); the cause
// stays in the error's chain.
func TestRefusals(t *testing.T) {
	big := `{"client_id":"` + strings.Repeat("a", MaxBytes) + `"}`
	cases := []struct {
		name  string
		h     http.HandlerFunc
		cause string
	}{
		{"redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/other.json", http.StatusFound) }, "redirects"},
		{"not found", http.NotFound, "HTTP 404"},
		{"too large", json200(big, ""), "larger than 5 KiB"},
		{"html", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<p>"))
		}, "application/json"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _ := server(t, c.h)
			_, err := allowed(t, s).FetchClientDocument(context.Background(), s.URL+"/c.json")
			if contracts.KindOf(err) != contracts.KindInvalid || contracts.MessageOf(err) != FetchFailed || errors.Unwrap(err) == nil || !strings.Contains(errors.Unwrap(err).Error(), c.cause) {
				t.Errorf("err = %v (%s, %q), want invalid with FetchFailed, caused by %q", err, contracts.KindOf(err), contracts.MessageOf(err), c.cause)
			}
		})
	}
	t.Run("closed port, no such host, private address", func(t *testing.T) {
		s, _ := server(t, json200(`{}`, ""))
		closed := httptest.NewTLSServer(http.NotFoundHandler())
		closedURL := closed.URL
		closed.Close()
		f := allowed(t, s)
		guarded := New()
		for _, c := range []struct {
			f   *Fetcher
			url string
		}{
			{f, closedURL + "/c.json"},
			{guarded, "https://no-such-host.invalid/c.json"},
			{guarded, "https://10.0.0.1/c.json"},
			{guarded, "https://[::a00:1]/c.json"},
			{guarded, "https://localhost/c.json"},
		} {
			_, err := c.f.FetchClientDocument(context.Background(), c.url)
			if contracts.KindOf(err) != contracts.KindInvalid || contracts.MessageOf(err) != FetchFailed {
				t.Errorf("%s: err = %v (%s), want invalid with FetchFailed", c.url, err, contracts.KindOf(err))
			}
		}
	})
	t.Run("slow", func(t *testing.T) {
		if testing.Short() {
			t.Skip("waits for the timeout")
		}
		s, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(2 * Timeout):
			}
		})
		start := time.Now()
		_, err := allowed(t, s).FetchClientDocument(context.Background(), s.URL+"/c.json")
		if contracts.KindOf(err) != contracts.KindInvalid || contracts.MessageOf(err) != FetchFailed || time.Since(start) > Timeout+2*time.Second {
			t.Errorf("err = %v after %v, want FetchFailed after about %v", err, time.Since(start), Timeout)
		}
	})
}

// Only port 443: a client_id naming another port is refused before any
// lookup, so the endpoint cannot be pointed at other services.
func TestOnlyPort443(t *testing.T) {
	f := New()
	f.resolver = &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		t.Error("a lookup was made")
		return nil, errors.New("no lookups")
	}}
	for _, u := range []string{"https://app.example:8443/c.json", "https://app.example:22/c.json", "https://93.184.215.14:6379/c.json"} {
		_, err := f.FetchClientDocument(context.Background(), u)
		if contracts.KindOf(err) != contracts.KindInvalid || !strings.Contains(contracts.MessageOf(err), "443") {
			t.Errorf("%s: err = %v, want invalid naming port 443", u, err)
		}
	}
}

func TestGuardWithoutTheAllowance(t *testing.T) {
	s, n := server(t, json200(`{}`, ""))
	f := New()
	for _, u := range []string{
		s.URL + "/c.json", // 127.0.0.1
		strings.Replace(s.URL, "127.0.0.1", "localhost", 1) + "/c.json", // a name resolving to loopback
		"https://[::1]/c.json",
		"https://10.0.0.1/c.json",
		"https://169.254.169.254/latest/meta-data",
		"http://app.example/c.json",
		"https://user:pw@app.example/c.json",
	} {
		_, err := f.FetchClientDocument(context.Background(), u)
		if contracts.KindOf(err) != contracts.KindInvalid {
			t.Errorf("%s: err = %v, want invalid", u, err)
		}
	}
	if n.Load() != 0 {
		t.Errorf("the guarded fetcher reached the loopback server %d times", n.Load())
	}
	// The connect-time check refuses what a rebinding resolver could hand out.
	for _, a := range []string{"127.0.0.1:443", "10.1.2.3:443", "[::1]:443", "[fd00::1]:443", "[::ffff:192.168.0.1]:443", "100.64.0.1:443"} {
		if err := f.checkDial("tcp", a, nil); err == nil {
			t.Errorf("checkDial(%s) passed", a)
		}
	}
	if err := f.checkDial("tcp", "93.184.215.14:443", nil); err != nil {
		t.Errorf("checkDial of a public address: %v", err)
	}
}

func TestPublic(t *testing.T) {
	for a, want := range map[string]bool{
		"8.8.8.8": true, "2606:4700::1111": true, "93.184.215.14": true,
		"127.0.0.1": false, "10.0.0.1": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.169.254": false,
		"100.64.0.1": false, "0.0.0.0": false, "255.255.255.255": false, "224.0.0.1": false, "::1": false, "::": false,
		"fe80::1": false, "fd00::1": false, "::ffff:127.0.0.1": false, "64:ff9b::a00:1": false, "2002:7f00:1::": false, "198.18.0.1": false,
		"::808:808": false, "::7f00:1": false, "::ffff:0:808:808": false, "2001:4860:4860::8888": true,
	} {
		if got := Public(netip.MustParseAddr(a)); got != want {
			t.Errorf("Public(%s) = %v, want %v", a, got, want)
		}
	}
}

func TestCacheIsBounded(t *testing.T) {
	f := New()
	for i := range MaxCacheEntries + 50 {
		f.store("k"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+time.Duration(i).String(), []byte("{}"), time.Minute)
	}
	if len(f.cache) > MaxCacheEntries {
		t.Errorf("cache holds %d entries, bound %d", len(f.cache), MaxCacheEntries)
	}
	if cacheTTL("max-age=999999") != MaxCacheTTL || cacheTTL("no-store") != 0 || cacheTTL("") != DefaultCacheTTL {
		t.Error("cacheTTL ignores its bounds")
	}
}
