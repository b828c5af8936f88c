package auth

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// Seal encrypts plaintext for this service to read back a moment later
// from a cookie (a new key's secret between a form's POST and the page it
// redirects to): AES-256-GCM under a key derived from the server key for
// purpose, bound to aad (the web session it belongs to), so every instance
// sharing the server key can open it and nobody else can read or move it.
func (a *Authenticator) Seal(purpose string, plaintext, aad []byte) string {
	aead := a.sealer(purpose)
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails (Go 1.24)
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, plaintext, aad))
}

// Open returns what Seal sealed for purpose and aad; false when sealed was
// not made by Seal with both, or was changed.
func (a *Authenticator) Open(purpose, sealed string, aad []byte) ([]byte, bool) {
	b, err := base64.RawURLEncoding.DecodeString(sealed)
	aead := a.sealer(purpose)
	if err != nil || len(b) < aead.NonceSize() {
		return nil, false
	}
	out, err := aead.Open(nil, b[:aead.NonceSize()], b[aead.NonceSize():], aad)
	return out, err == nil
}

// sealer is the AEAD of purpose: its key is the HMAC-SHA-256 of
// "seal:"+purpose under the server key.
func (a *Authenticator) sealer(purpose string) cipher.AEAD {
	m := hmac.New(sha256.New, a.cfg.CSRFKey)
	m.Write([]byte("seal:" + purpose))
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return aead
}
