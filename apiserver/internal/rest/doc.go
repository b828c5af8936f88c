// Package rest is the JSON API the Takhtabush web app calls, built the
// go-kit way (shipping-example style): one endpoint.Endpoint per use case
// over the ports' driving services, a decoder per route, one response
// encoder and one error encoder that maps every contracts.ErrorKind to an
// HTTP status exactly once.
//
// The handler expects the outer middleware to have resolved the caller and
// put a contracts.Principal in the request context (contracts.WithPrincipal),
// to bound request bodies, and to check CSRF tokens on unsafe requests that
// carry the session cookie. It checks again what concerns it: a request
// without a principal gets 401, and every route but /api/me admits only a
// web-session principal (or the development and local principals): a key
// can never manage keys, and an agent's key works on /mcp, where its
// scopes, the account's exposure settings and the audit trail apply.
//
// Every failure has the body {"error":{"kind":…,"message":…}}. An internal
// failure shows only "internal error" and a reference id; its cause goes to
// the log under that id.
//
// Business errors travel as the endpoint's error rather than inside the
// response (go-kit's endpoint.Failer): there is no endpoint middleware such
// as a circuit breaker that would need to tell them apart from transport
// failures.
package rest
