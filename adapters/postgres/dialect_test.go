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
		{&pq.Error{Code: "08001"}, sqlstore.ClassUnavailable}, // cannot connect
		{&pq.Error{Code: "08004"}, sqlstore.ClassUnavailable}, // connection refused by the server
		{&pq.Error{Code: "53200"}, sqlstore.ClassUnavailable}, // out of memory
		{&pq.Error{Code: "55P03"}, sqlstore.ClassUnavailable}, // lock_timeout
		{&pq.Error{Code: "55006"}, sqlstore.ClassUnavailable}, // object in use
		{&pq.Error{Code: "57014"}, sqlstore.ClassUnavailable}, // statement_timeout
		{&pq.Error{Code: "57P02"}, sqlstore.ClassUnavailable}, // crash shutdown
		{&pq.Error{Code: "57P03"}, sqlstore.ClassUnavailable}, // cannot connect now (starting up)
		{&pq.Error{Code: "57P05"}, sqlstore.ClassUnavailable}, // idle session timeout
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
