package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// serve refuses malformed limits and trusted proxies before it opens
// anything, with exit code 2 and a message naming the flag.
func TestServeRefusesBadLimits(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--rate-limit", "fast"}, nil, "--rate-limit"},
		{[]string{"--rate-limit", "0"}, nil, "--rate-limit"},
		{[]string{"--rate-burst", "-1"}, nil, "--rate-burst"},
		{[]string{"--account-rate-limit", "0"}, nil, "--account-rate-limit"},
		{[]string{"--account-rate-burst", "-1"}, nil, "--account-rate-burst"},
		{[]string{"--max-cards", "1.5"}, nil, "--max-cards"},
		{nil, map[string]string{"TAKHTABUSH_DAILY_WRITES": "lots"}, "--daily-writes"},
		{[]string{"--trusted-proxies", "10.0.0.0/8,proxy.example"}, nil, "--trusted-proxies"},
	} {
		var out, errs bytes.Buffer
		getenv := func(k string) string { return c.env[k] }
		args := append([]string{"--db", "sqlite:" + t.TempDir() + "/never.db"}, c.args...)
		code := serveCmd(context.Background(), args, stdio{in: strings.NewReader(""), out: &out, err: &errs}, getenv)
		if code != 2 || !strings.Contains(errs.String(), c.want) {
			t.Errorf("serve %v %v: exit %d, stderr %q; want 2 naming %s", c.args, c.env, code, errs.String(), c.want)
		}
	}
}

func TestLimitFlagsParse(t *testing.T) {
	var out, errs bytes.Buffer
	env := map[string]string{"TAKHTABUSH_MAX_DECKS": "50", "TAKHTABUSH_MAX_KEYS": "7"}
	c := newCommon("serve", stdio{out: &out, err: &errs}, func(k string) string { return env[k] }, "info")
	lim := limitFlags(c)
	if err := c.fs.Parse([]string{"--rate-limit", "2.5", "--rate-burst", "10", "--max-concurrent", "-1", "--daily-writes", "500", "--max-cards", "-1",
		"--account-rate-limit", "50", "--account-rate-burst", "60", "--account-max-concurrent", "8"}); err != nil {
		t.Fatal(err)
	}
	l, err := lim.limits()
	if err != nil {
		t.Fatal(err)
	}
	if l.RatePerSecond != 2.5 || l.Burst != 10 || l.Concurrent != -1 || l.DailyWrites != 500 || l.MaxCards != -1 || l.MaxDecks != 50 || l.MaxKeys != 7 ||
		l.AccountRatePerSecond != 50 || l.AccountBurst != 60 || l.AccountConcurrent != 8 {
		t.Errorf("parsed %+v", l)
	}
}
