package domain

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRandomIDs(t *testing.T) {
	ids := RandomIDs{}
	a, b := ids.NewID(), ids.NewID()
	if len(a) != 36 || a == b || a[14] != '7' {
		t.Errorf("NewID = %q, %q: want distinct UUIDv7", a, b)
	}
	prev := b
	for range 20000 {
		id := ids.NewID()
		if id <= prev {
			t.Fatalf("UUIDv7 ids must increase: %q after %q", id, prev)
		}
		if id[14] != '7' || !strings.ContainsRune("89ab", rune(id[19])) || strings.Count(id, "-") != 4 {
			t.Fatalf("%q is not a UUIDv7", id)
		}
		prev = id
	}
	ms, err := strconv.ParseInt(strings.ReplaceAll(a[:13], "-", ""), 16, 64)
	if err != nil || time.Since(time.UnixMilli(ms)).Abs() > time.Minute {
		t.Errorf("UUIDv7 timestamp %v (%v) is not now", time.UnixMilli(ms), err)
	}
	s := ids.Secret(64) // raised to 128 bits
	if len(s) != 22 || strings.ContainsAny(s, "+/=") {
		t.Errorf("Secret(64) = %q, want 22 base64url characters", s)
	}
	if s2 := ids.Secret(192); len(s2) != 32 {
		t.Errorf("Secret(192) = %q", s2)
	}
	now := SystemClock{}.Now()
	if now.Location() != time.UTC || now.Nanosecond()%int(time.Millisecond) != 0 {
		t.Errorf("SystemClock.Now() = %v: want UTC at millisecond precision", now)
	}
}
