// Package oauthhttp serves Takhtabush's OAuth 2.1 authorization server
// over HTTP: the RFC 9728 protected-resource metadata of every resource
// and the RFC 8414 authorization-server metadata, the authorization
// endpoint with its consent page (on the web session), the token,
// revocation (RFC 7009) and dynamic client registration (RFC 7591)
// endpoints, and Settings → Connected apps.
//
// The logic is the domain's (ports.OAuthService); this package parses
// requests, writes the RFC 6749 / RFC 7591 error bodies (the one exception
// to the service's JSON error shape), answers CORS for the endpoints
// browser-based clients call (metadata, token, registration, revocation;
// never authorization) and renders the two pages.
package oauthhttp
