// Package clientip decides which address a request comes from, once for
// every use (sign-in rate limits, OAuth registration limits, access
// logs): the connection's peer, unless that peer is a trusted proxy, in
// which case X-Forwarded-For is read from the right, skipping trusted
// proxies, and the first address not trusted is the client. Nothing
// untrusted can choose its own address: a forged X-Forwarded-For from a
// client that is not a trusted proxy is ignored, and one relayed through
// a trusted proxy only adds entries to the left of the one the proxy
// wrote.
package clientip

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Trusted is the list of proxy networks whose X-Forwarded-For is believed.
type Trusted []netip.Prefix

// ParseTrusted parses a comma-separated list of CIDR prefixes or single
// addresses ("10.0.0.0/8, 192.0.2.7"); an empty list trusts no proxy.
func ParseTrusted(list string) (Trusted, error) {
	var out Trusted
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is neither a CIDR prefix (10.0.0.0/8) nor an address", f)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// contains reports whether a is in one of the trusted networks.
func (t Trusted) contains(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range t {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Resolve returns the client address of r (see the package comment), as
// text without a port.
func (t Trusted) Resolve(r *http.Request) string {
	peer := peerOf(r.RemoteAddr)
	if !peer.IsValid() {
		return hostOf(r.RemoteAddr)
	}
	if len(t) == 0 || !t.contains(peer) {
		return peer.Unmap().String()
	}
	hops := forwarded(r.Header.Values("X-Forwarded-For"))
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(hops[i])
		if err != nil {
			break // garbage left of here was written by no one we trust
		}
		client = a
		if !t.contains(a) {
			break
		}
	}
	return client.Unmap().String()
}

// forwarded splits X-Forwarded-For values into addresses, left to right
// (ports and IPv6 brackets removed).
func forwarded(values []string) []string {
	var out []string
	for _, v := range values {
		for _, h := range strings.Split(v, ",") {
			h = strings.TrimSpace(h)
			if ap, err := netip.ParseAddrPort(h); err == nil {
				h = ap.Addr().String()
			}
			out = append(out, strings.Trim(h, "[]"))
		}
	}
	return out
}

func peerOf(remote string) netip.Addr {
	a, err := netip.ParseAddr(hostOf(remote))
	if err != nil {
		return netip.Addr{}
	}
	return a
}

func hostOf(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return remote
	}
	return host
}

type ctxKey struct{}

// Middleware resolves each request's client address once and keeps it in
// the request's context for From.
func Middleware(t Trusted, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, t.Resolve(r))))
	})
}

// From returns the client address of r: the one Middleware resolved, or
// the connection's peer when r did not pass through it.
func From(r *http.Request) string {
	if a, ok := r.Context().Value(ctxKey{}).(string); ok {
		return a
	}
	return hostOf(r.RemoteAddr)
}

// Network is the network one subscriber usually holds around addr, as
// text, for limits that should not let one client hop addresses: an IPv6
// address's /64 (a home or a host gets a whole /64), an IPv4 address
// itself. Text that is not an address is returned unchanged.
func Network(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}
