package main

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/apiserver/internal/clientip"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// serveCmd runs the HTTP service until SIGINT or SIGTERM, then shuts down
// gracefully and closes the database. In development it first makes sure
// the owner account exists and prints how to connect.
func serveCmd(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	c := newCommon("serve", io, getenv, "info")
	mcpHost := c.str("mcp-host", "TAKHTABUSH_MCP_HOST", "", "a host name whose bare origin also serves MCP, e.g. mcp.takhtabush.example")
	adminAddr := c.str("admin-addr", "TAKHTABUSH_ADMIN_ADDR", "", "serve /metrics on this address instead of to loopback clients of --addr")
	smtpHost := c.str("smtp-host", "TAKHTABUSH_SMTP_HOST", "", "mail server for sign-in links (without it, email sign-in is off outside development)")
	smtpPort := c.str("smtp-port", "TAKHTABUSH_SMTP_PORT", "", "mail server port (default by --smtp-tls: 587, 465 or 25)")
	smtpUser := c.str("smtp-user", "TAKHTABUSH_SMTP_USER", "", "mail server user (the password comes from TAKHTABUSH_SMTP_PASSWORD only)")
	smtpFrom := c.str("smtp-from", "TAKHTABUSH_SMTP_FROM", "", `sender of sign-in mail, e.g. "Takhtabush <login@takhtabush.example>"`)
	smtpTLS := c.str("smtp-tls", "TAKHTABUSH_SMTP_TLS", "starttls", "mail server TLS: starttls, tls (implicit) or none")
	mediaStore := c.str("media-store", "TAKHTABUSH_MEDIA_STORE", "", "where media bytes live: fs (--media-dir) or db (Postgres, shared by every instance); default db on Postgres, fs on SQLite")
	quotaMiB := c.str("media-quota-mib", "TAKHTABUSH_MEDIA_QUOTA_MIB", "1024", "each account's media storage in MiB")
	openUploads := c.str("max-open-uploads", "TAKHTABUSH_MAX_OPEN_UPLOADS", "20", "open upload intents per account")
	jobRunners := c.str("job-runners", "TAKHTABUSH_JOB_RUNNERS", strconv.Itoa(apiserver.DefaultJobRunners), "long jobs (package imports, optimisations) this process runs at once; 0: none here, another instance runs them")
	attachMiB := c.str("attachment-limit-mib", "TAKHTABUSH_ATTACHMENT_LIMIT_MIB", "512", "largest zip or text upload in MiB (at most 512)")
	var replicas []string
	if v := getenv("TAKHTABUSH_DATABASE_REPLICAS"); v != "" {
		replicas = strings.Split(v, ",")
	}
	c.fs.Func("db-replica", "a streaming read replica of --db (postgres://…), repeatable: stats, plans, search and list pages read there (env TAKHTABUSH_DATABASE_REPLICAS, comma-separated)", func(v string) error {
		if !strings.HasPrefix(v, "postgres://") && !strings.HasPrefix(v, "postgresql://") {
			return fmt.Errorf("a replica is a postgres:// URL")
		}
		replicas = append(replicas, v)
		return nil
	})
	openSignup := c.fs.Bool("open-signup", getenv("TAKHTABUSH_OPEN_SIGNUP") == "true", "let anyone create an account by asking for a sign-in link (env TAKHTABUSH_OPEN_SIGNUP=true)")
	widgetDomain := c.str("widget-domain", "TAKHTABUSH_WIDGET_DOMAIN", "", "the study widget's dedicated origin as the host asks for it (MCP Apps ui.domain); default none")
	privacyFile := c.str("privacy-file", "TAKHTABUSH_PRIVACY_FILE", "", "an HTML fragment that replaces the built-in /privacy text")
	termsFile := c.str("terms-file", "TAKHTABUSH_TERMS_FILE", "", "an HTML fragment that replaces the built-in /terms text")
	trusted := c.str("trusted-proxies", "TAKHTABUSH_TRUSTED_PROXIES", "", "comma-separated proxy networks (CIDR) whose X-Forwarded-For names the client")
	lim := limitFlags(c)
	if code, ok := c.parse(args); !ok {
		return code
	}
	cfg := c.config(io)
	cfg.MCPHost = *mcpHost
	cfg.DatabaseReplicas = replicas
	cfg.AdminAddr = *adminAddr
	cfg.OpenSignup = *openSignup
	cfg.PrivacyFile, cfg.TermsFile = *privacyFile, *termsFile
	cfg.WidgetDomain = *widgetDomain
	trustedNets, err := clientip.ParseTrusted(*trusted)
	if err != nil {
		fmt.Fprintf(io.err, "takhtabush serve: --trusted-proxies: %v\n", err)
		return 2
	}
	cfg.TrustedProxies = trustedNets
	if cfg.Limits, err = lim.limits(); err != nil {
		fmt.Fprintf(io.err, "takhtabush serve: %v\n", err)
		return 2
	}
	cfg.MediaStore = *mediaStore
	for _, n := range []struct {
		flag, value string
		max         int64
		set         func(int64)
	}{
		{"media-quota-mib", *quotaMiB, 1 << 24, func(v int64) { cfg.MediaQuotaBytes = v << 20 }},
		{"max-open-uploads", *openUploads, 10000, func(v int64) { cfg.MaxOpenUploads = int(v) }},
		{"attachment-limit-mib", *attachMiB, 512, func(v int64) { cfg.MaxAttachmentBytes = v << 20 }},
	} {
		v, err := strconv.ParseInt(n.value, 10, 64)
		if err != nil || v < 1 || v > n.max {
			fmt.Fprintf(io.err, "takhtabush serve: --%s %q must be a whole number from 1 to %d\n", n.flag, n.value, n.max)
			return 2
		}
		n.set(v)
	}
	runners, err := strconv.Atoi(*jobRunners)
	if err != nil || runners < 0 || runners > 64 {
		fmt.Fprintf(io.err, "takhtabush serve: --job-runners %q must be a whole number from 0 to 64\n", *jobRunners)
		return 2
	}
	cfg.JobConcurrency = runners
	if runners == 0 {
		cfg.JobConcurrency = -1
	}
	cfg.SMTP = apiserver.SMTPConfig{Host: *smtpHost, Username: *smtpUser, Password: getenv("TAKHTABUSH_SMTP_PASSWORD"), From: *smtpFrom, TLS: *smtpTLS}
	if *smtpPort != "" {
		p, err := strconv.Atoi(*smtpPort)
		if err != nil || p < 1 || p > 65535 {
			fmt.Fprintf(io.err, "takhtabush serve: --smtp-port %q is not a port number\n", *smtpPort)
			return 2
		}
		cfg.SMTP.Port = p
	}
	log := cfg.Logger

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fail(io, "serve", err)
	}
	cfg.Addr = ln.Addr().String() // a :0 port becomes the real one
	var admin net.Listener
	if cfg.AdminAddr != "" {
		if admin, err = net.Listen("tcp", cfg.AdminAddr); err != nil {
			ln.Close()
			return fail(io, "serve", err)
		}
	}
	app, err := apiserver.New(ctx, cfg)
	if err != nil {
		ln.Close()
		if admin != nil {
			admin.Close()
		}
		return fail(io, "serve", err)
	}
	defer app.Close()
	cfg = app.Config()

	if cfg.Development() {
		owner, err := app.Bootstrap(ctx)
		if err != nil {
			return fail(io, "serve", err)
		}
		signIn, _, err := app.LoginLink(ctx, owner.User.Email)
		if err != nil {
			log.Warn("no sign-in link for the owner", "err", err)
			signIn = ""
		}
		printDevBanner(io.out, cfg, owner, *c.db, signIn)
	} else {
		fmt.Fprintf(io.out, "Takhtabush MCP endpoint: %s\nWeb app: %s/ (sign in by email; `takhtabush users login-link --email E` prints a link)\n", cfg.MCPURL(), cfg.BaseURL)
	}
	log.Info("serving", "addr", ln.Addr().String(), "base_url", cfg.BaseURL, "environment", cfg.Environment,
		"dev_no_auth", cfg.DevMode(), "mcp_host", cfg.MCPHost, "admin_addr", cfg.AdminAddr,
		"email_sign_in", signInMode(cfg), "open_signup", cfg.OpenSignup)
	if err := app.Serve(ctx, ln, admin); err != nil {
		return fail(io, "serve", err)
	}
	log.Info("stopped")
	return 0
}

// stdioCmd serves MCP on stdin/stdout for the user of TAKHTABUSH_API_KEY.
func stdioCmd(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	c := newCommon("stdio", io, getenv, "warn")
	toolsets := c.str("toolsets", "TAKHTABUSH_TOOLSETS", "", "comma-separated toolsets to serve (study, library, notes, exchange, admin, or all); default: the account's")
	if code, ok := c.parse(args); !ok {
		return code
	}
	c.stdioToolsets = mcpcore.ParseToolsets(*toolsets)
	app, ok := c.open(ctx, io)
	if !ok {
		return 1
	}
	defer app.Close()
	if err := app.ServeStdio(ctx, getenv("TAKHTABUSH_API_KEY"), io.in, io.out); err != nil && ctx.Err() == nil {
		return fail(io, "stdio", err)
	}
	return 0
}

// migrateCmd applies the migrations (opening the store does) and exits.
func migrateCmd(ctx context.Context, args []string, io stdio, getenv func(string) string) int {
	c := newCommon("migrate", io, getenv, "warn")
	if code, ok := c.parse(args); !ok {
		return code
	}
	app, ok := c.open(ctx, io)
	if !ok {
		return 1
	}
	app.Close()
	fmt.Fprintln(io.err, "migrations applied")
	return 0
}

// signInMode says how sign-in links reach people.
func signInMode(cfg apiserver.Config) string {
	switch {
	case cfg.SMTP.Host != "":
		return "smtp"
	case cfg.DevMailer():
		return "development: links logged and shown on the page"
	}
	return "off (no --smtp-host); users login-link still works"
}
