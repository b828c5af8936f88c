package kernel

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// AccountSettings returns a user's settings, the defaults when never
// stored, and the learner's day they define.
func AccountSettings(ctx context.Context, st ports.Stores, uid string) (contracts.AccountSettings, contracts.LearnerDay, error) {
	a, found, err := st.Settings().GetSettings(ctx, uid)
	if err != nil {
		return a, contracts.LearnerDay{}, Fail(err)
	}
	if !found {
		a = contracts.DefaultAccountSettings()
	}
	return a, contracts.NewLearnerDay(a), nil
}

// LearnerDay returns the learner's day of a user.
func LearnerDay(ctx context.Context, st ports.Stores, uid string) (contracts.LearnerDay, error) {
	_, d, err := AccountSettings(ctx, st, uid)
	return d, err
}

// WithToday fills in the learner's current date and its bounds.
func WithToday(a contracts.AccountSettings, now time.Time) contracts.AccountSettings {
	d := contracts.NewLearnerDay(a)
	a.Today = d.DateString(now)
	a.DayStartsAt = d.Start(now)
	a.NextDayAt = d.Next(now)
	return a
}

// DayNumber is the learner's date of t in days since 1970-01-01.
func DayNumber(day contracts.LearnerDay, t time.Time) int {
	return int(day.Date(t).Unix() / 86400)
}
