package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// common are the flags and environment every command shares.
type common struct {
	fs        *flag.FlagSet
	getenv    func(string) string
	db        *string
	addr      *string
	baseURL   *string
	mediaDir  *string
	logFormat *string
	logLevel  *string
	// stdioToolsets are stdio's --toolsets, parsed.
	stdioToolsets []string
}

// newCommon declares the shared flags, each defaulting to its environment
// variable and then to the built-in default.
func newCommon(name string, io stdio, getenv func(string) string, defaultLevel string) *common {
	fs := flag.NewFlagSet("takhtabush "+name, flag.ContinueOnError)
	fs.SetOutput(io.err)
	c := &common{fs: fs, getenv: getenv}
	c.db = c.str("db", "TAKHTABUSH_DATABASE_URL", apiserver.DefaultDatabaseURL, "database: sqlite:PATH or postgres://…")
	c.addr = c.str("addr", "TAKHTABUSH_ADDR", apiserver.DefaultAddr, "listen address")
	c.baseURL = c.str("base-url", "TAKHTABUSH_BASE_URL", "", "public origin, e.g. https://takhtabush.example (default: from --addr)")
	c.mediaDir = c.str("media-dir", "TAKHTABUSH_MEDIA_DIR", "", "folder for uploaded media (default: media/ next to a SQLite database, else ./data/media)")
	c.logFormat = c.str("log-format", "TAKHTABUSH_LOG_FORMAT", "text", "log format: text or json (to stderr)")
	c.logLevel = c.str("log-level", "TAKHTABUSH_LOG_LEVEL", defaultLevel, "log level: debug, info, warn or error")
	return c
}

// str declares a string flag with an environment fallback.
func (c *common) str(name, env, def, usage string) *string {
	if v := c.getenv(env); v != "" {
		def = v
	}
	if env != "" {
		usage += " (env " + env + ")"
	}
	return c.fs.String(name, def, usage)
}

// parse parses args; it returns the exit code to use when parsing failed.
func (c *common) parse(args []string) (int, bool) {
	if err := c.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if c.fs.NArg() > 0 {
		fmt.Fprintf(c.fs.Output(), "%s: unexpected argument %q\n", c.fs.Name(), c.fs.Arg(0))
		return 2, false
	}
	return 0, true
}

// logger builds the stderr logger.
func (c *common) logger(io stdio) *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(*c.logLevel)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if strings.EqualFold(*c.logFormat, "json") {
		return slog.New(slog.NewJSONHandler(io.err, opts))
	}
	return slog.New(slog.NewTextHandler(io.err, opts))
}

// config is the service configuration from the flags and the environment.
func (c *common) config(io stdio) apiserver.Config {
	return apiserver.Config{
		DatabaseURL:   *c.db,
		Addr:          *c.addr,
		BaseURL:       *c.baseURL,
		MediaDir:      *c.mediaDir,
		Environment:   c.getenv("ENVIRONMENT"),
		DevNoAuth:     c.getenv("MCP_DEV_NO_AUTH") == "true",
		DevUserEmail:  c.getenv("MCP_DEV_USER_EMAIL"),
		Secret:        c.getenv("TAKHTABUSH_SECRET"),
		KeyPepper:     c.getenv("TAKHTABUSH_KEY_PEPPER"),
		Logger:        c.logger(io),
		StdioToolsets: c.stdioToolsets,
	}
}

// openFor parses args, checks the required --email and opens the service
// for a one-shot command about that account. It returns a nil App and the
// exit code when the command cannot go on.
func (c *common) openFor(ctx context.Context, args []string, io stdio, email *string) (*apiserver.App, int) {
	if code, ok := c.parse(args); !ok {
		return nil, code
	}
	if !required(io, c, "email", *email) {
		return nil, 2
	}
	app, ok := c.open(ctx, io)
	if !ok {
		return nil, 1
	}
	return app, 0
}

// open builds the service for a one-shot command.
func (c *common) open(ctx context.Context, io stdio) (*apiserver.App, bool) {
	app, err := apiserver.New(ctx, c.config(io))
	if err != nil {
		fmt.Fprintf(io.err, "%s: %v\n", c.fs.Name(), err)
		return nil, false
	}
	return app, true
}

// fail prints a command's error (its safe message) and returns exit code 1.
func fail(io stdio, name string, err error) int {
	msg := err.Error()
	var e *contracts.Error
	if errors.As(err, &e) {
		msg = contracts.MessageOf(err)
		if e.Kind == contracts.KindInternal && e.Err != nil {
			msg += ": " + e.Err.Error() // the operator may see the cause
		}
	}
	fmt.Fprintf(io.err, "takhtabush %s: %s\n", name, msg)
	return 1
}

// required reports a missing required flag.
func required(io stdio, c *common, name, value string) bool {
	if value == "" {
		fmt.Fprintf(io.err, "%s: --%s is required\n", c.fs.Name(), name)
		return false
	}
	return true
}
