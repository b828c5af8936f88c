// Command takhtabush is the Takhtabush service and its operator tool.
//
//	takhtabush serve       the HTTP service (MCP, REST API, setup page)
//	takhtabush stdio       the MCP surface on stdin/stdout for the user of TAKHTABUSH_API_KEY [--toolsets s1,s2]
//	takhtabush migrate     apply the database migrations and exit
//	takhtabush users create --email E [--name N]
//	takhtabush users login-link --email E
//	takhtabush keys create --email E --scopes s1,s2 [--expires 720h] [--name N]
//	takhtabush keys list --email E
//	takhtabush keys revoke --id ID
//	takhtabush audit --email E [--json]
//	takhtabush server-json --base-url https://… --version V
//
// Every command takes --db (TAKHTABUSH_DATABASE_URL): sqlite:PATH (the
// default, sqlite:./data/takhtabush.db) or a postgres:// URL. Logs go to
// stderr; stdout carries only each command's output.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr}, os.Getenv)
	stop()
	os.Exit(code)
}

// stdio are a command's streams.
type stdio struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// command runs one subcommand with its arguments and returns the exit code.
type command func(ctx context.Context, args []string, io stdio, getenv func(string) string) int

const usage = `usage: takhtabush <command> [flags]

commands:
  serve                       serve HTTP (MCP at /mcp, the REST API, the setup page)
  stdio                       serve MCP on stdin/stdout for the user of TAKHTABUSH_API_KEY
  migrate                     apply the database migrations and exit
  users create --email E [--name N]
  users login-link --email E  print a one-time sign-in URL
  keys create --email E --scopes s1,s2 [--expires 720h] [--name N]
                              print a new API key (alone, shown once)
  keys list --email E
  keys revoke --id ID
  audit --email E [--json]    the user's audit trail
  server-json --base-url URL --version V
                              print the MCP registry's server.json for this deployment

Every command takes --db (env TAKHTABUSH_DATABASE_URL). Run "takhtabush <command> -h" for its flags.
`

// run dispatches args to a command.
func run(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	commands := map[string]command{
		"serve":       serveCmd,
		"stdio":       stdioCmd,
		"migrate":     migrateCmd,
		"audit":       auditCmd,
		"server-json": serverJSONCmd,
	}
	groups := map[string]map[string]command{
		"users": {"create": usersCreateCmd, "login-link": usersLoginLinkCmd},
		"keys":  {"create": keysCreateCmd, "list": keysListCmd, "revoke": keysRevokeCmd},
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(io.err, usage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if cmd, ok := commands[args[0]]; ok {
		return cmd(ctx, args[1:], io, getenv)
	}
	if group, ok := groups[args[0]]; ok {
		if len(args) > 1 {
			if cmd, ok := group[args[1]]; ok {
				return cmd(ctx, args[2:], io, getenv)
			}
		}
		fmt.Fprintf(io.err, "takhtabush %s: missing or unknown subcommand\n\n%s", args[0], usage)
		return 2
	}
	fmt.Fprintf(io.err, "takhtabush: unknown command %q\n\n%s", args[0], usage)
	return 2
}
