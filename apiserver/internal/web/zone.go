package web

import (
	"context"
	"sync"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// zone is the signed-in account's timezone, loaded from its settings the
// first time a page shows a time (most pages show none).
type zone struct {
	once sync.Once
	load func() *time.Location
	loc  *time.Location
}

// newZone loads the timezone of the account ctx acts for from settings
// when first asked; UTC when it cannot (no settings service, a failed read).
func newZone(ctx context.Context, settings ports.SettingsService) *zone {
	return &zone{load: func() *time.Location {
		if settings == nil {
			return time.UTC
		}
		s, err := settings.Settings(ctx)
		if err != nil {
			return time.UTC
		}
		loc, err := contracts.LoadTimezone(s.Timezone)
		if err != nil {
			return time.UTC
		}
		return loc
	}}
}

// location returns the zone's location (UTC for a visitor).
func (z *zone) location() *time.Location {
	if z == nil {
		return time.UTC
	}
	z.once.Do(func() { z.loc = z.load() })
	return z.loc
}

// Location is the timezone the page shows times in: the signed-in
// account's (its settings), UTC for a visitor.
func (v View) Location() *time.Location { return v.zone.location() }

// When formats a time (a time.Time or *time.Time; "" for nil or zero) for
// a page in the account's timezone with the zone's abbreviation:
// "2026-12-01 23:05 JST".
func (v View) When(t any) string {
	return when(t, v.Location(), "2006-01-02 15:04 MST")
}

// Clock formats a time of today as when does, the time of day only:
// "23:05 JST".
func (v View) Clock(t any) string {
	return when(t, v.Location(), "15:04 MST")
}

// when formats t (a time.Time or *time.Time) in loc with layout; "" for
// nil, a zero time or anything else.
func when(t any, loc *time.Location, layout string) string {
	var tt time.Time
	switch x := t.(type) {
	case time.Time:
		tt = x
	case *time.Time:
		if x != nil {
			tt = *x
		}
	}
	if tt.IsZero() {
		return ""
	}
	return tt.In(loc).Format(layout)
}
