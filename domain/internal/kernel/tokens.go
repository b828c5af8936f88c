package kernel

import (
	"crypto/sha256"
	"time"
)

// MaxWebTokenLen bounds a presented token before it is hashed.
const MaxWebTokenLen = 256

// TokenHash is the stored form of a web session, sign-in or upload token:
// its SHA-256, so a database dump holds no usable token.
func TokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// OAuthPurgeGrace keeps expired codes and tokens a day before they are
// deleted, so a late replay still finds its code and revokes the grant.
const OAuthPurgeGrace = 24 * time.Hour
