package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

func testSettings(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	st := f.s.Settings()
	got, found, err := st.GetSettings(f.ctx, a)
	must(t, err)
	if found || got != (contracts.AccountSettings{}) {
		t.Errorf("GetSettings before any Put = %+v, %v; want the zero value, false", got, found)
	}
	first := contracts.AccountSettings{Timezone: "Pacific/Kiritimati", RolloverHour: 0, LearnAheadMinutes: 35,
		NewCardsPerDay: 40, ReviewsPerDay: 500, UpdatedAt: f.now}
	must(t, st.PutSettings(f.ctx, a, first))
	got, found, err = st.GetSettings(f.ctx, a)
	must(t, err)
	if !found || got.Timezone != first.Timezone || got.RolloverHour != 0 || got.LearnAheadMinutes != 35 ||
		got.NewCardsPerDay != 40 || got.ReviewsPerDay != 500 || !got.UpdatedAt.Equal(first.UpdatedAt) {
		t.Errorf("GetSettings = %+v, %v; want %+v, true", got, found, first)
	}
	second := contracts.AccountSettings{Timezone: "Asia/Kolkata", RolloverHour: 23, LearnAheadMinutes: 0, UpdatedAt: f.now.Add(time.Hour)}
	must(t, st.PutSettings(f.ctx, a, second))
	got, _, err = st.GetSettings(f.ctx, a)
	must(t, err)
	if got.Timezone != "Asia/Kolkata" || got.RolloverHour != 23 || got.LearnAheadMinutes != 0 || got.NewCardsPerDay != 0 ||
		got.ReviewsPerDay != 0 || !got.UpdatedAt.Equal(second.UpdatedAt) {
		t.Errorf("GetSettings after a replacement = %+v, want %+v", got, second)
	}
	other, found, err := st.GetSettings(f.ctx, b)
	must(t, err)
	if found || other.Timezone != "" {
		t.Errorf("another user's settings = %+v, %v; want none", other, found)
	}
	wantKind(t, st.PutSettings(f.ctx, "usr-missing", second), contracts.KindNotFound, "PutSettings for an unknown user")
	// Inside a transaction that rolls back, nothing is kept.
	_ = f.s.InTx(f.ctx, func(tx ports.Stores) error {
		must(t, tx.Settings().PutSettings(f.ctx, b, first))
		return errors.New("roll back")
	})
	if _, found, _ := st.GetSettings(f.ctx, b); found {
		t.Error("settings written in a rolled-back transaction were kept")
	}
	testLockDailyCaps(t, f)
}

// testLockDailyCaps: the lock orders read-modify-write transactions of one
// account, so none is lost; without settings it is a no-op.
func testLockDailyCaps(t *testing.T, f *fixture) {
	a := f.user()
	must(t, f.s.InTx(f.ctx, func(tx ports.Stores) error { return tx.Settings().LockDailyCaps(f.ctx, a) }))
	must(t, f.s.Settings().PutSettings(f.ctx, a, contracts.AccountSettings{Timezone: "UTC", RolloverHour: 4, UpdatedAt: f.now}))
	errs := race(workers, func(int) error {
		return f.s.InTx(f.ctx, func(tx ports.Stores) error {
			if err := tx.Settings().LockDailyCaps(f.ctx, a); err != nil {
				return err
			}
			cur, _, err := tx.Settings().GetSettings(f.ctx, a)
			if err != nil {
				return err
			}
			cur.NewCardsPerDay++
			return tx.Settings().PutSettings(f.ctx, a, cur)
		})
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("locked increment %d: %v", i, err)
		}
	}
	got, _, err := f.s.Settings().GetSettings(f.ctx, a)
	must(t, err)
	if got.NewCardsPerDay != workers {
		t.Errorf("after %d locked increments the count is %d; an increment was lost", workers, got.NewCardsPerDay)
	}
}
