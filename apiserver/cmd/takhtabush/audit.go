package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
)

// auditCmd prints an account's audit trail, newest first.
func auditCmd(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	c := newCommon("audit", io, getenv, "warn")
	email := c.fs.String("email", "", "the account's email (required)")
	asJSON := c.fs.Bool("json", false, "print a JSON array of events")
	limit := c.fs.Int("limit", 0, "at most this many events (default: all)")
	app, code := c.openFor(ctx, args, io, email)
	if app == nil {
		return code
	}
	defer app.Close()
	events, err := app.AuditTrail(ctx, *email, *limit)
	if err != nil {
		return fail(io, "audit", err)
	}
	if *asJSON {
		enc := json.NewEncoder(io.out)
		enc.SetIndent("", "  ")
		if events == nil {
			fmt.Fprintln(io.out, "[]")
			return 0
		}
		if err := enc.Encode(events); err != nil {
			return fail(io, "audit", err)
		}
		return 0
	}
	w := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "AT\tTOOL\tACTION\tOUTCOME\tCREDENTIAL\tAFFECTED\tINPUT")
	for _, e := range events {
		outcome := string(e.Outcome)
		if e.ErrorKind != "" {
			outcome += " (" + string(e.ErrorKind) + ")"
		}
		cred := string(e.CredentialKind)
		if e.CredentialID != "" {
			cred += ":" + e.CredentialID
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.At.UTC().Format("2006-01-02 15:04:05Z"), e.Tool, e.Action, outcome,
			cred, clip(strings.Join(e.AffectedIDs, ","), 40), clip(string(e.InputSummary), 80))
	}
	_ = w.Flush()
	return 0
}

// clip shortens s to n runes for a table cell.
func clip(s string, n int) string {
	r := []rune(strings.ReplaceAll(s, "\n", " "))
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
