// Package contracts is Takhtabush's shared vocabulary: scopes, the MCP tool
// catalog (names, descriptions, JSON Schemas, annotations, required scopes,
// audit actions), the wire records that cross every boundary, the acting
// principal, and the one error type with its small set of kinds.
//
// It depends on nothing else in the repository, so every other module
// (ports, domain, adapters, mcpcore, apiserver) can import it.
package contracts
