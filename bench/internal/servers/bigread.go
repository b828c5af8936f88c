package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/takhtabush/takhtabush/adapters/sqlcount"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// BigCardsEnv names the environment variable through which the bigread
// harness tells its child how many cards to seed (default BigCards).
const BigCardsEnv = "BIGREAD_CARDS"

// BigCards is the big account's default size (issue 12 §3).
const BigCards = 100_000

// BigDecks is the number of decks the big account's cards are spread over.
const BigDecks = 5

// BigRead is the real apiserver, as in FullStack, with one account of
// many cards (BigCardsEnv, default 100,000) in five decks with a review
// history, seeded through the store's bulk staging path; it answers the
// read tools (scenario.BigRead). It is run by cmd/bigread, not by
// mcpbench.
type BigRead struct {
	// Postgres runs it on Postgres (TAKHTABUSH_TEST_POSTGRES_URL).
	Postgres bool
}

// Name implements Server.
func (b BigRead) Name() string {
	if b.Postgres {
		return "bigread-pg"
	}
	return "bigread"
}

// Description implements Server.
func (b BigRead) Description() string {
	where := "SQLite in a temp dir"
	if b.Postgres {
		where = "a fresh Postgres database (direct connection)"
	}
	return "the takhtabush apiserver (App.Handler) on " + where + ", one account of " +
		strconv.Itoa(bigCards()) + " cards in five decks with a review history, over HTTP with a Bearer key of every scope"
}

// Unavailable implements Optional.
func (b BigRead) Unavailable() string { return postgresUnavailable(b.Postgres) }

// Scenarios implements Server.
func (b BigRead) Scenarios() []scenario.Scenario { return scenario.BigRead() }

// bigCards is the account size the environment asks for.
func bigCards() int {
	if n, err := strconv.Atoi(os.Getenv(BigCardsEnv)); err == nil && n >= BigDecks {
		return n
	}
	return BigCards
}

// Start implements Server: it opens the service on a new database and
// seeds the account (seedBig).
func (b BigRead) Start(ctx context.Context, _ Options) (*Instance, error) {
	db, err := newBenchDB(ctx, b.Postgres)
	if err != nil {
		return nil, err
	}
	var counter sqlcount.Counter
	app, err := db.app(ctx, &counter)
	if err != nil {
		return nil, errors.Join(err, db.close())
	}
	closers := []func() error{app.Close, db.close}
	closeAll := func() error {
		var errs []error
		for _, c := range closers {
			errs = append(errs, c())
		}
		return errors.Join(errs...)
	}
	data, key, err := seedBig(ctx, app, db, bigCards())
	if err != nil {
		return nil, errors.Join(fmt.Errorf("seeding: %w", err), closeAll())
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, errors.Join(err, closeAll())
	}
	setup := map[string]Setup{}
	for _, sc := range scenario.BigRead() {
		setup[sc.Name] = Setup{Data: raw}
	}
	in := &Instance{
		Handler:    app.Handler(),
		Header:     bearer(key),
		Setup:      setup,
		Statements: func() int64 { return counter.Read().Statements },
	}
	if b.Postgres {
		pg, err := newBackendCPU(ctx, db)
		if err != nil {
			return nil, errors.Join(err, closeAll())
		}
		closers = []func() error{app.Close, pg.close, db.close}
		in.DBCPU = pg.read
	}
	in.Close = closeAll
	return in, nil
}
