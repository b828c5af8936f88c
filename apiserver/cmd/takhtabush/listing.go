package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/takhtabush/takhtabush/apiserver/internal/listing"
)

// serverJSONCmd prints the official MCP registry's server.json for the
// deployment at --base-url, to publish with the registry's publisher.
func serverJSONCmd(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	c := newCommon("server-json", io, getenv, "info")
	version := c.str("version", "TAKHTABUSH_VERSION", "", "the version to list, e.g. 1.4.0 (required)")
	if code, ok := c.parse(args); !ok {
		return code
	}
	if !strings.HasPrefix(*c.baseURL, "https://") || *version == "" {
		fmt.Fprintln(io.err, "takhtabush server-json: --base-url (https://…) and --version are required")
		return 2
	}
	b, err := listing.Service{BaseURL: strings.TrimRight(*c.baseURL, "/"), Version: *version}.ServerJSON()
	if err != nil {
		return fail(io, "server-json", err)
	}
	fmt.Fprintf(io.out, "%s\n", b)
	return 0
}
