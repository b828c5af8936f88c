package mcpcore

import (
	"net"
	"net/url"
	"strings"
)

// HostAllowed reports whether a request's Host value is one this service
// answers, against DNS rebinding: a loopback name (localhost, 127.0.0.1,
// [::1], any port) or an entry of allowed. An entry "api.example.com"
// accepts any port, "api.example.com:8443" only that one, "*" any host.
// An empty Host is refused. This is the one host rule: the HTTP transport
// and the layers in front of it all ask it.
func HostAllowed(host string, allowed []string) bool {
	if host == "" {
		return false
	}
	name := splitHost(host)
	if IsLoopbackHost(name) {
		return true
	}
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(a, host) || strings.EqualFold(a, name) {
			return true
		}
	}
	return false
}

// OriginAllowed reports whether an Origin header value may call this
// service: an entry of allowed ("https://app.example.com", or "*" for any),
// or an http(s) origin on a loopback host.
func OriginAllowed(origin string, allowed []string) bool {
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(a, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return IsLoopbackHost(u.Hostname())
}

// IsLoopbackHost reports whether a host name without port ("localhost",
// "127.0.0.1", "[::1]" or "::1") names the loopback interface.
func IsLoopbackHost(host string) bool {
	switch host {
	case "127.0.0.1", "localhost", "[::1]":
		return true
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// splitHost drops the port of a Host value ("[::1]:80" → "[::1]").
func splitHost(hostport string) string {
	if strings.HasPrefix(hostport, "[") {
		if i := strings.IndexByte(hostport, ']'); i > 0 {
			return hostport[:i+1]
		}
		return hostport
	}
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && strings.IndexByte(hostport, ':') == i {
		return hostport[:i]
	}
	return hostport
}
