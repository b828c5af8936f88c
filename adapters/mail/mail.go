// Package mail holds the mailers behind ports.Mailer: SMTP (through
// github.com/wneessen/go-mail) for real deployments, and a log mailer for
// development on one's own machine that writes each message to the log.
package mail

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// TLS modes of the SMTP connection.
const (
	TLSStartTLS = "starttls" // STARTTLS required (the default; port 587)
	TLSImplicit = "tls"      // TLS from the first byte (port 465)
	TLSNone     = "none"     // plain text: only for a relay on the same host or network
)

// SMTPConfig configures the SMTP mailer.
type SMTPConfig struct {
	Host     string // the mail server's host name (required)
	Port     int    // default: 587, or 465 with TLSImplicit, 25 with TLSNone
	Username string // with Password: authenticate (the best mechanism the server offers)
	Password string
	From     string // the sender address (required), e.g. "Takhtabush <login@takhtabush.example>"
	TLS      string // TLSStartTLS (default), TLSImplicit or TLSNone
	Timeout  time.Duration
	// RootCAs, when set, replaces the system's trusted roots (tests).
	TLSConfig *tls.Config
}

// SMTP sends mail through one SMTP server.
type SMTP struct {
	cfg  SMTPConfig
	from *mail.Address
}

var _ ports.Mailer = (*SMTP)(nil)

// NewSMTP checks cfg and returns the mailer. It does not connect.
func NewSMTP(cfg SMTPConfig) (*SMTP, error) {
	cfg.Host = strings.TrimSpace(cfg.Host)
	if cfg.Host == "" {
		return nil, fmt.Errorf("smtp: a host is required")
	}
	from, err := mail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("smtp: the sender address %q is not valid: %v", cfg.From, err)
	}
	switch cfg.TLS = strings.ToLower(strings.TrimSpace(cfg.TLS)); cfg.TLS {
	case "":
		cfg.TLS = TLSStartTLS
	case TLSStartTLS, TLSImplicit, TLSNone:
	default:
		return nil, fmt.Errorf("smtp: TLS mode %q: use starttls, tls or none", cfg.TLS)
	}
	if cfg.Port == 0 {
		cfg.Port = map[string]int{TLSStartTLS: 587, TLSImplicit: 465, TLSNone: 25}[cfg.TLS]
	}
	if cfg.Port < 1 || cfg.Port > 65535 {
		return nil, fmt.Errorf("smtp: port %d out of range", cfg.Port)
	}
	if (cfg.Username == "") != (cfg.Password == "") {
		return nil, fmt.Errorf("smtp: give both a user and a password, or neither")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 15 * time.Second
	}
	return &SMTP{cfg: cfg, from: from}, nil
}

// Send delivers one plain-text message through the server.
func (s *SMTP) Send(ctx context.Context, toAddr, subject, body string) error {
	to, err := mail.ParseAddress(toAddr)
	if err != nil {
		return contracts.Errorf(contracts.KindInvalid, "the address %q is not a valid email address", toAddr)
	}
	m := gomail.NewMsg()
	if err := m.FromFormat(s.from.Name, s.from.Address); err != nil {
		return contracts.Errorf(contracts.KindInvalid, "sender address refused")
	}
	if err := m.To(to.Address); err != nil {
		return contracts.Errorf(contracts.KindInvalid, "the address %q is not a valid email address", toAddr)
	}
	m.Subject(subject)
	m.SetBodyString(gomail.TypeTextPlain, body)
	opts := []gomail.Option{gomail.WithPort(s.cfg.Port), gomail.WithTimeout(s.cfg.Timeout)}
	switch s.cfg.TLS {
	case TLSImplicit:
		opts = append(opts, gomail.WithSSL())
	case TLSNone:
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.cfg.TLSConfig != nil {
		opts = append(opts, gomail.WithTLSConfig(s.cfg.TLSConfig))
	}
	if s.cfg.Username != "" {
		auth := gomail.SMTPAuthAutoDiscover // the best mechanism the server offers over TLS
		if s.cfg.TLS == TLSNone {
			// Without TLS, the password goes in the clear: the operator chose
			// that for a relay on the same host or a private network.
			auth = gomail.SMTPAuthPlainNoEnc
		}
		opts = append(opts, gomail.WithSMTPAuth(auth),
			gomail.WithUsername(s.cfg.Username), gomail.WithPassword(s.cfg.Password))
	}
	c, err := gomail.NewClient(s.cfg.Host, opts...)
	if err != nil {
		return &contracts.Error{Kind: contracts.KindUnavailable, Message: "the mail server is not configured correctly", Err: err}
	}
	if err := c.DialAndSendWithContext(ctx, m); err != nil {
		// The cause (server reply, connection error) goes to the log through
		// Err; it never holds the password.
		return &contracts.Error{Kind: contracts.KindUnavailable, Message: "the mail server could not take the message; try again shortly", Err: err}
	}
	return nil
}

// Log is the development mailer: it writes each message, link included, to
// the log. Use it only for a development server on one's own machine.
type Log struct{ log *slog.Logger }

var _ ports.Mailer = Log{}

// NewLog returns the log mailer.
func NewLog(log *slog.Logger) Log { return Log{log: log} }

// Send logs the message.
func (l Log) Send(ctx context.Context, to, subject, body string) error {
	l.log.LogAttrs(ctx, slog.LevelInfo, "development mailer: message not sent, logged instead",
		slog.String("to", to), slog.String("subject", subject), slog.String("text", body))
	return nil
}
