package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/apiserver"
)

// limitFlag is one limit's flag: its text, parsed by limits.
type limitFlag struct {
	name string
	v    *string
}

// limitSet are the limits' flags.
type limitSet []limitFlag

// limitFlags declares the flags of the limits, each with its environment
// fallback; empty means the default and a negative number no limit.
func limitFlags(c *common) limitSet {
	decl := func(name, env, usage string) limitFlag {
		return limitFlag{name: name, v: c.str(name, env, "", usage)}
	}
	return limitSet{
		decl("rate-limit", "TAKHTABUSH_RATE_LIMIT", fmt.Sprintf("requests a second per credential on /mcp and /api/, per instance (default %d; -1: none)", apiserver.DefaultRatePerSecond)),
		decl("rate-burst", "TAKHTABUSH_RATE_BURST", fmt.Sprintf("requests a credential may make at once above the rate (default %d)", apiserver.DefaultBurst)),
		decl("max-concurrent", "TAKHTABUSH_MAX_CONCURRENT", fmt.Sprintf("requests in flight per credential, per instance (default %d; -1: none)", apiserver.DefaultConcurrent)),
		decl("account-rate-limit", "TAKHTABUSH_ACCOUNT_RATE_LIMIT", fmt.Sprintf("requests a second of all of one account's credentials together, per instance (default %d; -1: none)", apiserver.DefaultAccountRatePerSecond)),
		decl("account-rate-burst", "TAKHTABUSH_ACCOUNT_RATE_BURST", fmt.Sprintf("requests an account may make at once above its rate (default %d)", apiserver.DefaultAccountBurst)),
		decl("account-max-concurrent", "TAKHTABUSH_ACCOUNT_MAX_CONCURRENT", fmt.Sprintf("requests in flight per account, per instance (default %d; -1: none)", apiserver.DefaultAccountConcurrent)),
		decl("daily-writes", "TAKHTABUSH_DAILY_WRITES", "cards added, reviews and uploads per account per learner's day (default 100000; -1: none)"),
		decl("max-cards", "TAKHTABUSH_MAX_CARDS", "cards per account, imports included (default 1000000; -1: none)"),
		decl("max-decks", "TAKHTABUSH_MAX_DECKS", "decks per account (default 10000; -1: none)"),
		decl("max-keys", "TAKHTABUSH_MAX_KEYS", "live API keys per account (default 50; -1: none)"),
	}
}

// limits parses the limits' flags.
func (s limitSet) limits() (apiserver.Limits, error) {
	var l apiserver.Limits
	ints := map[string]*int{"rate-burst": &l.Burst, "max-concurrent": &l.Concurrent, "daily-writes": &l.DailyWrites,
		"max-cards": &l.MaxCards, "max-decks": &l.MaxDecks, "max-keys": &l.MaxKeys,
		"account-rate-burst": &l.AccountBurst, "account-max-concurrent": &l.AccountConcurrent}
	rates := map[string]*float64{"rate-limit": &l.RatePerSecond, "account-rate-limit": &l.AccountRatePerSecond}
	for _, f := range s {
		text := strings.TrimSpace(*f.v)
		if text == "" {
			continue
		}
		if r, ok := rates[f.name]; ok {
			v, err := strconv.ParseFloat(text, 64)
			if err != nil || v == 0 {
				return l, fmt.Errorf("--%s %q is not a number of requests a second (or -1 for none)", f.name, text)
			}
			*r = v
			continue
		}
		v, err := strconv.Atoi(text)
		if err != nil || v == 0 || (strings.HasSuffix(f.name, "rate-burst") && v < 0) {
			return l, fmt.Errorf("--%s %q is not a positive whole number (or -1 for none)", f.name, text)
		}
		*ints[f.name] = v
	}
	return l, nil
}
