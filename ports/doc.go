// Package ports holds Takhtabush's interfaces, and only interfaces (plus the
// plain row types their signatures need): the driving ports that the web
// app, the command line and MCP call (services, implemented by domain), the
// driven ports that the domain calls (stores, transaction runner, clock, id
// source, scheduler, blob store, mailer; implemented by adapters and
// domain), and McpServices, the one port mcpcore consumes.
//
// Error contract, for every method unless its comment says otherwise: a
// failure is a *contracts.Error whose Kind (contracts.KindOf) is one of
// invalid, not_found, conflict, forbidden, unauthenticated, unavailable or
// internal. Store methods never return another user's rows: a row owned by
// someone else is not_found. Implementations never put SQL text or secrets
// in an error's message.
//
// Mocks generated with go.uber.org/mock live in ports/mock; the exported
// contract suite every store implementation runs lives in ports/storetest.
package ports

//go:generate go tool mockgen -typed -source=services.go -destination=mock/services_mock.go -package=mock
//go:generate go tool mockgen -typed -source=stores.go -destination=mock/stores_mock.go -package=mock
//go:generate go tool mockgen -typed -source=oauth.go -destination=mock/oauth_mock.go -package=mock
//go:generate go tool mockgen -typed -source=mcp.go -destination=mock/mcp_mock.go -package=mock
