package domain

import (
	"crypto/sha256"
	"time"
)

// MaxWebTokenLen bounds a presented token before it is hashed.
const MaxWebTokenLen = 256

func TokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// OAuthPurgeGrace keeps expired codes and tokens a day before they are
// deleted, so a late replay still finds its code and revokes the grant.
const OAuthPurgeGrace = 24 * time.Hour
