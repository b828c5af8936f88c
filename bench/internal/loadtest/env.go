package loadtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/adapters/pgbouncer"
	"github.com/takhtabush/takhtabush/adapters/postgres"
	"github.com/takhtabush/takhtabush/adapters/sqlite"
	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// secret is the server key every instance of a run shares.
const secret = "loadtest-secret-shared-by-every-instance"

// env is one configuration's running world: its database, the agents'
// accounts, pgbouncer when used, the instances and the proxy.
type env struct {
	dir      string
	dbURL    string // what the instances open
	direct   string // the database itself (seeding, counting)
	kind     string // sqlite or postgres
	dropDB   func()
	check    *sql.DB // counts rows; nil for SQLite until counted
	agents   []agentAccount
	bouncer  *pgbouncer.Bouncer
	procs    []*process
	proxy    *proxy
	endpoint string // where the agents POST: an instance or the proxy
	client   *http.Client
	window   *latencyWindow // a soak's latencies since its last sample; nil otherwise
}

// agentAccount is one agent's account, key and deck.
type agentAccount struct {
	key    string
	deckID string
}

// prepare makes the database (a fresh SQLite file or Postgres database)
// and seeds the agents' accounts in process: a user, a key with every
// scope, and a deck of new cards each.
func prepare(ctx context.Context, cfg Config, s Setup) (*env, error) {
	dir, err := os.MkdirTemp("", "takhtabush-loadtest-")
	if err != nil {
		return nil, err
	}
	e := &env{dir: dir}
	if s.DB == "sqlite" {
		e.kind = "sqlite"
		e.direct = "sqlite:" + filepath.Join(dir, "takhtabush.db")
		e.dbURL = e.direct
	} else {
		e.kind = "postgres"
		if e.direct, e.dropDB, err = freshPostgres(cfg.PostgresURL); err != nil {
			return e, err
		}
		e.dbURL = e.direct
	}
	start := time.Now()
	if err := e.seed(ctx, cfg); err != nil {
		return e, fmt.Errorf("seeding: %w", err)
	}
	cfg.logf("seeded %d accounts with %d cards each in %s", cfg.Agents, cfg.CardsPerAgent, time.Since(start).Round(time.Millisecond))
	return e, nil
}

// limits are the load test's limits, set explicitly (issue 10 §2): each
// agent has its own key and account, and stays far below them (an agent
// makes about ten calls a second), so a refusal would be a finding, not
// the test's design; the checks still run on every call.
var limits = apiserver.Limits{RatePerSecond: 1000, Burst: 2000, Concurrent: 64, DailyWrites: 10_000_000, MaxCards: 10_000_000}

// seed creates the accounts through the operator path and the domain
// services, as `takhtabush users create` and `keys create` do.
func (e *env) seed(ctx context.Context, cfg Config) error {
	app, err := apiserver.New(ctx, apiserver.Config{DatabaseURL: e.direct, Secret: secret, MediaDir: filepath.Join(e.dir, "media"), Limits: limits})
	if err != nil {
		return err
	}
	defer app.Close()
	newPerDay, reviewsPerDay := 1000, 10000
	for i := range cfg.Agents {
		email := fmt.Sprintf("agent%03d@loadtest.example", i)
		u, err := app.CreateUser(ctx, email, fmt.Sprintf("Agent %d", i))
		if err != nil {
			return err
		}
		k, err := app.CreateKey(ctx, email, "loadtest", contracts.AllScopes, 0)
		if err != nil {
			return err
		}
		actx := contracts.WithPrincipal(ctx, contracts.Principal{UserID: u.ID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialLocal})
		deck, err := app.Services().Decks.CreateDeck(actx, contracts.CreateDeckArgs{
			Name: "Load", NewCardsPerDay: &newPerDay, ReviewsPerDay: &reviewsPerDay,
		})
		if err != nil {
			return err
		}
		for from := 0; from < cfg.CardsPerAgent; from += 1000 {
			n := min(1000, cfg.CardsPerAgent-from)
			cards := make([]contracts.NewCard, n)
			for j := range cards {
				cards[j] = contracts.NewCard{Front: fmt.Sprintf("Question %d of agent %d", from+j, i), Back: fmt.Sprintf("Answer %d", from+j)}
			}
			if _, err := app.Services().Cards.AddCards(actx, contracts.AddCardsArgs{DeckID: deck.ID, Cards: cards}); err != nil {
				return err
			}
		}
		e.agents = append(e.agents, agentAccount{key: k.Secret, deckID: deck.ID})
	}
	return nil
}

// start starts pgbouncer (when the setup asks for it), the instances, and
// the round-robin proxy in front of several, and waits until every
// instance is ready.
func (e *env) start(ctx context.Context, cfg Config, s Setup) error {
	if s.DB == "pgbouncer" {
		if err := e.startBouncer(ctx, cfg.Pgbouncer); err != nil {
			return err
		}
	}
	var targets []string
	for i := range s.Instances {
		p, err := startProcess(ctx, cfg.Spawn, filepath.Join(e.dir, fmt.Sprintf("instance%d", i)), e.dbURL)
		if err != nil {
			return fmt.Errorf("instance %d: %w", i+1, err)
		}
		e.procs = append(e.procs, p)
		targets = append(targets, p.base)
	}
	e.client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.Agents + 10, MaxConnsPerHost: cfg.Agents + 10}, Timeout: 2 * time.Minute}
	e.endpoint = targets[0] + "/mcp"
	if len(targets) > 1 {
		p, err := startProxy(targets, cfg.Agents+10)
		if err != nil {
			return err
		}
		e.proxy = p
		e.endpoint = p.base + "/mcp"
	}
	return nil
}

// startBouncer starts pgbouncer in front of the run's database and points
// the instances at it, statement cache off. Session parameters do not
// survive transaction pooling, so the timeouts are set on the database
// (as OPERATIONS.md tells operators to do on the role or the database).
func (e *env) startBouncer(ctx context.Context, bin string) error {
	u, err := url.Parse(e.direct)
	if err != nil {
		return err
	}
	for _, set := range []string{"statement_timeout = '15s'", "lock_timeout = '5s'"} {
		if _, err := e.check.ExecContext(ctx, "ALTER DATABASE "+strings.TrimPrefix(u.Path, "/")+" SET "+set); err != nil {
			return fmt.Errorf("setting the database's timeouts: %w", err)
		}
	}
	b, err := pgbouncer.Start(ctx, bin, filepath.Join(e.dir, "pgbouncer"), u.Host, u.User.Username())
	if err != nil {
		return err
	}
	e.bouncer = b
	e.dbURL, err = b.URL(e.direct)
	return err
}

// close stops everything the env started and removes its files.
func (e *env) close() {
	if e.proxy != nil {
		e.proxy.close()
	}
	for _, p := range e.procs {
		p.stop()
	}
	if e.bouncer != nil {
		e.bouncer.Stop()
	}
	if e.check != nil {
		e.check.Close()
	}
	if e.dropDB != nil {
		e.dropDB()
	}
	os.RemoveAll(e.dir)
}

// rowCounts are the rows the checks compare with what the agents saw.
type rowCounts struct {
	reviews   int            // review_logs rows
	auditOK   map[string]int // mcp_audit_events rows with outcome ok, per tool
	auditFail int            // mcp_audit_events rows with another outcome
}

func (c rowCounts) minus(o rowCounts) rowCounts {
	d := rowCounts{reviews: c.reviews - o.reviews, auditFail: c.auditFail - o.auditFail, auditOK: map[string]int{}}
	for k, v := range c.auditOK {
		d.auditOK[k] = v - o.auditOK[k]
	}
	return d
}

// counts reads the review-log and audit rows.
func (e *env) counts(ctx context.Context) (rowCounts, error) {
	if e.check == nil {
		db, err := e.openCheck(ctx)
		if err != nil {
			return rowCounts{}, err
		}
		e.check = db
	}
	c := rowCounts{auditOK: map[string]int{}}
	if err := e.check.QueryRowContext(ctx, `SELECT count(*) FROM review_logs`).Scan(&c.reviews); err != nil {
		return c, err
	}
	rows, err := e.check.QueryContext(ctx, `SELECT tool, outcome, count(*) FROM mcp_audit_events GROUP BY tool, outcome`)
	if err != nil {
		return c, err
	}
	defer rows.Close()
	for rows.Next() {
		var tool, outcome string
		var n int
		if err := rows.Scan(&tool, &outcome, &n); err != nil {
			return c, err
		}
		if outcome == string(contracts.AuditOK) {
			c.auditOK[tool] += n
		} else {
			c.auditFail += n
		}
	}
	return c, rows.Err()
}

// openCheck opens the database directly (not through pgbouncer) for the
// counts. SQLite's is a read-only pool with the store's settings but not a
// Store: a Store runs checkpoints of its own, and a second checkpointer
// outside the instance's write turn collides with the instance's (each
// finds the other's checkpoint busy), so the soak saw a log the
// instance alone keeps near its 64 MiB restart grow past 200 MiB.
func (e *env) openCheck(ctx context.Context) (*sql.DB, error) {
	if e.kind == "sqlite" {
		db, err := sql.Open("sqlite", sqlite.DSN(filepath.Join(e.dir, "takhtabush.db"))+"&_pragma=query_only(1)")
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(2)
		return db, db.PingContext(ctx)
	}
	s, err := postgres.Open(ctx, e.direct, postgres.WithMaxOpenConns(2), postgres.WithoutMigrate())
	if err != nil {
		return nil, err
	}
	return s.DB(), nil
}

// freshPostgres creates an empty database on the server of base and
// returns its URL and a function that drops it.
func freshPostgres(base string) (string, func(), error) {
	admin, err := sql.Open("postgres", base)
	if err != nil {
		return "", nil, err
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "tb_load_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("creating database %s: %w", name, err)
	}
	drop := func() {
		_, _ = admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		admin.Close()
	}
	u, err := url.Parse(base)
	if err != nil {
		drop()
		return "", nil, err
	}
	u.Path = "/" + name
	return u.String(), drop, nil
}
