package domain

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"

	"github.com/takhtabush/takhtabush/ports"
)

// SystemClock is the real clock: UTC, truncated to milliseconds.
type SystemClock struct{}

var _ ports.Clock = SystemClock{}

// Now returns the current UTC time at millisecond precision.
func (SystemClock) Now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// RandomIDs makes UUIDv7 ids and crypto/rand secrets.
//
// The UUIDv7 generator is written here on the standard library (RFC 9562
// §5.7, with the 12-bit rand_a field as a counter within one millisecond,
// so ids from one process are strictly increasing) rather than taken from
// github.com/google/uuid, whose package imports database/sql/driver, which
// the domain must not depend on.
type RandomIDs struct{}

var _ ports.IDSource = RandomIDs{}

var v7 struct {
	sync.Mutex
	ms  int64
	seq uint16
}

// NewID returns a new, time-ordered UUIDv7 string.
func (RandomIDs) NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[6:]); err != nil {
		panic("domain: crypto/rand failed: " + err.Error())
	}
	ms := time.Now().UnixMilli()
	v7.Lock()
	if ms > v7.ms {
		v7.ms, v7.seq = ms, binary.BigEndian.Uint16(b[6:8])&0x7ff // random start, room to count
	} else {
		v7.seq++
		if v7.seq > 0xfff {
			v7.ms, v7.seq = v7.ms+1, 0
		}
	}
	ms, seq := v7.ms, v7.seq
	v7.Unlock()
	b[0], b[1], b[2], b[3], b[4], b[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
	b[6] = 0x70 | byte(seq>>8) // version 7
	b[7] = byte(seq)
	b[8] = 0x80 | b[8]&0x3f // variant 10
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:], b[10:])
	return string(s[:])
}

// Secret returns max(bits, 128) bits from crypto/rand, base64url-encoded
// without padding (URL-safe: letters, digits, '-' and '_').
func (RandomIDs) Secret(bits int) string {
	bits = max(bits, 128)
	b := make([]byte, (bits+7)/8)
	if _, err := rand.Read(b); err != nil {
		panic("domain: crypto/rand failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}
