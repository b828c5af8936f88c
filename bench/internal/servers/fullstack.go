package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/takhtabush/takhtabush/adapters/sqlcount"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// FullStack is the whole service: the real apiserver App's public handler
// (request ids, access log, Prometheus metrics, API-key authentication,
// the mcpcore engine, the domain, the audit write) on a fresh SQLite
// database in a temporary directory. Requests carry an API key with every
// scope, minted during set-up the way `takhtabush keys create` does.
//
// It answers list_decks (compared with the engines) and two mutating
// calls, submit_review and a 10-card add_cards, each with its audit row.
type FullStack struct {
	// Postgres runs it on Postgres (TAKHTABUSH_TEST_POSTGRES_URL, a
	// direct connection) instead of SQLite.
	Postgres bool
}

// Name implements Server.
func (f FullStack) Name() string {
	if f.Postgres {
		return "fullstack-pg"
	}
	return "fullstack"
}

// Description implements Server.
func (f FullStack) Description() string {
	where := "SQLite in a temp dir"
	if f.Postgres {
		where = "a fresh Postgres database (direct connection)"
	}
	return "the takhtabush apiserver (App.Handler: access log, metrics, API-key auth, mcpcore, domain, audit rows) " +
		"on " + where + ", over HTTP with a Bearer key of every scope; info-level text logs formatted and discarded"
}

// Unavailable implements Optional.
func (f FullStack) Unavailable() string { return postgresUnavailable(f.Postgres) }

// Scenarios implements Server.
func (f FullStack) Scenarios() []scenario.Scenario { return scenario.FullStack(f.Postgres) }

// Start implements Server: it opens the service on a new database,
// seeds it (see seed) and returns its public handler.
func (f FullStack) Start(ctx context.Context, opts Options) (*Instance, error) {
	db, err := newBenchDB(ctx, f.Postgres)
	if err != nil {
		return nil, err
	}
	var counter sqlcount.Counter
	app, err := db.app(ctx, &counter)
	if err != nil {
		return nil, errors.Join(err, db.close())
	}
	closeAll := func() error { return errors.Join(app.Close(), db.close()) }
	sd, err := seed(ctx, app, opts.Calls[scenario.SubmitReview], opts.Calls[scenario.AddCards])
	if err != nil {
		return nil, errors.Join(fmt.Errorf("seeding: %w", err), closeAll())
	}
	setup, err := sd.setup()
	if err != nil {
		return nil, errors.Join(err, closeAll())
	}
	return &Instance{
		Handler:    app.Handler(),
		Header:     bearer(sd.writer.key),
		Setup:      setup,
		Verify:     sd.verify,
		Statements: func() int64 { return counter.Read().Statements },
		Close:      closeAll,
	}, nil
}

func bearer(key string) http.Header { return http.Header{"Authorization": {"Bearer " + key}} }

// setup publishes what the scenarios need: list_decks acts as the reader
// (the account holding only the 20 listed decks), the mutating calls as
// the writer (Instance.Header), with the pending reviews and the decks to
// add to.
func (sd *seeded) setup() (map[string]Setup, error) {
	study, err := json.Marshal(sd.study)
	if err != nil {
		return nil, err
	}
	add, err := json.Marshal(scenario.AddData{DeckIDs: sd.addDecks, CallsPerDeck: AddCallsPerDeck})
	if err != nil {
		return nil, err
	}
	return map[string]Setup{
		scenario.ListDecks:    {Header: bearer(sd.reader.key)},
		scenario.SubmitReview: {Data: study, Capacity: sd.study.Pairs()},
		scenario.AddCards:     {Data: add, Capacity: len(sd.addDecks) * AddCallsPerDeck},
	}, nil
}
