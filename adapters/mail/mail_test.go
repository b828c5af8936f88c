package mail_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/mail"
	"github.com/takhtabush/takhtabush/adapters/mail/smtptest"
	"github.com/takhtabush/takhtabush/contracts"
)

// The SMTP mailer delivers a plain-text message, authenticating when told
// to; the receiving server sees sender, recipient, subject and body.
func TestSMTPDelivers(t *testing.T) {
	srv, err := smtptest.Start("mailer", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	m, err := mail.NewSMTP(mail.SMTPConfig{Host: srv.Host, Port: srv.Port, Username: "mailer", Password: "s3cret",
		From: "Takhtabush <login@t.example>", TLS: mail.TLSNone})
	if err != nil {
		t.Fatal(err)
	}
	body := "Sign in: https://t.example/login?token=abc_DEF-123&next=%2Fdecks\nÜmlaut and a long line " + strings.Repeat("x", 120)
	if err := m.Send(context.Background(), "alice@example.com", "Your sign-in link", body); err != nil {
		var e *contracts.Error
		if errors.As(err, &e) {
			t.Fatalf("%v: %v", err, e.Err)
		}
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msgs, err := srv.Wait(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := msgs[0]
	if got.From != "login@t.example" || len(got.To) != 1 || got.To[0] != "alice@example.com" {
		t.Errorf("envelope from %q to %v", got.From, got.To)
	}
	if s := got.Header("Subject"); s != "Your sign-in link" {
		t.Errorf("subject %q", s)
	}
	if text := strings.ReplaceAll(got.Text(), "\r\n", "\n"); strings.TrimSpace(text) != body {
		t.Errorf("body %q, want %q", text, body)
	}
}

// A wrong password or an unreachable server is "unavailable" with a
// message that names neither the password nor the server's reply.
func TestSMTPFailures(t *testing.T) {
	srv, err := smtptest.Start("mailer", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for name, cfg := range map[string]mail.SMTPConfig{
		"wrong password": {Host: srv.Host, Port: srv.Port, Username: "mailer", Password: "wrong-pass", From: "a@t.example", TLS: mail.TLSNone, Timeout: 3 * time.Second},
		"nobody there":   {Host: "127.0.0.1", Port: 1, From: "a@t.example", TLS: mail.TLSNone, Timeout: 3 * time.Second},
		"starttls only":  {Host: srv.Host, Port: srv.Port, From: "a@t.example", Timeout: 3 * time.Second},
	} {
		m, err := mail.NewSMTP(cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = m.Send(context.Background(), "bob@example.com", "s", "b")
		if !contracts.IsKind(err, contracts.KindUnavailable) || strings.Contains(contracts.MessageOf(err), "wrong-pass") {
			t.Errorf("%s: %v, want unavailable without the password", name, err)
		}
	}
	if len(srv.Messages()) != 0 {
		t.Errorf("a message got through: %v", srv.Messages())
	}
	m, _ := mail.NewSMTP(mail.SMTPConfig{Host: srv.Host, Port: srv.Port, From: "a@t.example", TLS: mail.TLSNone})
	if err := m.Send(context.Background(), "not an address", "s", "b"); !contracts.IsKind(err, contracts.KindInvalid) {
		t.Errorf("bad recipient: %v, want invalid", err)
	}
}

// Bad configurations are refused before any connection.
func TestSMTPConfig(t *testing.T) {
	for name, cfg := range map[string]mail.SMTPConfig{
		"no host":           {From: "a@t.example"},
		"no sender":         {Host: "smtp.t.example"},
		"bad sender":        {Host: "smtp.t.example", From: "not an address"},
		"bad TLS mode":      {Host: "smtp.t.example", From: "a@t.example", TLS: "maybe"},
		"user, no pass":     {Host: "smtp.t.example", From: "a@t.example", Username: "u"},
		"port out of range": {Host: "smtp.t.example", From: "a@t.example", Port: 70000},
	} {
		if _, err := mail.NewSMTP(cfg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// The log mailer writes the message to the log.
func TestLogMailer(t *testing.T) {
	var buf bytes.Buffer
	l := mail.NewLog(slog.New(slog.NewTextHandler(&buf, nil)))
	if err := l.Send(context.Background(), "a@example.com", "Sign in", "https://x.example/login?token=T"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "https://x.example/login?token=T") || !strings.Contains(buf.String(), "a@example.com") {
		t.Errorf("log: %s", buf.String())
	}
}
