package identity

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// SettingsService reads and changes the settings of the learner's day.
type SettingsService struct{ *kernel.Deps }

var _ ports.SettingsService = (*SettingsService)(nil)

// Settings returns the acting user's settings (the defaults when never
// set) with today's date and bounds in the learner's day.
func (s *SettingsService) Settings(ctx context.Context) (contracts.AccountSettings, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.AccountSettings{}, err
	}
	a, _, err := kernel.AccountSettings(ctx, s.Store, uid)
	if err != nil {
		return contracts.AccountSettings{}, err
	}
	return kernel.WithToday(a, s.Now()), nil
}

// UpdateSettings validates and stores the fields given. Every field is
// checked before anything is written.
func (s *SettingsService) UpdateSettings(ctx context.Context, args contracts.UpdateSettingsArgs) (contracts.AccountSettings, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.AccountSettings{}, err
	}
	var out contracts.AccountSettings
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		var ch kernel.Changes
		var err error
		if out, err = s.UpdateSettingsIn(ctx, tx, uid, args, &ch); err != nil {
			return err
		}
		return ch.Write(ctx, tx, s.Deps)
	})
	return out, err
}

// UpdateSettingsIn applies args to the user's settings in tx, as
// update_settings does, and adds to ch a settings.update record holding
// the previous values of the fields args changed (none when nothing
// changed), keyed as update_settings' arguments. undo_changes applies a
// record's previous values through it too. Errors as UpdateSettings'.
func (s *SettingsService) UpdateSettingsIn(ctx context.Context, tx ports.Stores, uid string, args contracts.UpdateSettingsArgs, ch *kernel.Changes) (contracts.AccountSettings, error) {
	var out contracts.AccountSettings
	err := func() error {
		a, _, err := kernel.AccountSettings(ctx, tx, uid)
		if err != nil {
			return err
		}
		old := a
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
		a.UpdatedAt = s.Now()
		if err := tx.Settings().PutSettings(ctx, uid, a); err != nil {
			return kernel.Fail(err)
		}
		s.Days.Forget(uid) // the daily quota follows the new day at once
		out = kernel.WithToday(a, a.UpdatedAt)
		prev, after := map[string]any{}, map[string]any{}
		field := func(key string, before, then any) {
			if before != then {
				prev[key], after[key] = before, then
			}
		}
		field("timezone", old.Timezone, a.Timezone)
		field("rolloverHour", old.RolloverHour, a.RolloverHour)
		field("learnAheadMinutes", old.LearnAheadMinutes, a.LearnAheadMinutes)
		field("newCardsPerDay", old.NewCardsPerDay, a.NewCardsPerDay)
		field("reviewsPerDay", old.ReviewsPerDay, a.ReviewsPerDay)
		if len(prev) > 0 {
			ch.Add(contracts.ChangeSettingsUpdate, uid, a.UpdatedAt.UnixMilli(), prev, after)
		}
		return nil
	}()
	return out, err
}

// AdoptTimezone stores a timezone (the browser's, at sign-in) for an
// account that never stored settings.
func (s *SettingsService) AdoptTimezone(ctx context.Context, timezone string) (bool, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return false, err
	}
	loc, err := contracts.LoadTimezone(timezone)
	if err != nil {
		return false, err
	}
	adopted := false
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		_, found, err := tx.Settings().GetSettings(ctx, uid)
		if err != nil || found {
			return kernel.Fail(err)
		}
		a := contracts.DefaultAccountSettings()
		a.Timezone, a.UpdatedAt = loc.String(), s.Now()
		if err := tx.Settings().PutSettings(ctx, uid, a); err != nil {
			return kernel.Fail(err)
		}
		s.Days.Forget(uid)
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
