package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/adapters/sqlite"
)

// TestSessionQueueQueriesUseTheSessionIndex: the queue reads of a review
// must go through the session's own rows, not every row of its owner (a
// review slowed down with every session the user ever had).
func TestSessionQueueQueriesUseTheSessionIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "plan.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", sqlite.DSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`SELECT COUNT(*) FROM study_session_items WHERE user_id = 'u' AND session_id = 's'`,
		`SELECT position FROM study_session_items WHERE user_id = 'u' AND session_id = 's' AND reviewed_at IS NULL ORDER BY position LIMIT 1`,
		`UPDATE study_session_items SET reviewed_at = 1 WHERE user_id = 'u' AND session_id = 's' AND position = 3 AND reviewed_at IS NULL`,
	} {
		joined := strings.Join(queryPlan(ctx, t, db, q), "; ")
		if strings.Contains(joined, "study_session_items_card") || !strings.Contains(joined, "session_id=?") {
			t.Errorf("%s\nplan: %s", q, joined)
		}
	}
}

// queryPlan returns the detail column of EXPLAIN QUERY PLAN of q with
// args, a step a line.
func queryPlan(ctx context.Context, t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}
