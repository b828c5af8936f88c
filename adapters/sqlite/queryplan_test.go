package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/sqlcount"
	"github.com/takhtabush/takhtabush/adapters/sqlite"
	"github.com/takhtabush/takhtabush/contracts"
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

// TestChangeListingsReadTheirIndexes: undo_changes' listings, newest
// first, read the change records' indexes (ascending since migration
// 00039) backwards, without sorting: everything a credential did since a
// time (leaving out undos' work, whose subquery has a plan of its own),
// and one operation's records.
func TestChangeListingsReadTheirIndexes(t *testing.T) {
	ctx := context.Background()
	var counter sqlcount.Counter
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "plan.db"), sqlite.WithCounter(&counter))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Date(2026, time.March, 10, 12, 0, 0, 0, time.UTC)
	if err := s.Users().CreateUser(ctx, contracts.User{ID: "u", Email: "u@example.com", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f     contracts.ChangeFilter
		index string
	}{
		{contracts.ChangeFilter{CredentialID: "key", Since: now.Add(-time.Hour), Pending: true, ExceptUndos: true}, "change_records_credential"},
		{contracts.ChangeFilter{OperationIDs: []string{"op"}, Pending: true}, "change_records_operation"},
	} {
		var queries []string
		counter.Trace(func(q string) { queries = append(queries, q) })
		_, err := s.Changes().ListChanges(ctx, "u", tc.f, "", 1001)
		counter.Trace(nil)
		if err != nil || len(queries) != 1 {
			t.Fatalf("ListChanges(%+v): %v, %d statements", tc.f, err, len(queries))
		}
		// The plan's values: any text, and the limit last.
		var args []any
		for strings.Contains(queries[0], fmt.Sprintf("$%d", len(args)+1)) {
			args = append(args, "x")
		}
		args[len(args)-1] = 1001
		// The outer query's steps are the plan's top level (parent 0).
		rows, err := s.DB().QueryContext(ctx, "EXPLAIN QUERY PLAN "+queries[0], args...)
		if err != nil {
			t.Fatal(err)
		}
		var top []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			if parent == 0 {
				top = append(top, detail)
			}
		}
		rows.Close()
		joined := strings.Join(top, "; ")
		if !strings.Contains(joined, "SEARCH change_records USING INDEX "+tc.index) || strings.Contains(joined, "TEMP B-TREE FOR ORDER BY") {
			t.Errorf("%s\nplan's top level: %s", queries[0], joined)
		}
	}
}
