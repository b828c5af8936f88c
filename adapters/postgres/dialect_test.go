package postgres

import (
	"context"
	"database/sql/driver"
	"fmt"
	"testing"

	"github.com/lib/pq"

	"github.com/takhtabush/takhtabush/adapters/sqlstore"
)

func TestMatchText(t *testing.T) {
	cond, arg, err := dialect{}.MatchText(context.Background(), nil, "$3", []string{"quick", "o'neil", "bro"})
	if err != nil {
		t.Fatal(err)
	}
	if cond != `c.search @@ to_tsquery('simple', $3)` {
		t.Errorf("cond = %s", cond)
	}
	if want := `'quick' & 'o''neil' & 'bro':*`; arg != want {
		t.Errorf("tsquery = %v, want %s", arg, want)
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		err  error
		want sqlstore.ErrorClass
	}{
		{&pq.Error{Code: "23505"}, sqlstore.ClassUnique},
		{fmt.Errorf("wrapped: %w", &pq.Error{Code: "23503"}), sqlstore.ClassForeignKey},
		{&pq.Error{Code: "40001"}, sqlstore.ClassConflict},
		{&pq.Error{Code: "40P01"}, sqlstore.ClassConflict},
		{&pq.Error{Code: "08006"}, sqlstore.ClassUnavailable},
		{&pq.Error{Code: "57P01"}, sqlstore.ClassUnavailable},
		{&pq.Error{Code: "53300"}, sqlstore.ClassUnavailable},
		{&pq.Error{Code: "42601"}, sqlstore.ClassOther},
		{driver.ErrBadConn, sqlstore.ClassUnavailable},
		{fmt.Errorf("boom"), sqlstore.ClassOther},
	}
	for _, c := range cases {
		if got := (dialect{}).Classify(c.err); got != c.want {
			t.Errorf("Classify(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
