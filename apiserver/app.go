package apiserver

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/takhtabush/takhtabush/adapters/sqlcount"
	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/apiserver/internal/purge"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/ports"
)

// Server timeouts. WriteTimeout leaves room for a tool call that streams
// progress over SSE.
const (
	ReadHeaderTimeout = 10 * time.Second
	ReadTimeout       = time.Minute
	WriteTimeout      = 5 * time.Minute
	IdleTimeout       = 2 * time.Minute
	ShutdownTimeout   = 30 * time.Second
)

// App is the whole Takhtabush service, built by New.
type App struct {
	cfg      Config
	log      *slog.Logger
	store    ports.Database
	svc      *domain.Services
	accounts ports.AccountService
	clock    ports.Clock
	mcp      *mcpcore.Server
	metrics  *obs.Metrics
	public   publicHandler
	admin    adminHandler
	purge    *purge.Scheduler

	cleanup   func()
	closeOnce sync.Once
}

func newApp(cfg Config, log *slog.Logger, store ports.Database, svc *domain.Services, accounts ports.AccountService,
	clock ports.Clock, srv *mcpcore.Server, m *obs.Metrics, public publicHandler, admin adminHandler) *App {
	return &App{cfg: cfg, log: log, store: store, svc: svc, accounts: accounts, clock: clock, mcp: srv, metrics: m, public: public, admin: admin}
}

// New builds the service from cfg: it opens the database (creating a
// SQLite file and its directory when absent), applies the migrations and
// wires everything. Close releases it.
func New(ctx context.Context, cfg Config) (*App, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return nil, err
	}
	app, cleanup, err := initApp(ctx, cfg)
	if err != nil {
		return nil, err
	}
	app.cleanup = cleanup
	registerWALMetrics(app.metrics.Registry(), app.store)
	if cfg.DevMode() {
		app.log.Warn("DEVELOPMENT MODE: requests without a credential from this machine act as the owner account " +
			cfg.DevUserEmail + " with every scope; never run this on a shared or public machine")
	}
	return app, nil
}

// Config returns the effective configuration (defaults filled in).
func (a *App) Config() Config { return a.cfg }

// Handler serves every public route.
func (a *App) Handler() http.Handler { return a.public }

// AdminHandler serves /metrics, /healthz and /readyz for an admin listener.
func (a *App) AdminHandler() http.Handler { return a.admin }

// MCPServer returns the MCP engine (for stdio and in-process use).
func (a *App) MCPServer() *mcpcore.Server { return a.mcp }

// Services returns the domain services, for in-process set-up such as
// seeding a benchmark. They act for the principal in each call's context.
func (a *App) Services() *domain.Services { return a.svc }

// Close closes the database. It is safe to call more than once.
func (a *App) Close() error {
	a.closeOnce.Do(func() {
		if a.cleanup != nil {
			a.cleanup()
		}
	})
	return nil
}

// Purge deletes everything that has expired now, every purge job until
// it has nothing left, and returns the rows each job deleted (Serve also
// runs them on their schedule).
func (a *App) Purge(ctx context.Context) (map[string]int, error) { return a.purge.RunNow(ctx) }

// Serve serves the public routes on ln (and the admin routes on admin,
// when not nil) until ctx ends, then shuts down gracefully: listeners
// close, in-flight requests finish (up to ShutdownTimeout). While it
// serves, the purge of what has expired runs on its schedule. It does not
// close the database: call Close after it returns.
func (a *App) Serve(ctx context.Context, ln, admin net.Listener) error {
	// Background work is not counted against the requests it overlaps
	// (Config.StatementCounter: statement budgets, benchmarks).
	background := sqlcount.Uncounted(ctx)
	stopPurge := a.purge.Start(background)
	defer stopPurge()
	servers := []*http.Server{a.httpServer(a.public)}
	listeners := []net.Listener{ln}
	if admin != nil {
		servers = append(servers, a.httpServer(a.admin))
		listeners = append(listeners, admin)
	}
	errc := make(chan error, len(servers))
	for i, s := range servers {
		go func() { errc <- s.Serve(listeners[i]) }()
	}
	jctx, stopJobs := context.WithCancel(context.WithoutCancel(background))
	jobsDone := a.RunJobs(jctx)
	defer func() { stopJobs(); <-jobsDone }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
		a.log.Error("listener failed", "err", err)
	}
	a.log.Info("shutting down: finishing in-flight requests")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	for _, s := range servers {
		if serr := s.Shutdown(sctx); serr != nil && err == nil {
			err = serr
		}
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// RunJobs runs long jobs (imports, optimisations) in the background until
// ctx ends, detached from the requests that started them, and returns a
// channel closed when its runner has stopped. Serve calls it; a process
// that only hands out the handler (tests, embedding) calls it itself.
func (a *App) RunJobs(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	if a.cfg.JobConcurrency < 0 {
		close(done)
		return done
	}
	runner := a.svc.Jobs.Runner(background.RunnerConfig{Logger: a.log, Concurrency: a.cfg.JobConcurrency, Timeout: a.cfg.JobTimeout})
	go func() {
		defer close(done)
		runner.Run(ctx)
	}()
	return done
}

func (a *App) httpServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
}
