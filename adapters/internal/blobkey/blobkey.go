// Package blobkey checks blob keys for the ports.BlobStore adapters, so
// every adapter refuses the same keys (ports.BlobWriter.Commit names the
// rule).
package blobkey

import (
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
)

// MaxLen bounds a key's length.
const MaxLen = 512

// Check returns nil for a valid key: slash-separated segments of letters,
// digits, '-', '_' and '.', none empty or starting with '.' (so "." and
// ".." never, and adapters may keep their own files under dot-names).
// Anything else is invalid.
func Check(key string) error {
	if key == "" || len(key) > MaxLen {
		return bad(key)
	}
	for seg := range strings.SplitSeq(key, "/") {
		if seg == "" || seg[0] == '.' {
			return bad(key)
		}
		for _, r := range seg {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
				return bad(key)
			}
		}
	}
	return nil
}

func bad(key string) error {
	if len(key) > 80 {
		key = key[:80] + "…"
	}
	return contracts.Errorf(contracts.KindInvalid, "blob key %q is not valid", key)
}
