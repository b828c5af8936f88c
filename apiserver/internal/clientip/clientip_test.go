package clientip_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/takhtabush/takhtabush/apiserver/internal/clientip"
)

func TestResolve(t *testing.T) {
	trusted, err := clientip.ParseTrusted(" 10.0.0.0/8, 192.0.2.7 ,fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, peer string
		xff        []string
		trusted    clientip.Trusted
		want       string
	}{
		{"no proxies trusted: the peer, whatever it forwards", "10.1.2.3:5000", []string{"203.0.113.9"}, nil, "10.1.2.3"},
		{"an untrusted peer cannot choose its address", "198.51.100.4:5000", []string{"203.0.113.9"}, trusted, "198.51.100.4"},
		{"a trusted proxy names its client", "10.1.2.3:5000", []string{"203.0.113.9"}, trusted, "203.0.113.9"},
		{"a single trusted address", "192.0.2.7:443", []string{"203.0.113.9"}, trusted, "203.0.113.9"},
		{"a forged entry left of the proxy's is ignored", "10.1.2.3:5000", []string{"1.2.3.4, 203.0.113.9"}, trusted, "203.0.113.9"},
		{"chained trusted proxies are skipped", "10.1.2.3:5000", []string{"203.0.113.9, 10.9.9.9", "10.8.8.8"}, trusted, "203.0.113.9"},
		{"garbage stops the walk at the last good hop", "10.1.2.3:5000", []string{"not-an-ip, 10.9.9.9"}, trusted, "10.9.9.9"},
		{"no header: the proxy itself", "10.1.2.3:5000", nil, trusted, "10.1.2.3"},
		{"an empty header: the proxy itself", "10.1.2.3:5000", []string{""}, trusted, "10.1.2.3"},
		{"IPv6 proxy and client with a port", "[fd00::1]:5000", []string{"[2001:db8::5]:1234"}, trusted, "2001:db8::5"},
		{"an IPv4-mapped peer", "[::ffff:10.1.2.3]:5000", []string{"203.0.113.9"}, trusted, "203.0.113.9"},
	}
	for _, c := range cases {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.peer
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := c.trusted.Resolve(r); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if _, err := clientip.ParseTrusted("10.0.0.0/33"); err == nil {
		t.Error("ParseTrusted accepted 10.0.0.0/33")
	}
	if _, err := clientip.ParseTrusted("proxy.example"); err == nil {
		t.Error("ParseTrusted accepted a host name")
	}
}

func TestMiddlewareAndFrom(t *testing.T) {
	trusted, _ := clientip.ParseTrusted("127.0.0.1")
	var got string
	h := clientip.Middleware(trusted, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = clientip.From(r) }))
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "127.0.0.1:4000"
	r.Header.Set("X-Forwarded-For", "203.0.113.9")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got != "203.0.113.9" {
		t.Errorf("From behind the middleware = %q", got)
	}
	if From := clientip.From(r); From != "127.0.0.1" {
		t.Errorf("From without the middleware = %q, want the peer", From)
	}
}

func TestNetwork(t *testing.T) {
	for in, want := range map[string]string{
		"203.0.113.7":                   "203.0.113.7",
		"::ffff:203.0.113.7":            "203.0.113.7",
		"2001:db8:1:2:aaaa::1":          "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:ffff:ffff:1": "2001:db8:1:2::/64",
		"2001:db8:1:3::1":               "2001:db8:1:3::/64",
		"fe80::1%eth0":                  "fe80::/64",
		"not an address":                "not an address",
	} {
		if got := clientip.Network(in); got != want {
			t.Errorf("Network(%q) = %q, want %q", in, got, want)
		}
	}
}
