package identity

import (
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
)

// FuzzParseKey holds the API key parser's promises for any presented
// string: it never panics, and what it accepts is exactly
// "tbk_<id>_<secret>" (after trimming), bounded in length, with a
// plausible id without '_' and a non-empty secret.
func FuzzParseKey(f *testing.F) {
	for _, k := range []string{"tbk_01a22f22-9689-7373-b43c-c03667080cc2_s3cr3t_with_underscores", "tbk__x", "tbk_id_", "Bearer tbk_a_b",
		"tbk_" + strings.Repeat("a", 300) + "_b", " tbk_abc_def ", "tbk_a\x00_b", "", "tbk_é_x"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, key string) {
		id, secret, ok := parseKey(key)
		if !ok {
			if id != "" || secret != "" {
				t.Fatalf("refused %q but returned %q, %q", key, id, secret)
			}
			return
		}
		trimmed := strings.TrimSpace(key)
		if trimmed != contracts.APIKeyPrefix+id+"_"+secret || len(trimmed) > maxKeyLen {
			t.Fatalf("parseKey(%q) = %q, %q", key, id, secret)
		}
		if strings.Contains(id, "_") || !kernel.PlausibleID(id) || secret == "" {
			t.Fatalf("parseKey(%q) accepted id %q secret %q", key, id, secret)
		}
	})
}
