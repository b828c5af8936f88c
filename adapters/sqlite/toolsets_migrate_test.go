package sqlite

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestToolsetsMigration checks that migration 00032 gives every account
// that exists when it runs every tool (toolsets ["all"]), with or without
// stored exposure settings and keeping them, while an account made after
// it has no choice (the lean default).
func TestToolsetsMigration(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, 31)
	for _, q := range []string{
		`INSERT INTO users (id, email, created_at) VALUES ('u1', 'u1@example.com', 0), ('u2', 'u2@example.com', 0)`,
		`INSERT INTO exposure_settings (user_id, read_only, disabled_tools, updated_at) VALUES ('u1', 1, '["get_stats"]', 1700000000000)`,
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.migrate(ctx); err != nil {
		t.Fatal(err)
	}
	all := []string{contracts.ToolsetsAll}
	u1, err := s.Exposure().GetExposure(ctx, "u1")
	if err != nil || !u1.ReadOnly || !slices.Equal(u1.DisabledTools, []string{"get_stats"}) || !slices.Equal(u1.Toolsets, all) || u1.UpdatedAt.UnixMilli() != 1700000000000 {
		t.Errorf("an account with settings after the migration = %+v, %v; want them kept and toolsets [all]", u1, err)
	}
	u2, err := s.Exposure().GetExposure(ctx, "u2")
	if err != nil || u2.ReadOnly || len(u2.DisabledTools) != 0 || !slices.Equal(u2.Toolsets, all) || !u2.UpdatedAt.IsZero() {
		t.Errorf("an account without settings after the migration = %+v, %v; want toolsets [all], never updated", u2, err)
	}
	if err := s.Users().CreateUser(ctx, contracts.User{ID: "u3", Email: "u3@example.com", CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	u3, err := s.Exposure().GetExposure(ctx, "u3")
	if err != nil || u3.Toolsets != nil || !slices.Equal(u3.ToolsetsOrDefault(), contracts.LeanToolsets) {
		t.Errorf("a new account after the migration = %+v, %v; want no choice (the lean default)", u3, err)
	}
}
