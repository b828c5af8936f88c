package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"

	"github.com/takhtabush/takhtabush/apiserver"

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
type FullStack struct{}

// Name implements Server.
func (FullStack) Name() string { return "fullstack" }

// Description implements Server.
func (FullStack) Description() string {
	return "the takhtabush apiserver (App.Handler: access log, metrics, API-key auth, mcpcore, domain, audit rows) " +
		"on SQLite in a temp dir, over HTTP with a Bearer key of every scope; info-level text logs formatted and discarded"
}

// Scenarios implements Server.
func (FullStack) Scenarios() []scenario.Scenario { return scenario.FullStack() }

// Start implements Server: it opens the service on a new SQLite database,
// seeds it (see seed) and returns its public handler.
func (FullStack) Start(ctx context.Context, opts Options) (*Instance, error) {
	dir, err := os.MkdirTemp("", "mcpbench-fullstack-")
	if err != nil {
		return nil, err
	}
	app, err := apiserver.New(ctx, apiserver.Config{
		DatabaseURL: "sqlite:" + filepath.Join(dir, "takhtabush.db"),
		Secret:      "mcpbench-server-key",
		Version:     "mcpbench",
		// As `takhtabush serve` logs by default (text, info: one access
		// line per request), but into io.Discard.
		Logger: slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	closeAll := func() error { return errors.Join(app.Close(), os.RemoveAll(dir)) }
	sd, err := seed(ctx, app, opts.Calls[scenario.SubmitReview], opts.Calls[scenario.AddCards])
	if err != nil {
		return nil, errors.Join(fmt.Errorf("seeding: %w", err), closeAll())
	}
	setup, err := sd.setup()
	if err != nil {
		return nil, errors.Join(err, closeAll())
	}
	return &Instance{
		Handler: app.Handler(),
		Header:  bearer(sd.writer.key),
		Setup:   setup,
		Verify:  sd.verify,
		Close:   closeAll,
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
