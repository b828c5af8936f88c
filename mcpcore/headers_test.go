package mcpcore

import (
	"net/textproto"
	"testing"
)

// headerValue skips canonicalization, so every key the engine looks up
// must be written in canonical form.
func TestHeaderKeysAreCanonical(t *testing.T) {
	for _, k := range []string{"Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "X-Mcp-Scopes", "Origin", "Content-Type"} {
		if c := textproto.CanonicalMIMEHeaderKey(k); c != k {
			t.Errorf("%q is not canonical (%q)", k, c)
		}
	}
}

func TestLoopbackHosts(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "localhost": true, "LocalHost": true, "[::1]": true, "::1": true, "127.1.2.3": true,
		"example.com": false, "10.0.0.1": false, "": false, "[::2]": false,
	} {
		if got := IsLoopbackHost(host); got != want {
			t.Errorf("IsLoopbackHost(%q) = %v", host, got)
		}
	}
}
