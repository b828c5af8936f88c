// Package surface binds the Takhtabush tool catalog (contracts) to the
// generic MCP engine (mcpcore) over the one port the engine's caller
// injects, ports.McpServices. It owns the dispatch table built from the
// definitions, scope and exposure gating, the mapping of domain errors to
// tool results a model can act on, audit projection for mutating calls, and
// the MCP Apps study widget resource. It never touches storage.
package surface

//go:generate go run ./internal/gendocs -out ../../docs/mcp-tools.md
