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
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/domain/filtered"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/domain/identity"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/domain/stats"
	"github.com/takhtabush/takhtabush/domain/study"
	"github.com/takhtabush/takhtabush/domain/undo"
	"github.com/takhtabush/takhtabush/ports"
)

// obsSet is the logger and the metrics, which also count audit failures.
var obsSet = wire.NewSet(
	provideLogger,
	obs.NewMetrics,
	wire.Bind(new(mcpbind.AuditFailures), new(*obs.Metrics)),
)

// domainSet builds the domain services on the store; the rooms' sets
// below offer each service as the port it implements.
var domainSet = wire.NewSet(
	provideStore,
	provideBlobs,
	provideClock,
	provideDomainConfig,
	fsrs.New,
	wire.Bind(new(ports.Scheduler), new(*fsrs.Scheduler)),
	wire.InterfaceValue(new(ports.IDSource), domain.RandomIDs{}),
	domain.NewServices,
	identitySet, librarySet, studySet, undoSet, filteredSet, exchangeSet, backgroundSet,
)

// identitySet: accounts, keys, web sessions, exposure, audit, settings and confirmations
// (domain/identity; its OAuth service is built in httpSet).
var identitySet = wire.NewSet(
	wire.FieldsOf(new(*domain.Services), "Accounts", "Keys", "WebSessions", "Exposure", "Audit", "Settings", "Confirm"),
	wire.Bind(new(ports.ConfirmService), new(*identity.ConfirmService)),
	wire.Bind(new(ports.AccountService), new(*identity.AccountService)),
	wire.Bind(new(ports.KeyService), new(*identity.KeyService)),
	wire.Bind(new(ports.WebSessionService), new(*identity.WebSessionService)),
	wire.Bind(new(ports.ExposureService), new(*identity.ExposureService)),
	wire.Bind(new(ports.AuditService), new(*identity.AuditService)),
	wire.Bind(new(ports.SettingsService), new(*identity.SettingsService)),
)

// librarySet: decks, cards, notes, media and the trash (domain/library).
var librarySet = wire.NewSet(
	wire.FieldsOf(new(*domain.Services), "Decks", "Cards", "Notes", "Media", "Trash"),
	wire.Bind(new(ports.DeckService), new(*library.DeckService)),
	wire.Bind(new(ports.CardService), new(*library.CardService)),
	wire.Bind(new(ports.NoteService), new(*library.NoteService)),
	wire.Bind(new(ports.MediaService), new(*library.MediaService)),
	wire.Bind(new(ports.TrashService), new(*library.TrashService)),
)

// studySet: study sessions and reviews (domain/study); statistics, plans
// and the workload simulation (domain/stats).
var studySet = wire.NewSet(
	wire.FieldsOf(new(*domain.Services), "Study", "Stats"),
	wire.Bind(new(ports.StudyService), new(*study.StudyService)),
	wire.Bind(new(ports.StatsService), new(*stats.StatsService)),
)

// undoSet: undo_changes, the inverses of change records (domain/undo).
var undoSet = wire.NewSet(
	wire.FieldsOf(new(*domain.Services), "Undo"),
	wire.Bind(new(ports.UndoService), new(*undo.UndoService)),
)

// filteredSet: filtered decks (domain/filtered).
var filteredSet = wire.NewSet(
	wire.FieldsOf(new(*domain.Services), "Filtered"),
	wire.Bind(new(ports.FilteredDeckService), new(*filtered.Service)),
)

// exchangeSet: package import, export and the account's data (domain/exchange).
var exchangeSet = wire.NewSet(
	wire.FieldsOf(new(*domain.Services), "AccountData", "Export", "Import"),
	wire.Bind(new(ports.AccountDataService), new(*exchange.AccountDataService)),
	wire.Bind(new(ports.ExportService), new(*exchange.ExportService)),
	wire.Bind(new(ports.ImportService), new(*exchange.ImportService)),
)

// backgroundSet: long jobs (domain/background; the purge is built in httpSet).
var backgroundSet = wire.NewSet(
	wire.FieldsOf(new(*domain.Services), "Jobs"),
	wire.Bind(new(ports.JobService), new(*background.JobService)),
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
	wire.Bind(new(ports.OAuthService), new(*identity.OAuthService)),
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
