package contracts

import (
	"bytes"
	"encoding/json"
	"time"
)

// DateOrTime is a moment as an agent or a person writes it: an RFC 3339
// date-time ("2026-12-01T09:00:00Z"), or a date ("2026-12-01") meaning
// the start of that day in the learner's day (their timezone and rollover
// hour). Tools declare it with the same schema everywhere (see the
// dateOrTime schema helper) and read it with At.
type DateOrTime struct {
	t      time.Time // the date-time, or midnight UTC of the date
	isDate bool
}

// dateOrTimeHelp is what every message about a DateOrTime says it accepts.
const dateOrTimeHelp = "a date (YYYY-MM-DD, the start of that day in your timezone) or a date-time (RFC 3339, such as 2026-12-01T09:00:00Z)"

// ParseDateOrTime parses a date or an RFC 3339 date-time. The error is
// invalid and names the accepted forms, never a Go time layout.
func ParseDateOrTime(s string) (DateOrTime, error) {
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return DateOrTime{t: d, isDate: true}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return DateOrTime{t: t}, nil
	}
	return DateOrTime{}, Errorf(KindInvalid, "%q is not %s", truncateForMessage(s), dateOrTimeHelp)
}

// IsDate reports whether it was written as a date.
func (w DateOrTime) IsDate() bool { return w.isDate }

// At returns the instant: the date-time itself, or the start of the date
// in the learner's day d.
func (w DateOrTime) At(d LearnerDay) time.Time {
	if w.isDate {
		return d.StartOfDate(w.t)
	}
	return w.t
}

// String returns the form it was written in (normalised).
func (w DateOrTime) String() string {
	if w.isDate {
		return w.t.Format(time.DateOnly)
	}
	return w.t.Format(time.RFC3339Nano)
}

// MarshalJSON writes the form it was written in.
func (w DateOrTime) MarshalJSON() ([]byte, error) { return json.Marshal(w.String()) }

// UnmarshalJSON reads a date or a date-time string.
func (w *DateOrTime) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return Errorf(KindInvalid, "expected a string: %s", dateOrTimeHelp)
	}
	v, err := ParseDateOrTime(s)
	if err != nil {
		return err
	}
	*w = v
	return nil
}

// truncateForMessage keeps an echoed input short.
func truncateForMessage(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
