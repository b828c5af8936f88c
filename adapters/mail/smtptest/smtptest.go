// Package smtptest runs a small SMTP server (github.com/emersion/go-smtp)
// on a loopback port that keeps every message it receives, for tests of
// the mailers and of the sign-in flow.
package smtptest

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one received message.
type Message struct {
	From string
	To   []string
	Raw  string // the message as transmitted (headers and body)
}

// Header returns a header of the message ("" when absent or unparsable).
func (m Message) Header(name string) string {
	msg, err := mail.ReadMessage(strings.NewReader(m.Raw))
	if err != nil {
		return ""
	}
	dec := new(mime.WordDecoder)
	v, err := dec.DecodeHeader(msg.Header.Get(name))
	if err != nil {
		return msg.Header.Get(name)
	}
	return v
}

// Text returns the decoded body of a single-part text message.
func (m Message) Text() string {
	msg, err := mail.ReadMessage(strings.NewReader(m.Raw))
	if err != nil {
		return ""
	}
	var r io.Reader = msg.Body
	switch strings.ToLower(msg.Header.Get("Content-Transfer-Encoding")) {
	case "quoted-printable":
		r = quotedprintable.NewReader(r)
	case "base64":
		r = base64.NewDecoder(base64.StdEncoding, r)
	}
	b, _ := io.ReadAll(r)
	return string(b)
}

// Server is a running test SMTP server.
type Server struct {
	Host string // 127.0.0.1
	Port int

	user, password string
	srv            *smtp.Server
	mu             sync.Mutex
	msgs           []Message
	arrived        chan struct{}
}

// Start runs a server on a free loopback port. With a user and password it
// requires PLAIN authentication (allowed without TLS, as on loopback).
func Start(user, password string) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port, user: user, password: password, arrived: make(chan struct{}, 1)}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }))
	s.srv.Domain = "localhost"
	s.srv.AllowInsecureAuth = true
	s.srv.ReadTimeout = 10 * time.Second
	s.srv.WriteTimeout = 10 * time.Second
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Messages returns what arrived so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Wait returns the messages once at least n arrived, or fails when ctx ends.
func (s *Server) Wait(ctx context.Context, n int) ([]Message, error) {
	for {
		if m := s.Messages(); len(m) >= n {
			return m, nil
		}
		select {
		case <-s.arrived:
		case <-ctx.Done():
			return s.Messages(), errors.New("smtptest: fewer messages arrived than expected")
		}
	}
}

type session struct {
	s      *Server
	authed bool
	from   string
	to     []string
}

func (c *session) AuthMechanisms() []string {
	if c.s.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (c *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, password string) error {
		if user != c.s.user || password != c.s.password {
			return errors.New("invalid credentials")
		}
		c.authed = true
		return nil
	}), nil
}

func (c *session) Mail(from string, _ *smtp.MailOptions) error {
	if c.s.user != "" && !c.authed {
		return smtp.ErrAuthRequired
	}
	c.from = from
	return nil
}

func (c *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	c.to = append(c.to, to)
	return nil
}

func (c *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	c.s.mu.Lock()
	c.s.msgs = append(c.s.msgs, Message{From: c.from, To: c.to, Raw: string(b)})
	c.s.mu.Unlock()
	select {
	case c.s.arrived <- struct{}{}:
	default:
	}
	return nil
}

func (c *session) Reset()        { c.from, c.to = "", nil }
func (c *session) Logout() error { return nil }
