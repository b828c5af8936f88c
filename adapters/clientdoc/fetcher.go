// Package clientdoc fetches OAuth client ID metadata documents with guards
// against server-side request forgery and probing: https on port 443
// only; one message for every failure to fetch (FetchFailed), so the
// answer says nothing about a host or port; every address the host
// resolves to, and the address actually dialled, must be a public unicast
// address (so neither a DNS answer nor a rebinding between lookup and
// connect can point the server at itself or its network); a short
// timeout; a small size cap; no redirects; and a bounded cache that
// honours Cache-Control within limits.
//
// Tests serve documents from a loopback TLS server through AllowLoopback,
// which refuses to work outside a test binary (testing.Testing), so no
// configuration can open the guard in production.
package clientdoc

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Limits.
const (
	// MaxBytes caps a document's size.
	MaxBytes = 5 << 10
	// Timeout bounds one fetch, from lookup to the last byte.
	Timeout = 5 * time.Second
	// MaxCacheEntries bounds the cache.
	MaxCacheEntries = 256
	// DefaultCacheTTL applies when the answer says nothing; MaxCacheTTL
	// caps what it says.
	DefaultCacheTTL = 5 * time.Minute
	MaxCacheTTL     = time.Hour
)

// Fetcher is a ports.ClientDocumentFetcher. It is safe for concurrent use.
type Fetcher struct {
	client   *http.Client
	resolver *net.Resolver
	now      func() time.Time
	loopback bool // tests only: loopback addresses pass the guard

	mu    sync.Mutex
	cache map[string]entry
}

type entry struct {
	body    []byte
	expires time.Time
}

var _ ports.ClientDocumentFetcher = (*Fetcher)(nil)

// New returns a guarded fetcher.
func New() *Fetcher {
	f := &Fetcher{resolver: net.DefaultResolver, now: time.Now, cache: map[string]entry{}}
	dialer := &net.Dialer{Timeout: Timeout, Control: f.checkDial}
	transport := &http.Transport{
		Proxy:                  nil, // a proxy would dial for us, unguarded
		DialContext:            dialer.DialContext,
		TLSClientConfig:        &tls.Config{MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    Timeout,
		ResponseHeaderTimeout:  Timeout,
		MaxIdleConns:           16,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 16 << 10,
	}
	f.client = &http.Client{
		Transport: transport,
		Timeout:   Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	return f
}

// AllowLoopback lets loopback addresses through the guard and trusts
// roots, for tests serving documents from a local TLS server. It fails
// outside a test binary.
func (f *Fetcher) AllowLoopback(roots *x509.CertPool) error {
	if !testing.Testing() {
		return errors.New("clientdoc: the loopback allowance exists for tests only")
	}
	f.loopback = true
	f.client.Transport.(*http.Transport).TLSClientConfig.RootCAs = roots
	return nil
}

func refused(msg string) error { return contracts.Errorf(contracts.KindInvalid, "%s", msg) }

// FetchFailed is the one message of every failure to fetch a document
// whose client_id is a well-formed https URL: the authorization endpoint
// answers anyone, so what went wrong (no such host, a private address, a
// closed port, a timeout, a status, a type, a size) must not tell a
// stranger anything about hosts and ports. The cause stays in the error's
// chain.
const FetchFailed = "it could not be fetched from its client_id (an https URL on port 443 whose public host serves it directly, " +
	"as application/json of at most 5 KiB, within 5 seconds)"

// FetchClientDocument returns the document at raw. A client_id that is
// not an https URL on port 443 is refused as such, before any lookup;
// every later failure is invalid with the message FetchFailed.
func (f *Fetcher) FetchClientDocument(ctx context.Context, raw string) ([]byte, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" || u.User != nil {
		return nil, refused("the client_id is not an https URL")
	}
	if p := u.Port(); p != "" && p != "443" && !f.loopback {
		return nil, refused("the client_id must be an https URL on the default port (443)")
	}
	if body, ok := f.cached(raw); ok {
		return body, nil
	}
	body, err := f.fetch(ctx, raw, u)
	if err != nil {
		return nil, &contracts.Error{Kind: contracts.KindInvalid, Message: FetchFailed, Err: err}
	}
	return body, nil
}

// fetch fetches and caches the document at raw (parsed as u), or says
// why not.
func (f *Fetcher) fetch(ctx context.Context, raw string, u *url.URL) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	if err := f.checkHost(ctx, u.Hostname()); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, refused("the client_id is not a usable URL")
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		var ce *contracts.Error
		if errors.As(err, &ce) {
			return nil, ce
		}
		return nil, &contracts.Error{Kind: contracts.KindUnavailable, Message: "the client's metadata document could not be fetched", Err: err}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return nil, refused("the client's metadata document redirects; it must be served at its client_id")
	case resp.StatusCode != http.StatusOK:
		return nil, refused("the client's metadata document answered HTTP " + strconv.Itoa(resp.StatusCode))
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return nil, refused("the client's metadata document is not served as application/json")
	}
	if resp.ContentLength > MaxBytes {
		return nil, refused("the client's metadata document is larger than 5 KiB")
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBytes+1))
	if err != nil {
		return nil, &contracts.Error{Kind: contracts.KindUnavailable, Message: "the client's metadata document could not be read", Err: err}
	}
	if len(body) > MaxBytes {
		return nil, refused("the client's metadata document is larger than 5 KiB")
	}
	f.store(raw, body, cacheTTL(resp.Header.Get("Cache-Control")))
	return body, nil
}

// checkHost resolves host and refuses it unless every address is public.
func (f *Fetcher) checkHost(ctx context.Context, host string) error {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return f.checkAddr(ip)
	}
	addrs, err := f.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return &contracts.Error{Kind: contracts.KindUnavailable, Message: "the client_id's host could not be resolved", Err: err}
	}
	for _, a := range addrs {
		if err := f.checkAddr(a); err != nil {
			return err
		}
	}
	return nil
}

// checkDial refuses a connection to anything but a public address: the
// resolver may answer differently at connect time than it did before.
func (f *Fetcher) checkDial(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return refused("the client_id's address is not an IP address")
	}
	return f.checkAddr(ap.Addr())
}

// checkAddr refuses every address that is not public unicast.
func (f *Fetcher) checkAddr(a netip.Addr) error {
	a = a.Unmap()
	if f.loopback && a.IsLoopback() {
		return nil
	}
	if !Public(a) {
		return refused("the client_id's host resolves to a non-public address")
	}
	return nil
}

// nonPublic are ranges that are global unicast by the standard library's
// measure but still not the public internet.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (deprecated) embeds any IPv4
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT) embeds any IPv4
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 can reach any IPv4
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"), // 6to4 embeds an IPv4
	netip.MustParsePrefix("2001::/32"), // Teredo
	netip.MustParsePrefix("fc00::/7"),
}

// Public reports whether a is a public unicast address.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// cacheTTL reads max-age within bounds; no-store and no-cache mean none.
func cacheTTL(cc string) time.Duration {
	ttl := DefaultCacheTTL
	for _, d := range strings.Split(strings.ToLower(cc), ",") {
		d = strings.TrimSpace(d)
		switch {
		case d == "no-store" || d == "no-cache":
			return 0
		case strings.HasPrefix(d, "max-age="):
			if n, err := strconv.Atoi(strings.TrimPrefix(d, "max-age=")); err == nil && n >= 0 {
				ttl = time.Duration(n) * time.Second
			}
		}
	}
	return min(ttl, MaxCacheTTL)
}

func (f *Fetcher) cached(key string) ([]byte, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.cache[key]
	if !ok {
		return nil, false
	}
	if !f.now().Before(e.expires) {
		delete(f.cache, key)
		return nil, false
	}
	return e.body, true
}

func (f *Fetcher) store(key string, body []byte, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	if len(f.cache) >= MaxCacheEntries {
		for k, e := range f.cache { // drop the expired, then anything
			if !now.Before(e.expires) {
				delete(f.cache, k)
			}
		}
		for k := range f.cache {
			if len(f.cache) < MaxCacheEntries {
				break
			}
			delete(f.cache, k)
		}
	}
	f.cache[key] = entry{body: body, expires: now.Add(ttl)}
}
