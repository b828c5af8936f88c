package apiserver

import (
	"fmt"
	"strings"
)

// Database kinds.
const (
	dbSQLite   = "sqlite"
	dbPostgres = "postgres"
)

// parseDatabaseURL splits a --db value into its kind and what the adapter
// opens: "sqlite:PATH" (also "sqlite://PATH") gives the file path,
// "postgres://…" or "postgresql://…" the whole URL.
func parseDatabaseURL(raw string) (kind, target string, err error) {
	switch {
	case strings.HasPrefix(raw, "postgres://"), strings.HasPrefix(raw, "postgresql://"):
		return dbPostgres, raw, nil
	case strings.HasPrefix(raw, "sqlite://"):
		target = strings.TrimPrefix(raw, "sqlite://")
	case strings.HasPrefix(raw, "sqlite:"):
		target = strings.TrimPrefix(raw, "sqlite:")
	default:
		return "", "", fmt.Errorf("database URL %q: use sqlite:PATH or postgres://USER@HOST/DB", redactURL(raw))
	}
	if target == "" {
		return "", "", fmt.Errorf("database URL %q has no file path", raw)
	}
	return dbSQLite, target, nil
}

// redactURL hides a password in a URL for messages and logs.
func redactURL(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	userinfo, host, ok := strings.Cut(rest, "@")
	if !ok {
		return raw
	}
	if user, _, hasPass := strings.Cut(userinfo, ":"); hasPass {
		return scheme + "://" + user + ":xxxxx@" + host
	}
	return raw
}
