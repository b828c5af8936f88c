package apiserver

import (
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/adapters/sqlcount"
	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/ports"
)

// Defaults.
const (
	DefaultAddr         = "127.0.0.1:8080"
	DefaultDatabaseURL  = "sqlite:./data/takhtabush.db"
	DefaultMaxBodyBytes = 8 << 20
	// DefaultRequestTimeout bounds a request: above the database's own
	// bounds, so a stalled database answers "unavailable" first.
	DefaultRequestTimeout = 30 * time.Second
	EnvDevelopment        = "development"
	// DefaultJobRunners is how many long jobs one instance runs at once
	// (Config.JobConcurrency, serve --job-runners).
	DefaultJobRunners = background.DefaultJobRunners
)

// Config configures the service. The zero value plus a DatabaseURL is a
// production-safe configuration on 127.0.0.1:8080.
type Config struct {
	// DatabaseURL picks the store: "sqlite:PATH" or "postgres://…".
	DatabaseURL string
	// DatabaseReplicas are postgres:// URLs of streaming read replicas of
	// DatabaseURL (Postgres only): reads that tolerate a little lag go
	// there (see postgres.Routed).
	DatabaseReplicas []string
	// Addr is the listen address; it also gives the default BaseURL.
	Addr string
	// BaseURL is the public origin (scheme://host[:port]); default http://Addr.
	BaseURL string
	// MCPHost is a host name whose bare origin also serves MCP.
	MCPHost string
	// WidgetDomain is the dedicated origin the study widget is served
	// from in hosts that sandbox per domain (MCP Apps ui.domain, in the
	// host's own format); empty sends none.
	WidgetDomain string
	// StdioToolsets are the toolsets `takhtabush stdio` serves, "all" for
	// every one; none leaves the choice to the account's default.
	StdioToolsets []string
	// PrivacyFile and TermsFile, when set, are HTML fragments the
	// operator wrote that replace the built-in /privacy and /terms text.
	PrivacyFile, TermsFile string
	// AdminAddr, when set, serves /metrics on its own listener instead of
	// to loopback clients of the main one.
	AdminAddr string
	// Environment is ENVIRONMENT; "development" enables DevNoAuth.
	Environment string
	// DevNoAuth is MCP_DEV_NO_AUTH; it has no effect outside development.
	DevNoAuth bool
	// DevUserEmail is MCP_DEV_USER_EMAIL, the development account
	// (owner@localhost by default).
	DevUserEmail string
	// Secret is the server key for CSRF tokens, shared by every instance.
	// When empty, a SQLite deployment keeps a generated key in a file next
	// to the database, and any other uses a random per-process key (set it
	// when running several instances).
	Secret string
	// KeyPepper, when set, keys API key hashes with HMAC-SHA-256. Changing
	// it invalidates every key.
	KeyPepper string
	// KeyRecheck is how often stdio serving checks its API key again, so a
	// revoked or expired key stops working (default 30 s).
	KeyRecheck time.Duration
	// MediaDir is where uploaded media files are kept with the "fs"
	// media store (default: a "media" folder next to a SQLite database,
	// ./data/media otherwise).
	MediaDir string
	// MediaStore picks where media bytes live: "fs" (files in MediaDir),
	// "db" (the Postgres database, which every instance behind a load
	// balancer shares), or "" for db on Postgres and fs on SQLite.
	MediaStore string
	// MediaQuotaBytes is each account's media storage (default 1 GiB).
	MediaQuotaBytes int64
	// MaxOpenUploads caps an account's open upload intents (default 20).
	MaxOpenUploads int
	// MaxAttachmentBytes bounds a zip or text upload (default and at most
	// 512 MiB).
	MaxAttachmentBytes int64

	// Version is reported as the MCP serverInfo version.
	Version string
	// MaxBodyBytes bounds request bodies (default 8 MiB).
	MaxBodyBytes int64
	// RequestTimeout bounds one tool call or REST request, database waits
	// included (default DefaultRequestTimeout).
	RequestTimeout time.Duration
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// SMTP configures the mailer of sign-in links. Without a host, email
	// sign-in is off, except in development on a loopback address, where
	// the links are logged and shown on the page instead.
	SMTP SMTPConfig
	// OpenSignup lets anyone create an account by asking for a sign-in
	// link; without it, only existing accounts can sign in.
	OpenSignup bool
	// Clock tells the domain the time; nil is the system clock (tests set
	// a fake one to expire keys and sessions).
	Clock ports.Clock
	// ClientDocuments fetches OAuth client ID metadata documents; nil is
	// the guarded HTTPS fetcher (public addresses only). Tests pass one
	// whose loopback allowance they turned on, which works in tests only.
	ClientDocuments ports.ClientDocumentFetcher
	// StatementCounter, when set, counts the statements and transactions
	// the store runs (statement budget tests, benchmarks).
	StatementCounter *sqlcount.Counter
	// JobConcurrency is how many long jobs (imports, optimisations) one
	// instance runs at once (default DefaultJobRunners, 2;
	// negative: this process runs none, another instance does).
	JobConcurrency int
	// JobTimeout bounds one run of a long job (default 30 m).
	JobTimeout time.Duration
	// Limits bound what one credential or one account may do (zero fields:
	// the defaults).
	Limits Limits
	// TrustedProxies are the proxy networks whose X-Forwarded-For is
	// believed: a request whose peer is in one of them comes from the
	// first address, reading that header from the right, outside them.
	// Without any, the client is the connection's peer.
	TrustedProxies []netip.Prefix
}

// Default per-credential limits (the per-account quota and caps are the
// domain's: domain.DefaultDailyWrites, DefaultMaxCards, DefaultMaxDecks,
// DefaultMaxKeys).
const (
	DefaultRatePerSecond = 200
	DefaultBurst         = 400
	DefaultConcurrent    = 64
)

// Default per-account rate and concurrency limits: all of one account's
// keys, OAuth grants and web sessions together (per instance).
const (
	DefaultAccountRatePerSecond = 400
	DefaultAccountBurst         = 800
	DefaultAccountConcurrent    = 128
)

// Limits are the limits every request meets before any work is done for
// it. A zero field takes its default; a negative one means no limit.
type Limits struct {
	// RatePerSecond and Burst are each credential's token bucket: requests
	// a second on /mcp and /api/, with bursts of Burst (per instance).
	RatePerSecond float64
	Burst         int
	// Concurrent bounds each credential's requests in flight (per instance).
	Concurrent int
	// AccountRatePerSecond, AccountBurst and AccountConcurrent are the same
	// limits for all of one account's credentials together (per instance):
	// minting more keys buys no more.
	AccountRatePerSecond float64
	AccountBurst         int
	AccountConcurrent    int
	// DailyWrites bounds each account's cards added, reviews and uploads in
	// its learner's day (shared by every instance, in the database).
	DailyWrites int
	// MaxCards and MaxDecks cap what one account holds (imports count
	// against MaxCards, not DailyWrites).
	MaxCards int
	MaxDecks int
	// MaxKeys caps the live API keys one account holds (counted in the
	// database, so every instance agrees).
	MaxKeys int
}

// normalize fills the defaults; negative values stay (no limit).
func (l Limits) normalize() Limits {
	if l.RatePerSecond == 0 {
		l.RatePerSecond = DefaultRatePerSecond
	}
	if l.Burst == 0 {
		l.Burst = DefaultBurst
	}
	if l.Concurrent == 0 {
		l.Concurrent = DefaultConcurrent
	}
	if l.AccountRatePerSecond == 0 {
		l.AccountRatePerSecond = DefaultAccountRatePerSecond
	}
	if l.AccountBurst == 0 {
		l.AccountBurst = DefaultAccountBurst
	}
	if l.AccountConcurrent == 0 {
		l.AccountConcurrent = DefaultAccountConcurrent
	}
	return l
}

// DevMode reports whether requests without a credential act as the
// development account: ENVIRONMENT=development and MCP_DEV_NO_AUTH=true.
func (c Config) DevMode() bool { return c.Development() && c.DevNoAuth }

// Development reports whether ENVIRONMENT is development.
func (c Config) Development() bool { return c.Environment == EnvDevelopment }

// normalize fills the defaults and checks the URLs.
func (c Config) normalize() (Config, error) {
	if c.Addr == "" {
		c.Addr = DefaultAddr
	}
	if c.DatabaseURL == "" {
		c.DatabaseURL = DefaultDatabaseURL
	}
	if c.DevUserEmail == "" {
		c.DevUserEmail = auth.DefaultDevUserEmail
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	c.Limits = c.Limits.normalize()
	if c.KeyRecheck <= 0 {
		c.KeyRecheck = 30 * time.Second
	}
	if c.MediaDir == "" {
		c.MediaDir = filepath.Join("data", "media")
		if kind, target, err := parseDatabaseURL(c.DatabaseURL); err == nil && kind == dbSQLite {
			c.MediaDir = filepath.Join(filepath.Dir(target), "media")
		}
	}
	switch c.MediaStore {
	case "", mediaStoreFS, mediaStoreDB:
	default:
		return c, fmt.Errorf("media store %q must be fs or db", c.MediaStore)
	}
	if c.DevMode() && !loopbackListen(c.Addr) {
		return c, fmt.Errorf("development mode (MCP_DEV_NO_AUTH=true) serves the owner account without a key, "+
			"so it listens on loopback only: --addr %q is not a loopback address (use 127.0.0.1:PORT, or leave development mode)", c.Addr)
	}
	if c.BaseURL == "" {
		c.BaseURL = "http://" + loopbackAddr(c.Addr)
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return c, fmt.Errorf("base URL %q must be an origin like https://takhtabush.example", c.BaseURL)
	}
	c.BaseURL = strings.ToLower(u.Scheme + "://" + u.Host)
	c.MCPHost = strings.ToLower(strings.TrimSpace(c.MCPHost))
	if strings.ContainsAny(c.MCPHost, "/ :") {
		return c, fmt.Errorf("MCP host %q must be a bare host name", c.MCPHost)
	}
	return c, nil
}

// The media stores.
const (
	mediaStoreFS = "fs"
	mediaStoreDB = "db"
)

// loopbackListen reports whether the listen address addr binds loopback
// only: a loopback IP or the name localhost, never every interface.
func loopbackListen(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loopbackAddr turns a listen address into one a browser can reach: an
// unspecified host becomes 127.0.0.1.
func loopbackAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// devUser is the account a request without a credential acts as in
// development mode, and "" outside it.
func (c Config) devUser() string {
	if !c.DevMode() {
		return ""
	}
	return c.DevUserEmail
}

// MCPURL is the canonical MCP endpoint.
func (c Config) MCPURL() string { return c.BaseURL + "/mcp" }

// allowedHosts are the Host values the service answers besides loopback
// names: the base URL's host, the MCP host and the listen host.
func (c Config) allowedHosts() []string {
	var hosts []string
	if u, err := url.Parse(c.BaseURL); err == nil {
		hosts = append(hosts, u.Host, u.Hostname())
	}
	if c.MCPHost != "" {
		hosts = append(hosts, c.MCPHost)
	}
	if h, _, err := net.SplitHostPort(c.Addr); err == nil && h != "" {
		if ip := net.ParseIP(h); ip == nil || !ip.IsUnspecified() {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// allowedOrigins are the browser origins the MCP endpoint accepts besides
// loopback ones.
func (c Config) allowedOrigins() []string {
	origins := []string{c.BaseURL}
	if c.MCPHost != "" {
		origins = append(origins, "https://"+c.MCPHost)
	}
	return origins
}

// ambientOrigins are the extra origins from which a cookie (or
// development mode's no credential) may make unsafe requests: in
// development, the loopback forms of the listen port.
func (c Config) ambientOrigins() []string {
	if !c.Development() {
		return nil
	}
	_, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return nil
	}
	var out []string
	for _, h := range []string{"localhost", "127.0.0.1", "[::1]"} {
		out = append(out, "http://"+h+":"+port)
	}
	return out
}

// SMTPConfig is the mail server of the sign-in links.
type SMTPConfig struct {
	Host     string // TAKHTABUSH_SMTP_HOST; empty: no email sign-in (see Config.SMTP)
	Port     int    // TAKHTABUSH_SMTP_PORT; default by TLS mode: 587, 465 or 25
	Username string // TAKHTABUSH_SMTP_USER
	Password string // TAKHTABUSH_SMTP_PASSWORD (environment only)
	From     string // TAKHTABUSH_SMTP_FROM, e.g. "Takhtabush <login@takhtabush.example>"
	TLS      string // TAKHTABUSH_SMTP_TLS: starttls (default), tls or none
}

// DevMailer reports whether sign-in links go to the log and the page
// instead of a mail server: development mode, no SMTP host, and a
// loopback base URL (nobody else can reach the page).
func (c Config) DevMailer() bool {
	return c.SMTP.Host == "" && c.Development() && auth.InsecureLoopback(c.BaseURL)
}

// resource is an OAuth protected resource with the path that serves it.
type resource struct {
	auth.Resource
	Host string // the Host it is served on ("" for the base URL's)
	Path string // the MCP path on that host
}

// resources are the OAuth protected resources: <base>/mcp with its
// aliases /mcp/ and /mcp/oauth (the same audience), and the MCP host's
// bare origin (an audience of its own).
func (c Config) resources() []resource {
	var out []resource
	for _, p := range []string{"/mcp", "/mcp/", "/mcp/oauth"} {
		out = append(out, resource{Resource: auth.Resource{ID: c.BaseURL + p, MetadataURL: auth.MetadataURLFor(c.BaseURL, p)}, Path: p})
	}
	if c.MCPHost != "" {
		origin := "https://" + c.MCPHost
		out = append(out, resource{Resource: auth.Resource{ID: origin + "/", MetadataURL: auth.MetadataURLFor(origin, "/")}, Host: c.MCPHost, Path: "/"})
	}
	return out
}

// canonicalResource is the audience a resource identifier binds tokens
// to: <base>/mcp for it and its aliases, the identifier itself otherwise.
func (c Config) canonicalResource(id string) string {
	if strings.HasPrefix(id, c.BaseURL+"/mcp") {
		return c.MCPURL()
	}
	return id
}
