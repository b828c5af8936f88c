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

// Mocks are generated only for the ports whose interaction contracts tests
// check with gomock (TestMocksHaveUsers keeps it so): the driving services
// the REST handlers call, and McpServices under the MCP surface. Stores are
// tested on real databases (ports/storetest), never mocked.
//
//go:generate go tool mockgen -typed -destination=mock/services_mock.go -package=mock . DeckService,CardService,StudyService,StatsService,KeyService,ExposureService,AuditService,AccountService
//go:generate go tool mockgen -typed -destination=mock/mcp_mock.go -package=mock . McpServices
