package apiserver

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/adapters/blobfs"
	"github.com/takhtabush/takhtabush/adapters/clientdoc"
	"github.com/takhtabush/takhtabush/adapters/mail"
	"github.com/takhtabush/takhtabush/adapters/postgres"
	"github.com/takhtabush/takhtabush/adapters/sqlite"
	"github.com/takhtabush/takhtabush/adapters/sqlstore"
	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/apiserver/internal/limits"
	"github.com/takhtabush/takhtabush/apiserver/internal/mcpbind"
	"github.com/takhtabush/takhtabush/apiserver/internal/oauthhttp"
	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/apiserver/internal/purge"
	"github.com/takhtabush/takhtabush/apiserver/internal/rest"
	"github.com/takhtabush/takhtabush/apiserver/internal/web"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/domain/identity"
	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/ports"
)

// provideLogger returns the configured logger (or one that discards),
// adding each request's id to every record written in its context.
func provideLogger(cfg Config) *slog.Logger {
	h := slog.DiscardHandler
	if cfg.Logger != nil {
		h = cfg.Logger.Handler()
	}
	return slog.New(obs.ContextHandler{Handler: h})
}

// provideTxRunner offers the store's transactions to the MCP binding (a
// mutation and its audit row in one transaction).
func provideTxRunner(db ports.Database) ports.TxRunner { return db }

// provideStore opens the store the database URL names and applies its
// migrations; the cleanup closes it.
func provideStore(ctx context.Context, cfg Config, log *slog.Logger) (ports.Database, func(), error) {
	kind, target, err := parseDatabaseURL(cfg.DatabaseURL)
	if err != nil {
		return nil, nil, err
	}
	if len(cfg.DatabaseReplicas) > 0 && kind != dbPostgres {
		return nil, nil, fmt.Errorf("read replicas (--db-replica) need a Postgres --db")
	}
	var s ports.Database
	switch kind {
	case dbSQLite:
		s, err = sqlite.Open(ctx, target, sqlite.WithCounter(cfg.StatementCounter))
	case dbPostgres:
		if len(cfg.DatabaseReplicas) > 0 {
			s, err = postgres.OpenRouted(ctx, target, cfg.DatabaseReplicas, log, postgres.WithCounter(cfg.StatementCounter))
		} else {
			s, err = postgres.Open(ctx, target, postgres.WithCounter(cfg.StatementCounter))
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("opening the %s database %s: %w", kind, redactURL(target), err)
	}
	log.Info("database ready", "kind", kind, "replicas", len(cfg.DatabaseReplicas))
	return s, func() {
		if err := s.Close(); err != nil {
			log.Error("closing the database", "err", err)
		}
	}, nil
}

// provideBlobs opens the media blob store: on Postgres the database
// itself (every instance behind a load balancer reads what another
// stored, with nothing more to run), on SQLite files next to the database
// (one machine anyway); --media-store overrides.
func provideBlobs(cfg Config, store ports.Database) (ports.BlobStore, error) {
	kind, _, err := parseDatabaseURL(cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	mode := cfg.MediaStore
	if mode == "" {
		mode = mediaStoreFS
		if kind == dbPostgres {
			mode = mediaStoreDB
		}
	}
	if mode == mediaStoreDB {
		db, ok := store.(interface{ Blobs() *sqlstore.BlobStore })
		if !ok || kind != dbPostgres {
			// On SQLite a blob commit inside a transaction would wait for
			// the transaction's own write lock.
			return nil, fmt.Errorf("the db media store needs a Postgres database; use --media-store fs")
		}
		return db.Blobs(), nil
	}
	s, err := blobfs.Open(cfg.MediaDir)
	if err != nil {
		return nil, err // not a nil *blobfs.Store in an interface
	}
	return s, nil
}

// provideClock returns the configured clock, or the system clock.
func provideClock(cfg Config) ports.Clock {
	if cfg.Clock != nil {
		return cfg.Clock
	}
	return domain.SystemClock{}
}

// provideDomainConfig derives the domain's settings. The keys of signed
// media URLs and of export download links derive from the server key, so
// every instance shares them and they differ from the CSRF and MRTR keys.
func provideDomainConfig(cfg Config, key serverKey, m *obs.Metrics) domain.Config {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("takhtabush media urls"))
	links := hmac.New(sha256.New, key)
	links.Write([]byte("takhtabush download links"))
	return domain.Config{BaseURL: cfg.BaseURL, KeyPepper: []byte(cfg.KeyPepper), MediaURLKey: mac.Sum(nil),
		MediaQuotaBytes: cfg.MediaQuotaBytes, MaxOpenUploads: cfg.MaxOpenUploads, MaxAttachmentBytes: cfg.MaxAttachmentBytes,
		URLKey: links.Sum(nil), PackageWriter: ankipkg.Writer{}, PackageReader: ankipkg.Reader{},
		Limits: domain.Limits{DailyWrites: cfg.Limits.DailyWrites, MaxCards: cfg.Limits.MaxCards, MaxDecks: cfg.Limits.MaxDecks,
			MaxKeys: cfg.Limits.MaxKeys, OnRefusal: m.Refused}}
}

// provideLimiter builds the per-credential rate and concurrency limits.
func provideLimiter(cfg Config, m *obs.Metrics) *limits.Limiter {
	l := cfg.Limits
	return limits.New(limits.Config{Rate: l.RatePerSecond, Burst: l.Burst, Concurrent: l.Concurrent,
		AccountRate: l.AccountRatePerSecond, AccountBurst: l.AccountBurst, AccountConcurrent: l.AccountConcurrent}, m)
}

// provideMCPServer builds the MCP engine over the binding, and registers
// the job kinds that run its tools' MCP tasks.
func provideMCPServer(svc ports.McpServices, jobs *background.JobService, cfg Config, log *slog.Logger, m *obs.Metrics, key serverKey, ids ports.IDSource) (*mcpcore.Server, error) {
	// The MRTR state key derives from the server key, so every instance
	// shares it, and differs from the CSRF key.
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("takhtabush mcp requestState"))
	srv, err := mcpbind.NewServer(svc, mcpbind.ServerConfig{BaseURL: cfg.BaseURL, Version: cfg.Version, Logger: log, Observer: m,
		StateKey: mac.Sum(nil), Timeout: cfg.RequestTimeout, IDs: ids, WidgetDomain: cfg.WidgetDomain})
	if err != nil {
		return nil, err
	}
	mcpbind.RegisterTaskJobs(jobs, srv)
	return srv, nil
}

// provideOAuth builds the OAuth authorization server.
func provideOAuth(store ports.Database, clock ports.Clock, ids ports.IDSource, cfg Config) *identity.OAuthService {
	return newOAuthService(store, clock, ids, cfg)
}

// providePurge builds the scheduler of the purge of what has expired and
// registers its jobs: one per kind of expiring row, the trash (decks and
// cards deleted contracts.TrashDays ago), unused media and the staged rows
// of package imports that ended.
func providePurge(log *slog.Logger, m *obs.Metrics, svc *domain.Services) *purge.Scheduler {
	s := purge.New(log, m, purge.Options{})
	for _, what := range ports.ExpiringKinds {
		s.Register(purge.Job{Name: string(what), Run: func(ctx context.Context, limit int) (int, error) {
			return svc.Purge.Expired(ctx, what, limit)
		}})
	}
	s.Register(purge.Job{Name: "trash", Run: svc.Trash.PurgeExpired})
	s.Register(purge.Job{Name: "unused_media", Run: svc.Media.CollectUnused})
	s.Register(purge.Job{Name: "staged_blobs", Run: svc.Media.PurgeStagedBlobs})
	s.Register(purge.Job{Name: "import_stages", Run: svc.Import.PurgeStages})
	return s
}

// newOAuthService builds the OAuth authorization server.
func newOAuthService(store ports.Database, clock ports.Clock, ids ports.IDSource, cfg Config) *identity.OAuthService {
	docs := cfg.ClientDocuments
	if docs == nil {
		docs = clientdoc.New()
	}
	res := map[string]string{}
	for _, r := range cfg.resources() {
		res[r.ID] = cfg.canonicalResource(r.ID)
	}
	return identity.NewOAuthService(store, clock, ids, docs, identity.OAuthConfig{
		Issuer: cfg.BaseURL, Resources: res, DefaultResource: cfg.MCPURL(),
	})
}

// provideOAuthHTTP builds the OAuth endpoints and pages.
func provideOAuthHTTP(svc ports.OAuthService, site *web.Site, log *slog.Logger, cfg Config) (*oauthhttp.Handler, error) {
	return oauthhttp.New(svc, site, log, oauthhttp.Config{Issuer: cfg.BaseURL})
}

// provideAuthConfig derives authentication's settings.
func provideAuthConfig(cfg Config, key serverKey) auth.Config {
	return auth.Config{
		BaseURL:      cfg.BaseURL,
		DevNoAuth:    cfg.DevMode(),
		DevUserEmail: cfg.DevUserEmail,
		ExtraOrigins: cfg.ambientOrigins(),
		CSRFKey:      key,
	}
}

// provideMailer returns the mailer of sign-in links: SMTP when a host is
// configured, the log mailer in development on loopback, and nil (email
// sign-in off) otherwise.
func provideMailer(cfg Config, log *slog.Logger) (ports.Mailer, error) {
	switch {
	case cfg.SMTP.Host != "":
		m, err := mail.NewSMTP(mail.SMTPConfig{Host: cfg.SMTP.Host, Port: cfg.SMTP.Port, Username: cfg.SMTP.Username,
			Password: cfg.SMTP.Password, From: cfg.SMTP.From, TLS: cfg.SMTP.TLS})
		if err != nil {
			return nil, err
		}
		return m, nil
	case cfg.DevMailer():
		return mail.NewLog(log), nil
	}
	return nil, nil
}

// provideSignIn builds the sign-in handlers.
func provideSignIn(sessions ports.WebSessionService, settings ports.SettingsService, a *auth.Authenticator, site *web.Site, mailer ports.Mailer,
	clock ports.Clock, cfg Config, log *slog.Logger) *web.SignIn {
	return web.NewSignIn(sessions, a, site, web.SignInConfig{
		BaseURL: cfg.BaseURL, Mailer: mailer, ShowLinks: cfg.DevMailer(), OpenSignup: cfg.OpenSignup, Now: clock.Now, Settings: settings,
	}, log)
}

// provideAPI builds the REST API for the web app.
func provideAPI(s rest.Services, log *slog.Logger) apiHandler { return rest.NewHandler(s, log) }

// provideUpload builds the media upload handler.
func provideUpload(media ports.MediaService, log *slog.Logger) uploadHandler {
	return rest.NewUploadHandler(media, log)
}

// provideExport serves export downloads.
func provideExport(export ports.ExportService, log *slog.Logger) exportHandler {
	return rest.NewExportHandler(export, log)
}

// provideMediaServe builds GET /media/{id}: signed URLs, or the web session.
func provideMediaServe(media ports.MediaService, a *auth.Authenticator, log *slog.Logger) mediaHandler {
	return rest.NewServeHandler(media, func(next http.Handler) http.Handler { return a.Middleware(log, httperr.JSON, next) }, log)
}

// provideSite builds the page layout and the session check every page uses.
func provideSite(a *auth.Authenticator, accounts ports.AccountService, settings ports.SettingsService, log *slog.Logger) (*web.Site, error) {
	r, err := web.NewRenderer(log)
	if err != nil {
		return nil, err
	}
	return web.NewSite(r, a, accounts, settings, log), nil
}

// providePinger checks the store.
func providePinger(s ports.Database) pinger {
	if r, ok := s.(interface{ Ready(context.Context) error }); ok {
		return r.Ready // reads the tables: a locked table is not ready
	}
	return s.Ping
}

// provideDeckPages builds the deck, card, paste and study pages.
func provideDeckPages(site *web.Site, svc web.DeckServices) *web.DeckPages {
	return web.NewDeckPages(site, svc)
}

// provideAccountPages builds the signed-in person's own pages: home, stats,
// audit and settings.
func provideAccountPages(site *web.Site, a *auth.Authenticator, svc web.AccountServices, cfg Config) *web.AccountPages {
	return web.NewAccountPages(site, a, svc, cfg.MCPURL())
}
