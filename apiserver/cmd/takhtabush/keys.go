package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// keysCreateCmd mints a key and prints it alone on stdout.
func keysCreateCmd(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	c := newCommon("keys create", io, getenv, "warn")
	email := c.fs.String("email", "", "the owner's email (required)")
	scopeList := c.fs.String("scopes", "", "comma-separated scopes (required): "+contracts.JoinScopes(contracts.AllScopes, ","))
	expires := c.fs.Duration("expires", 0, "lifetime, e.g. 720h (default: never expires)")
	name := c.fs.String("name", "cli", "a name to recognise the key by")
	if code, ok := c.parse(args); !ok {
		return code
	}
	if !required(io, c, "email", *email) || !required(io, c, "scopes", *scopeList) {
		return 2
	}
	scopes, err := contracts.ParseScopes(*scopeList)
	if err != nil {
		return fail(io, "keys create", err)
	}
	app, ok := c.open(ctx, io)
	if !ok {
		return 1
	}
	defer app.Close()
	k, err := app.CreateKey(ctx, *email, *name, scopes, *expires)
	if err != nil {
		return fail(io, "keys create", err)
	}
	fmt.Fprintln(io.out, k.Secret)
	fmt.Fprintf(io.err, "key %s created; it is shown once, store it now\n", k.Key.ID)
	return 0
}

// keysListCmd lists an account's keys.
func keysListCmd(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	c := newCommon("keys list", io, getenv, "warn")
	email := c.fs.String("email", "", "the owner's email (required)")
	app, code := c.openFor(ctx, args, io, email)
	if app == nil {
		return code
	}
	defer app.Close()
	keys, err := app.ListKeys(ctx, *email)
	if err != nil {
		return fail(io, "keys list", err)
	}
	w := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tSCOPES\tHINT\tCREATED\tEXPIRES\tLAST USED\tSTATUS")
	now := time.Now()
	for _, k := range keys {
		status := "active"
		switch {
		case k.RevokedAt != nil:
			status = "revoked"
		case k.ExpiresAt != nil && !k.ExpiresAt.After(now):
			status = "expired"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t…%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, contracts.JoinScopes(k.Scopes, ","), k.Hint,
			stamp(&k.CreatedAt), stamp(k.ExpiresAt), stamp(k.LastUsedAt), status)
	}
	_ = w.Flush()
	return 0
}

// keysRevokeCmd revokes a key by id.
func keysRevokeCmd(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	c := newCommon("keys revoke", io, getenv, "warn")
	id := c.fs.String("id", "", "the key's id (required; see keys list)")
	if code, ok := c.parse(args); !ok {
		return code
	}
	if !required(io, c, "id", *id) {
		return 2
	}
	app, ok := c.open(ctx, io)
	if !ok {
		return 1
	}
	defer app.Close()
	if err := app.RevokeKey(ctx, *id); err != nil {
		return fail(io, "keys revoke", err)
	}
	fmt.Fprintf(io.out, "revoked key %s\n", *id)
	return 0
}

func stamp(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04Z")
}
