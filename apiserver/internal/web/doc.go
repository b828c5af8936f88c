// Package web holds the apiserver's own pages and small endpoints: the
// public MCP setup page (/connect), sign-in by one-time link and sign-out,
// the health probes, and the OAuth protected-resource metadata.
package web
