// Package mcpcore is a generic Model Context Protocol server engine: a
// strict JSON-RPC 2.0 codec, both protocol eras on one endpoint (the
// initialize handshake of 2025-03-26/2025-06-18/2025-11-25 and the stateless
// 2026-07-28 era with server/discover and per-request _meta), tools,
// resources, resource templates, prompts and completion, the served-call
// pipeline (argument validation → guardrails → approval → execution with
// timeout and cancellation → result guardrails), scope and visibility
// filtering for an authenticated Principal, and three transports:
// stateless Streamable HTTP (NewHTTPHandler), stdio (ServeStdio) and
// in-process (Server.Handle).
//
// It knows nothing about any particular application. Build a Server with
// NewServer from a Catalog of definitions; construction rejects invalid
// names, duplicate names, schemas that do not compile and dangling ui://
// references, so a bad definition fails at start-up rather than on the
// first call.
package mcpcore
