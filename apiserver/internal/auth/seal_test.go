package auth

import "testing"

// Sealed text opens only under the same server key, purpose and aad, and
// not once changed.
func TestSealOpen(t *testing.T) {
	a := New(Services{}, Config{BaseURL: "https://t.example", CSRFKey: []byte("0123456789abcdef0123456789abcdef")})
	other := New(Services{}, Config{BaseURL: "https://t.example", CSRFKey: []byte("another server key, 32 bytes....")})
	sealed := a.Seal("p", []byte("tbk_secret"), []byte("session\x00key"))
	if got, ok := a.Open("p", sealed, []byte("session\x00key")); !ok || string(got) != "tbk_secret" {
		t.Fatalf("Open = %q, %v", got, ok)
	}
	if a.Seal("p", []byte("tbk_secret"), nil) == a.Seal("p", []byte("tbk_secret"), nil) {
		t.Error("two seals of the same text are equal: the nonce is not fresh")
	}
	flipped := []byte(sealed)
	flipped[len(flipped)-3] ^= 1
	for name, open := range map[string]func() bool{
		"other aad":        func() bool { _, ok := a.Open("p", sealed, []byte("other\x00key")); return ok },
		"other purpose":    func() bool { _, ok := a.Open("q", sealed, []byte("session\x00key")); return ok },
		"other server key": func() bool { _, ok := other.Open("p", sealed, []byte("session\x00key")); return ok },
		"changed":          func() bool { _, ok := a.Open("p", string(flipped), []byte("session\x00key")); return ok },
		"short":            func() bool { _, ok := a.Open("p", "AAAA", nil); return ok },
		"not base64":       func() bool { _, ok := a.Open("p", "!!", nil); return ok },
	} {
		if open() {
			t.Errorf("%s: opened", name)
		}
	}
}
