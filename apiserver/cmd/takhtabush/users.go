package main

import (
	"context"
	"fmt"
)

// usersCreateCmd creates an account.
func usersCreateCmd(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	c := newCommon("users create", io, getenv, "warn")
	email := c.fs.String("email", "", "the account's email (required)")
	name := c.fs.String("name", "", "the account's display name")
	app, code := c.openFor(ctx, args, io, email)
	if app == nil {
		return code
	}
	defer app.Close()
	u, err := app.CreateUser(ctx, *email, *name)
	if err != nil {
		return fail(io, "users create", err)
	}
	fmt.Fprintf(io.out, "created user %s (%s)\n", u.Email, u.ID)
	return 0
}

// usersLoginLinkCmd prints a one-time sign-in URL.
func usersLoginLinkCmd(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	c := newCommon("users login-link", io, getenv, "warn")
	email := c.fs.String("email", "", "the account's email (required)")
	app, code := c.openFor(ctx, args, io, email)
	if app == nil {
		return code
	}
	defer app.Close()
	link, exp, err := app.LoginLink(ctx, *email)
	if err != nil {
		return fail(io, "users login-link", err)
	}
	fmt.Fprintln(io.out, link)
	fmt.Fprintf(io.err, "single use; valid until %s\n", exp.Local().Format("2006-01-02 15:04:05 MST"))
	return 0
}
