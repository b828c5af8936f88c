package domain_test

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

func TestSettings(t *testing.T) { eachStore(t, testSettings) }

func testSettings(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	other := e.user("bob@example.com")

	// A new account is on UTC with the day rolling over at 04:00.
	e.clock.Set(time.Date(2026, 3, 10, 2, 30, 0, 0, time.UTC))
	s, err := e.svc.Settings.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Timezone != "UTC" || s.RolloverHour != 4 || s.LearnAheadMinutes != 20 || s.NewCardsPerDay != 0 || s.ReviewsPerDay != 0 {
		t.Errorf("default settings = %+v", s)
	}
	if s.Today != "2026-03-09" || !s.DayStartsAt.Equal(time.Date(2026, 3, 9, 4, 0, 0, 0, time.UTC)) ||
		!s.NextDayAt.Equal(time.Date(2026, 3, 10, 4, 0, 0, 0, time.UTC)) {
		t.Errorf("02:30Z with rollover 4 is %s [%v, %v), want 2026-03-09 [04:00Z, next 04:00Z)", s.Today, s.DayStartsAt, s.NextDayAt)
	}

	// Updating changes only the fields given.
	s, err = e.svc.Settings.UpdateSettings(ctx, contracts.UpdateSettingsArgs{Timezone: ptr("Asia/Kolkata"), RolloverHour: ptr(0)})
	if err != nil {
		t.Fatal(err)
	}
	// 02:30Z is 08:00 in Kolkata (UTC+5:30): the 10th started at 18:30Z on the 9th.
	if s.Timezone != "Asia/Kolkata" || s.RolloverHour != 0 || s.LearnAheadMinutes != 20 || s.Today != "2026-03-10" ||
		!s.DayStartsAt.Equal(time.Date(2026, 3, 9, 18, 30, 0, 0, time.UTC)) || !s.UpdatedAt.Equal(e.clock.Now()) {
		t.Errorf("after update: %+v", s)
	}
	s, err = e.svc.Settings.UpdateSettings(ctx, contracts.UpdateSettingsArgs{LearnAheadMinutes: ptr(0), NewCardsPerDay: ptr(30)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Timezone != "Asia/Kolkata" || s.LearnAheadMinutes != 0 || s.NewCardsPerDay != 30 {
		t.Errorf("second update: %+v", s)
	}

	// Bad values are refused and change nothing, not even the valid fields beside them.
	for _, bad := range []contracts.UpdateSettingsArgs{
		{Timezone: ptr("Mars/Olympus_Mons"), RolloverHour: ptr(5)},
		{Timezone: ptr("Local")},
		{Timezone: ptr("")},
		{Timezone: ptr("../../etc/passwd")},
		{RolloverHour: ptr(24)},
		{RolloverHour: ptr(-1)},
		{LearnAheadMinutes: ptr(1441)},
		{ReviewsPerDay: ptr(-3)},
	} {
		_, err := e.svc.Settings.UpdateSettings(ctx, bad)
		wantKind(t, err, contracts.KindInvalid)
	}
	s, _ = e.svc.Settings.Settings(ctx)
	if s.Timezone != "Asia/Kolkata" || s.RolloverHour != 0 || s.NewCardsPerDay != 30 {
		t.Errorf("after refused updates: %+v", s)
	}

	// Another account is untouched; adopting a browser timezone works once.
	o, _ := e.svc.Settings.Settings(other)
	if o.Timezone != "UTC" {
		t.Errorf("other account's timezone = %s", o.Timezone)
	}
	adopted, err := e.svc.Settings.AdoptTimezone(other, "Pacific/Honolulu")
	if err != nil || !adopted {
		t.Fatalf("AdoptTimezone on a fresh account = %v, %v", adopted, err)
	}
	adopted, err = e.svc.Settings.AdoptTimezone(other, "Europe/Paris")
	if err != nil || adopted {
		t.Fatalf("AdoptTimezone the second time = %v, %v; want false", adopted, err)
	}
	o, _ = e.svc.Settings.Settings(other)
	if o.Timezone != "Pacific/Honolulu" || o.RolloverHour != 4 {
		t.Errorf("adopted settings = %+v", o)
	}
	_, err = e.svc.Settings.AdoptTimezone(other, "Nowhere/Land")
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Settings.Settings(t.Context())
	wantKind(t, err, contracts.KindUnauthenticated)
}

// TestLearnerDay checks the day arithmetic across timezones, a DST change
// and the date line.
func TestLearnerDay(t *testing.T) {
	day := func(tz string, h int) contracts.LearnerDay {
		return contracts.NewLearnerDay(contracts.AccountSettings{Timezone: tz, RolloverHour: h})
	}
	cases := []struct {
		tz        string
		rollover  int
		at        time.Time
		date      string
		start     time.Time
		next      time.Time
		dayLength time.Duration
	}{
		// Honolulu, UTC-10: 09:00Z is 23:00 the day before.
		{"Pacific/Honolulu", 4, time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC), "2026-03-09",
			time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC), time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC), 24 * time.Hour},
		// Kolkata, UTC+5:30: 22:00Z is 03:30 the next day, before rollover.
		{"Asia/Kolkata", 4, time.Date(2026, 3, 10, 22, 0, 0, 0, time.UTC), "2026-03-10",
			time.Date(2026, 3, 9, 22, 30, 0, 0, time.UTC), time.Date(2026, 3, 10, 22, 30, 0, 0, time.UTC), 24 * time.Hour},
		// Kiritimati, UTC+14: 12:00Z on the 10th is 02:00 on the 11th, before rollover: still the 10th.
		{"Pacific/Kiritimati", 4, time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC), "2026-03-10",
			time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC), time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC), 24 * time.Hour},
		// New York springs forward on 2026-03-08 at 02:00: that learner day (from 04:00 EDT) follows a 23-hour one.
		{"America/New_York", 4, time.Date(2026, 3, 8, 12, 0, 0, 0, time.UTC), "2026-03-08",
			time.Date(2026, 3, 8, 8, 0, 0, 0, time.UTC), time.Date(2026, 3, 9, 8, 0, 0, 0, time.UTC), 24 * time.Hour},
		{"America/New_York", 4, time.Date(2026, 3, 7, 12, 0, 0, 0, time.UTC), "2026-03-07",
			time.Date(2026, 3, 7, 9, 0, 0, 0, time.UTC), time.Date(2026, 3, 8, 8, 0, 0, 0, time.UTC), 23 * time.Hour},
		// Falls back on 2026-11-01: a 25-hour day.
		{"America/New_York", 4, time.Date(2026, 10, 31, 12, 0, 0, 0, time.UTC), "2026-10-31",
			time.Date(2026, 10, 31, 8, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC), 25 * time.Hour},
		// UTC with rollover 0 is the plain UTC date.
		{"UTC", 0, time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), "2026-03-10",
			time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC), 24 * time.Hour},
	}
	for _, c := range cases {
		d := day(c.tz, c.rollover)
		if got := d.DateString(c.at); got != c.date {
			t.Errorf("%s %v: date %s, want %s", c.tz, c.at, got, c.date)
		}
		if got := d.Start(c.at); !got.Equal(c.start) {
			t.Errorf("%s %v: start %v, want %v", c.tz, c.at, got, c.start)
		}
		if got := d.Next(c.at); !got.Equal(c.next) {
			t.Errorf("%s %v: next %v, want %v", c.tz, c.at, got, c.next)
		}
		if got := d.Next(c.at).Sub(d.Start(c.at)); got != c.dayLength {
			t.Errorf("%s %v: day lasts %v, want %v", c.tz, c.at, got, c.dayLength)
		}
		if got := d.DaysBetween(d.Start(c.at), d.Next(c.at)); got != 1 {
			t.Errorf("%s: DaysBetween(start, next) = %d", c.tz, got)
		}
	}
	// Two reviews ten minutes apart across 00:00Z are on one New York day.
	ny := day("America/New_York", 4)
	if n := ny.DaysBetween(time.Date(2026, 3, 10, 23, 55, 0, 0, time.UTC), time.Date(2026, 3, 11, 0, 5, 0, 0, time.UTC)); n != 0 {
		t.Errorf("23:55Z to 00:05Z in New York crosses %d days, want 0", n)
	}
}
