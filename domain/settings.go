package domain

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// SettingsService reads and changes the settings of the learner's day.
type SettingsService struct{ *deps }

var _ ports.SettingsService = (*SettingsService)(nil)

// Settings returns the acting user's settings (the defaults when never
// set) with today's date and bounds in the learner's day.
func (s *SettingsService) Settings(ctx context.Context) (contracts.AccountSettings, error) {
	uid, err := userID(ctx)
	if err != nil {
		return contracts.AccountSettings{}, err
	}
	a, _, err := accountSettings(ctx, s.store, uid)
	if err != nil {
		return contracts.AccountSettings{}, err
	}
	return withToday(a, s.now()), nil
}

// UpdateSettings validates and stores the fields given. Every field is
// checked before anything is written.
func (s *SettingsService) UpdateSettings(ctx context.Context, args contracts.UpdateSettingsArgs) (contracts.AccountSettings, error) {
	uid, err := userID(ctx)
	if err != nil {
		return contracts.AccountSettings{}, err
	}
	var out contracts.AccountSettings
	err = s.store.InTx(ctx, func(tx ports.Stores) error {
		a, _, err := accountSettings(ctx, tx, uid)
		if err != nil {
			return err
		}
		if args.Timezone != nil {
			loc, err := contracts.LoadTimezone(*args.Timezone)
			if err != nil {
				return err
			}
			a.Timezone = loc.String()
		}
		if err := setRange(&a.RolloverHour, args.RolloverHour, "rolloverHour", 0, 23); err != nil {
			return err
		}
		if err := setRange(&a.LearnAheadMinutes, args.LearnAheadMinutes, "learnAheadMinutes", 0, contracts.MaxLearnAheadMinutes); err != nil {
			return err
		}
		if err := setRange(&a.NewCardsPerDay, args.NewCardsPerDay, "newCardsPerDay", 0, contracts.MaxAccountDailyLimit); err != nil {
			return err
		}
		if err := setRange(&a.ReviewsPerDay, args.ReviewsPerDay, "reviewsPerDay", 0, contracts.MaxAccountDailyLimit); err != nil {
			return err
		}
		a.UpdatedAt = s.now()
		if err := tx.Settings().PutSettings(ctx, uid, a); err != nil {
			return fail(err)
		}
		s.days.forget(uid) // the daily quota follows the new day at once
		out = withToday(a, a.UpdatedAt)
		return nil
	})
	return out, err
}

// AdoptTimezone stores a timezone (the browser's, at sign-in) for an
// account that never stored settings.
func (s *SettingsService) AdoptTimezone(ctx context.Context, timezone string) (bool, error) {
	uid, err := userID(ctx)
	if err != nil {
		return false, err
	}
	loc, err := contracts.LoadTimezone(timezone)
	if err != nil {
		return false, err
	}
	adopted := false
	err = s.store.InTx(ctx, func(tx ports.Stores) error {
		_, found, err := tx.Settings().GetSettings(ctx, uid)
		if err != nil || found {
			return fail(err)
		}
		a := contracts.DefaultAccountSettings()
		a.Timezone, a.UpdatedAt = loc.String(), s.now()
		if err := tx.Settings().PutSettings(ctx, uid, a); err != nil {
			return fail(err)
		}
		s.days.forget(uid)
		adopted = true
		return nil
	})
	return adopted, err
}

func setRange(dst *int, v *int, name string, lo, hi int) error {
	if v == nil {
		return nil
	}
	if *v < lo || *v > hi {
		return contracts.Errorf(contracts.KindInvalid, "%s must be %d-%d, got %d", name, lo, hi, *v)
	}
	*dst = *v
	return nil
}

// accountSettings returns a user's settings, the defaults when never
// stored, and the learner's day they define.
func accountSettings(ctx context.Context, st ports.Stores, uid string) (contracts.AccountSettings, contracts.LearnerDay, error) {
	a, found, err := st.Settings().GetSettings(ctx, uid)
	if err != nil {
		return a, contracts.LearnerDay{}, fail(err)
	}
	if !found {
		a = contracts.DefaultAccountSettings()
	}
	return a, contracts.NewLearnerDay(a), nil
}

// learnerDay returns the learner's day of a user.
func learnerDay(ctx context.Context, st ports.Stores, uid string) (contracts.LearnerDay, error) {
	_, d, err := accountSettings(ctx, st, uid)
	return d, err
}

// withToday fills in the learner's current date and its bounds.
func withToday(a contracts.AccountSettings, now time.Time) contracts.AccountSettings {
	d := contracts.NewLearnerDay(a)
	a.Today = d.DateString(now)
	a.DayStartsAt = d.Start(now)
	a.NextDayAt = d.Next(now)
	return a
}
