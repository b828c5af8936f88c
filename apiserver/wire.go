//go:build wireinject

package apiserver

import (
	"context"

	"github.com/google/wire"

	"github.com/takhtabush/takhtabush/apiserver/internal/mcpbind"
	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

// storeSet opens the database.
var storeSet = wire.NewSet(provideStore)

// domainSet builds the domain services on the store.
var domainSet = wire.NewSet(
	domain.NewServices,
	provideDomainConfig,
	provideBlobs,
	fsrs.New,
	wire.Bind(new(ports.Scheduler), new(*fsrs.Scheduler)),
	provideClock,
	wire.InterfaceValue(new(ports.IDSource), domain.RandomIDs{}),
)

// mcpSet binds the MCP port and builds the engine.
var mcpSet = wire.NewSet(
	provideBinding,
	wire.Bind(new(ports.McpServices), new(*mcpbind.Binding)),
	provideMCPServer,
)

// httpSet builds identity and the routes.
var httpSet = wire.NewSet(
	provideAccounts,
	loadServerKey,
	provideAuthenticator,
	provideSignIn,
	provideSite,
	providePinger,
	provideAPI,
	provideRouteDeps,
	newPublicHandler,
	newAdminHandler,
)

// initApp is the injector: wire generates its body in wire_gen.go.
func initApp(ctx context.Context, cfg Config) (*App, func(), error) {
	wire.Build(provideLogger, obs.NewMetrics, storeSet, domainSet, mcpSet, httpSet, newApp)
	return nil, nil, nil
}
