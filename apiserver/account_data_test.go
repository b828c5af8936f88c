package apiserver_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // reads the SQLite file the service wrote

	"github.com/takhtabush/takhtabush/contracts"
)

// openRaw opens the service's database directly, to look at every table.
func openRaw(t *testing.T, dbURL string) (*sql.DB, string) {
	t.Helper()
	driver, dsn := "postgres", dbURL
	if path, ok := strings.CutPrefix(dbURL, "sqlite:"); ok {
		driver, dsn = "sqlite", path
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, driver
}

// userTables lists the tables with a user_id column.
func userTables(t *testing.T, db *sql.DB, driver string) []string {
	t.Helper()
	q := `SELECT table_name FROM information_schema.columns WHERE column_name = 'user_id' AND table_schema = current_schema()`
	if driver == "sqlite" {
		q = `SELECT m.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' AND p.name = 'user_id'`
	}
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		out = append(out, name)
	}
	return out
}

// TestDeleteAccountLeavesNoRow: deleting an account from the Your data
// page leaves no row with its user id in any table of the schema (a table
// added later is checked too), keeps the other account whole, and leaves
// one anonymous deletion record.
func TestDeleteAccountLeavesNoRow(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		seedByAgent(t, e, key)
		const other = "bob@example.com"
		if _, _, err := e.app.EnsureUser(context.Background(), other, "Bob"); err != nil {
			t.Fatal(err)
		}
		otherKey, err := e.app.CreateKey(context.Background(), other, "bob", contracts.AllScopes, 0)
		if err != nil {
			t.Fatal(err)
		}
		seedByAgent(t, e, otherKey.Secret)
		u, err := e.app.Services().Accounts.UserByEmail(context.Background(), testUser)
		if err != nil {
			t.Fatal(err)
		}
		cookies, csrf := e.signIn(t, testUser)
		db, driver := openRaw(t, dbURL)
		tables := userTables(t, db, driver)
		if len(tables) < 8 {
			t.Fatalf("found only the tables %v with a user_id column", tables)
		}
		count := func(table, userID string) int {
			var n int
			if err := db.QueryRow(`SELECT COUNT(*) FROM `+table+` WHERE user_id = $1`, userID).Scan(&n); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
			return n
		}
		if count("review_logs", u.ID) == 0 || count("mcp_audit_events", u.ID) == 0 {
			t.Fatal("the seeded account has no reviews or audit rows")
		}
		origin := http.Header{"Origin": {e.base}}

		resp, body := e.postForm(t, "/settings/data/delete", url.Values{"csrf_token": {csrf}, "confirm": {"wrong@example.com"}}, origin, cookies...)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "type your email address") {
			t.Fatalf("a wrong confirmation: %d", resp.StatusCode)
		}
		resp, _ = e.postForm(t, "/settings/data/delete", url.Values{"confirm": {testUser}}, origin, cookies...)
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("a deletion without the CSRF token: %d, want 403", resp.StatusCode)
		}
		resp, body = e.postForm(t, "/settings/data/delete", url.Values{"csrf_token": {csrf}, "confirm": {testUser}}, origin, cookies...)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Your account is deleted") {
			t.Fatalf("the deletion: %d\n%s", resp.StatusCode, body)
		}
		for _, table := range tables {
			if n := count(table, u.ID); n != 0 {
				t.Errorf("%s still holds %d rows of the deleted account", table, n)
			}
		}
		var users, deletions int
		if err := db.QueryRow(`SELECT COUNT(*) FROM users WHERE id = $1`, u.ID).Scan(&users); err != nil || users != 0 {
			t.Errorf("the user row: %d, %v", users, err)
		}
		if err := db.QueryRow(`SELECT COUNT(*) FROM account_deletions`).Scan(&deletions); err != nil || deletions != 1 {
			t.Errorf("deletion records: %d, %v", deletions, err)
		}
		ob, err := e.app.Services().Accounts.UserByEmail(context.Background(), other)
		if err != nil {
			t.Fatal(err)
		}
		if count("review_logs", ob.ID) != 3 || count("mcp_audit_events", ob.ID) != 6 || count("api_keys", ob.ID) != 1 {
			t.Errorf("the other account lost rows: %d reviews, %d audit, %d keys",
				count("review_logs", ob.ID), count("mcp_audit_events", ob.ID), count("api_keys", ob.ID))
		}
		if resp, _ := e.request(t, http.MethodGet, "/api/me", nil, nil, cookies...); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("the deleted account's session still answers: %d", resp.StatusCode)
		}
	})
}
