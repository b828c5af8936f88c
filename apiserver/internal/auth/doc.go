// Package auth resolves who is calling the HTTP service and guards the
// ambient credentials.
//
// Three credentials reach /mcp and /api: an API key (Authorization: Bearer
// or x-api-key), the web session cookie, and, in development mode only, no
// credential at all (the owner account). A presented credential that is
// refused gets 401 with a JSON body (JSON-RPC on /mcp) and a Bearer
// challenge naming the protected-resource metadata, never an HTML page.
// Requests carried by an ambient credential (the cookie, or development
// mode's nothing) with an unsafe method must come from our own origin, and
// the cookie ones must carry the double-submit CSRF token.
package auth
