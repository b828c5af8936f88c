package domain

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

func TestCursorRoundTripAndRejects(t *testing.T) {
	id := "0192f0a4-7b1c-7cc3-9a1e-3c5d2b1e4f00"
	c := encodeCursor(id)
	if strings.ContainsAny(c, "+/=") {
		t.Errorf("cursor %q is not base64url without padding", c)
	}
	got, err := decodeCursor(c)
	if err != nil || got != id {
		t.Errorf("decodeCursor = %q, %v", got, err)
	}
	if got, err := decodeCursor(""); err != nil || got != "" {
		t.Errorf("empty cursor = %q, %v", got, err)
	}
	for _, bad := range []string{"!!!", "a", encodeCursor("has space"), encodeCursor(strings.Repeat("x", 200)), "_w"} {
		_, err := decodeCursor(bad)
		if !contracts.IsKind(err, contracts.KindInvalid) || err.Error() != "cursor is not valid; omit it to start from the first page" {
			t.Errorf("decodeCursor(%q) = %v", bad, err)
		}
	}
}

func TestPageCutsAndLinks(t *testing.T) {
	ids := func(s []string) string { return strings.Join(s, ",") }
	p := page([]string{"a", "b", "c"}, 2, func(s string) string { return s })
	if ids(p.Items) != "a,b" || p.NextCursor != encodeCursor("b") {
		t.Errorf("page = %+v", p)
	}
	p = page([]string{"a", "b"}, 2, func(s string) string { return s })
	if ids(p.Items) != "a,b" || p.NextCursor != "" {
		t.Errorf("last page = %+v", p)
	}
	if p := page[string](nil, 2, nil); p.Items == nil {
		t.Error("empty page must have a non-nil Items")
	}
}

func TestPageLimit(t *testing.T) {
	if n, err := pageLimit(0, 50, 200); n != 50 || err != nil {
		t.Errorf("default: %d %v", n, err)
	}
	if n, err := pageLimit(200, 50, 200); n != 200 || err != nil {
		t.Errorf("max: %d %v", n, err)
	}
	for _, bad := range []int{-1, 201} {
		if _, err := pageLimit(bad, 50, 200); !contracts.IsKind(err, contracts.KindInvalid) || !strings.Contains(err.Error(), "limit must be 1-200") {
			t.Errorf("pageLimit(%d) = %v", bad, err)
		}
	}
}

func TestFormatInterval(t *testing.T) {
	cases := map[time.Duration]string{
		0:                               "now",
		20 * time.Second:                "now",
		45 * time.Second:                "1m",
		time.Minute:                     "1m",
		10 * time.Minute:                "10m",
		59 * time.Minute:                "59m",
		time.Hour:                       "1h",
		5*time.Hour + 20*time.Minute:    "5h",
		23 * time.Hour:                  "23h",
		24 * time.Hour:                  "1d",
		3 * 24 * time.Hour:              "3d",
		3*24*time.Hour + 13*time.Hour:   "4d",
		364 * 24 * time.Hour:            "364d",
		365 * 24 * time.Hour:            "1y",
		547 * 24 * time.Hour:            "1.5y",
		10 * 365 * 24 * time.Hour:       "10y",
		-5 * time.Minute:                "now",
		23*time.Hour + 45*time.Minute:   "1d",
		59*time.Minute + 45*time.Second: "1h",
	}
	for d, want := range cases {
		if got := formatInterval(d); got != want {
			t.Errorf("formatInterval(%v) = %q, want %q", d, got, want)
		}
	}
}

// The plan's recommendation fits the budget every day of the simulation
// and never exceeds what the deck allows.
func TestRecommendNew(t *testing.T) {
	set := contracts.DefaultDeckSettings().WithDefaults()
	set.NewCardsPerDay = 10
	in := SimInput{NewCards: 1000, Settings: set, Now: time.Date(2026, 5, 10, 9, 0, 0, 0, time.UTC), Days: 7, NewPerDay: 10, Mix: DefaultRatingMix, Seed: 3}
	sched := fsrs.New()
	w := workload{decks: []SimInput{in}}
	if n, err := recommendNew(w, 7, 10000, sched); err != nil || n != 10 {
		t.Errorf("a large budget: %d new cards a day, %v; want the deck's 10", n, err)
	}
	if n, err := recommendNew(w, 7, 0, sched); err != nil || n != 0 {
		t.Errorf("no budget: %d, %v; want 0", n, err)
	}
	in.Settings.NewCardsPerDay, in.NewPerDay = 200, 200
	n, err := recommendNew(workload{decks: []SimInput{in}}, 7, 40, sched)
	if err != nil || n <= 0 || n >= 40 {
		t.Fatalf("40 reviews a day: %d new cards a day, %v; want some, fewer than 40", n, err)
	}
	in.Days, in.NewPerDay = planHorizon, n
	sim, err := simulate(in, sched)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range sim {
		if d.Reviews > 40 {
			t.Errorf("%d new cards a day simulate to %.1f reviews on day %d, over the 40 that fit", n, d.Reviews, i)
		}
	}
	t.Logf("40 reviews a day fit %d new cards a day", n)
}

func TestStreakAndFillDays(t *testing.T) {
	today := time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)
	d := func(daysAgo, n int) ports.ReviewDay {
		return ports.ReviewDay{Day: today.AddDate(0, 0, -daysAgo), Reviews: n, Passed: n / 2}
	}
	if n := streak([]ports.ReviewDay{d(5, 1), d(2, 3), d(1, 1), d(0, 4)}, today); n != 3 {
		t.Errorf("streak with today = %d, want 3", n)
	}
	if n := streak([]ports.ReviewDay{d(3, 1), d(2, 3), d(1, 1)}, today); n != 3 {
		t.Errorf("streak ending yesterday = %d, want 3", n)
	}
	if n := streak([]ports.ReviewDay{d(2, 3)}, today); n != 0 {
		t.Errorf("broken streak = %d, want 0", n)
	}
	if n := streak(nil, today); n != 0 {
		t.Errorf("no history = %d", n)
	}
	days := fillDays([]ports.ReviewDay{d(9, 7), d(2, 4), d(0, 2)}, today.AddDate(0, 0, -2), 3)
	want := []contracts.DayCount{{Date: "2026-05-08", Reviews: 4, Passed: 2}, {Date: "2026-05-09"}, {Date: "2026-05-10", Reviews: 2, Passed: 1}}
	for i := range want {
		if days[i] != want[i] {
			t.Errorf("fillDays[%d] = %+v, want %+v", i, days[i], want[i])
		}
	}
}

func TestBoundSummary(t *testing.T) {
	small := json.RawMessage(`{"deckId":"d1"}`)
	if got := boundSummary(small, 2048); string(got) != string(small) {
		t.Errorf("small summary changed: %s", got)
	}
	if got := boundSummary(nil, 2048); string(got) != "{}" {
		t.Errorf("empty summary = %s", got)
	}
	big, _ := json.Marshal(map[string]string{"text": strings.Repeat("\"é<", 3000)})
	got := boundSummary(big, 2048)
	if len(got) > 2048 || !json.Valid(got) {
		t.Fatalf("bounded summary: %d bytes, valid %v", len(got), json.Valid(got))
	}
	var cut struct {
		Truncated bool
		Bytes     int
		Prefix    string
	}
	if err := json.Unmarshal(got, &cut); err != nil || !cut.Truncated || cut.Bytes != len(big) || !strings.HasPrefix(string(big), cut.Prefix) || len(cut.Prefix) < 500 {
		t.Errorf("cut = %+v (%v)", cut, err)
	}
	if got := boundSummary(json.RawMessage(`{not json`), 2048); !json.Valid(got) {
		t.Errorf("invalid JSON must be replaced: %s", got)
	}
}

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
