//go:build wireinject

package apiserver

import (
	"context"

	"github.com/google/wire"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/apiserver/internal/mcpbind"
	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/apiserver/internal/rest"
	"github.com/takhtabush/takhtabush/apiserver/internal/web"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

// obsSet is the logger and the metrics, which also count audit failures.
var obsSet = wire.NewSet(
	provideLogger,
	obs.NewMetrics,
	wire.Bind(new(mcpbind.AuditFailures), new(*obs.Metrics)),
)

// domainSet builds the domain services on the store and offers each one
// as the port it implements.
var domainSet = wire.NewSet(
	provideStore,
	provideBlobs,
	provideClock,
	provideDomainConfig,
	fsrs.New,
	wire.Bind(new(ports.Scheduler), new(*fsrs.Scheduler)),
	wire.InterfaceValue(new(ports.IDSource), domain.RandomIDs{}),
	domain.NewServices,
	wire.FieldsOf(new(*domain.Services),
		"Decks", "Cards", "Notes", "Study", "Stats", "Media", "Accounts", "Keys", "WebSessions", "Exposure", "Audit", "Settings", "AccountData", "Jobs", "Export", "Import"),
	wire.Bind(new(ports.DeckService), new(*domain.DeckService)),
	wire.Bind(new(ports.CardService), new(*domain.CardService)),
	wire.Bind(new(ports.NoteService), new(*domain.NoteService)),
	wire.Bind(new(ports.StudyService), new(*domain.StudyService)),
	wire.Bind(new(ports.StatsService), new(*domain.StatsService)),
	wire.Bind(new(ports.MediaService), new(*domain.MediaService)),
	wire.Bind(new(ports.AccountService), new(*domain.AccountService)),
	wire.Bind(new(ports.KeyService), new(*domain.KeyService)),
	wire.Bind(new(ports.WebSessionService), new(*domain.WebSessionService)),
	wire.Bind(new(ports.ExposureService), new(*domain.ExposureService)),
	wire.Bind(new(ports.AuditService), new(*domain.AuditService)),
	wire.Bind(new(ports.SettingsService), new(*domain.SettingsService)),
	wire.Bind(new(ports.AccountDataService), new(*domain.AccountDataService)),
	wire.Bind(new(ports.JobService), new(*domain.JobService)),
	wire.Bind(new(ports.ExportService), new(*domain.ExportService)),
	wire.Bind(new(ports.ImportService), new(*domain.ImportService)),
)

// mcpSet binds the MCP port to the domain services and builds the engine.
var mcpSet = wire.NewSet(
	wire.Struct(new(mcpbind.Services), "*"),
	provideTxRunner,
	mcpbind.New,
	wire.Bind(new(ports.McpServices), new(*mcpbind.Binding)),
	provideMCPServer,
)

// httpSet builds identity and the routes.
var httpSet = wire.NewSet(
	loadServerKey,
	provideOAuth,
	providePurge,
	provideLimiter,
	wire.Bind(new(ports.OAuthService), new(*domain.OAuthService)),
	provideOAuthHTTP,
	wire.Struct(new(auth.Services), "*"),
	provideAuthConfig,
	auth.New,
	provideMailer,
	provideSignIn,
	provideSite,
	wire.Struct(new(web.AccountServices), "*"),
	provideAccountPages,
	wire.Struct(new(web.DeckServices), "*"),
	provideDeckPages,
	wire.Struct(new(rest.Services), "*"),
	provideAPI,
	provideUpload,
	provideExport,
	provideMediaServe,
	providePinger,
	wire.Struct(new(routeDeps), "*"),
	newPublicHandler,
	newAdminHandler,
)

// initApp is the injector: wire generates its body in wire_gen.go.
func initApp(ctx context.Context, cfg Config) (*App, func(), error) {
	wire.Build(obsSet, domainSet, mcpSet, httpSet,
		wire.Struct(new(App), "cfg", "log", "store", "svc", "accounts", "clock", "mcp", "metrics", "public", "admin", "purge"))
	return nil, nil, nil
}
