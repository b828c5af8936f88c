// Package apiserver is Takhtabush's composition root and driving HTTP side.
//
// New builds the whole service from a Config with a Wire injector: the
// SQLite or Postgres store chosen by the database URL (migrated at start),
// the domain services, the ports.McpServices binding for the authenticated
// principal, the MCP engine, identity (API keys, the web session cookie,
// development mode), CSRF protection, the REST API, the setup page, health
// probes, structured logs and Prometheus metrics. The takhtabush command
// (cmd/takhtabush) and the benchmarks use New; nothing else wires anything.
package apiserver
