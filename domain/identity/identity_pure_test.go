package identity

import (
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

func TestCleanEmail(t *testing.T) {
	if e, err := cleanEmail("  Ada@Example.COM "); err != nil || e != "ada@example.com" {
		t.Errorf("cleanEmail = %q, %v", e, err)
	}
	if e, err := cleanEmail("Owner@LocalHost"); err != nil || e != "owner@localhost" {
		t.Errorf("cleanEmail(owner@localhost) = %q, %v", e, err)
	}
	for _, bad := range []string{"", "ada", "ada@", "@example.com", "Ada <ada@example.com>", "ada@intranet", "a b@example.com", strings.Repeat("a", 250) + "@example.com"} {
		if _, err := cleanEmail(bad); !contracts.IsKind(err, contracts.KindInvalid) {
			t.Errorf("cleanEmail(%q) = %v, want invalid", bad, err)
		}
	}
}

func TestParseKey(t *testing.T) {
	id, secret, ok := parseKey("tbk_0192f0a4-7b1c-7cc3-9a1e-3c5d2b1e4f00_ab_c-d")
	if !ok || id != "0192f0a4-7b1c-7cc3-9a1e-3c5d2b1e4f00" || secret != "ab_c-d" {
		t.Errorf("parseKey = %q %q %v", id, secret, ok)
	}
	for _, bad := range []string{"", "tbk_", "tbk_id", "tbk__secret", "xyz_id_secret", "tbk_id_", "tbk_" + strings.Repeat("x", 300) + "_s"} {
		if _, _, ok := parseKey(bad); ok {
			t.Errorf("parseKey(%q) accepted", bad)
		}
	}
}
