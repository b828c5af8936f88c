// Package mcpbind binds ports.McpServices, the one port the MCP surface
// consumes, to the domain services of the principal in the call's
// context, and builds the MCP engine over it with per-tool metrics.
//
// The binding holds no per-user state: every method acts for the principal
// the auth middleware (or the stdio command) put in the context, and the
// domain scopes every read and write to that user.
package mcpbind
