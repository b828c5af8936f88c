package contracts

import (
	"sync"
	"time"
	_ "time/tzdata" // timezones work on machines without a zoneinfo database
)

// Account settings limits and defaults.
const (
	// DefaultTimezone is the timezone of an account that never set one.
	DefaultTimezone = "UTC"
	// DefaultRolloverHour is the hour a learner's day starts (as Anki).
	DefaultRolloverHour = 4
	// DefaultLearnAheadMinutes is how far ahead of its due time a learning
	// step may be shown when nothing else is left to study (as Anki).
	DefaultLearnAheadMinutes = 20
	// MaxLearnAheadMinutes bounds the learn-ahead limit (a day).
	MaxLearnAheadMinutes = 1440
	// MaxTimezoneLen bounds an IANA timezone name.
	MaxTimezoneLen = 64
	// MaxAccountDailyLimit bounds the account-wide daily caps.
	MaxAccountDailyLimit = 100000
)

// AccountSettings are the settings of the learner's day: the timezone and
// hour at which their day rolls over, the learn-ahead limit, and optional
// account-wide daily caps across every deck (0 means no account-wide cap;
// each deck's own limits still apply).
type AccountSettings struct {
	Timezone          string `json:"timezone"`          // IANA name, e.g. "America/New_York"
	RolloverHour      int    `json:"rolloverHour"`      // 0–23, local hour the day starts
	LearnAheadMinutes int    `json:"learnAheadMinutes"` // 0–1440
	NewCardsPerDay    int    `json:"newCardsPerDay"`    // account-wide cap, 0 = none
	ReviewsPerDay     int    `json:"reviewsPerDay"`     // account-wide cap, 0 = none
	// Today is the learner's current day (YYYY-MM-DD); DayStartsAt and
	// NextDayAt bound it. Computed when read, never stored.
	Today       string    `json:"today,omitempty"`
	DayStartsAt time.Time `json:"dayStartsAt,omitzero"`
	NextDayAt   time.Time `json:"nextDayAt,omitzero"`
	UpdatedAt   time.Time `json:"updatedAt,omitzero"`
}

// DefaultAccountSettings returns the settings of an account that never
// changed them.
func DefaultAccountSettings() AccountSettings {
	return AccountSettings{Timezone: DefaultTimezone, RolloverHour: DefaultRolloverHour, LearnAheadMinutes: DefaultLearnAheadMinutes}
}

// GetSettingsArgs are get_settings' arguments (none).
type GetSettingsArgs struct{}

// UpdateSettingsArgs are update_settings' arguments; absent fields stay as
// they are.
type UpdateSettingsArgs struct {
	Timezone          *string `json:"timezone,omitempty"`
	RolloverHour      *int    `json:"rolloverHour,omitempty"`
	LearnAheadMinutes *int    `json:"learnAheadMinutes,omitempty"`
	NewCardsPerDay    *int    `json:"newCardsPerDay,omitempty"`
	ReviewsPerDay     *int    `json:"reviewsPerDay,omitempty"`
}

// LearnerDay is how a learner's days are cut: a day starts at RolloverHour
// local time in Location and ends at the next day's start (23 or 25 hours
// across a DST change). The zero value is the UTC day starting at midnight.
type LearnerDay struct {
	Location     *time.Location
	RolloverHour int
}

// NewLearnerDay returns the day of an account's settings. An unknown
// timezone falls back to UTC (settings are validated when stored).
func NewLearnerDay(s AccountSettings) LearnerDay {
	loc, err := LoadTimezone(s.Timezone)
	if err != nil {
		loc = time.UTC
	}
	h := s.RolloverHour
	if h < 0 || h > 23 {
		h = DefaultRolloverHour
	}
	return LearnerDay{Location: loc, RolloverHour: h}
}

var zones sync.Map // name → *time.Location

// LoadTimezone returns the location of an IANA timezone name, cached.
// "Local" and "" are refused: a learner's day never depends on the
// server's own timezone.
func LoadTimezone(name string) (*time.Location, error) {
	if v, ok := zones.Load(name); ok {
		return v.(*time.Location), nil
	}
	if name == "" || name == "Local" || len(name) > MaxTimezoneLen {
		return nil, Errorf(KindInvalid, "timezone must be an IANA name like \"Europe/Berlin\" or \"UTC\", got %q", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, Errorf(KindInvalid, "unknown timezone %q; use an IANA name like \"America/New_York\" or \"UTC\"", name)
	}
	zones.Store(name, loc)
	return loc, nil
}

func (d LearnerDay) loc() *time.Location {
	if d.Location == nil {
		return time.UTC
	}
	return d.Location
}

// Date returns the learner's date of t: the local date, minus one day
// before the rollover hour. The result is midnight UTC of that date, a
// plain calendar date usable for arithmetic and formatting.
func (d LearnerDay) Date(t time.Time) time.Time {
	l := t.In(d.loc())
	y, m, dd := l.Date()
	if l.Hour() < d.RolloverHour {
		dd--
	}
	return time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)
}

// StartOfDate returns the instant the learner's day of the calendar date
// (any time of day, read in UTC) starts.
func (d LearnerDay) StartOfDate(date time.Time) time.Time {
	y, m, dd := date.UTC().Date()
	return time.Date(y, m, dd, d.RolloverHour, 0, 0, 0, d.loc()).UTC()
}

// Start returns the instant the learner's day holding t started.
func (d LearnerDay) Start(t time.Time) time.Time { return d.StartOfDate(d.Date(t)) }

// Next returns the instant the learner's day after the one holding t starts.
func (d LearnerDay) Next(t time.Time) time.Time { return d.StartOfDate(d.Date(t).AddDate(0, 0, 1)) }

// DaysBetween counts the learner's day boundaries crossed from a to b
// (negative when b is before a).
func (d LearnerDay) DaysBetween(a, b time.Time) int {
	// Dates are UTC midnights: their difference is whole days.
	return int(d.Date(b).Sub(d.Date(a)) / (24 * time.Hour))
}

// DateString returns the learner's date of t as YYYY-MM-DD.
func (d LearnerDay) DateString(t time.Time) string { return d.Date(t).Format(time.DateOnly) }
