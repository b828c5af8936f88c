package mcpcore

import (
	"context"
	"net/http"
)

// Handle serves one JSON-RPC message (or 2025-03-26 batch) in process and
// returns the response bytes, or nil when the message needs no response.
// Progress and log notifications are dropped; requests to the client are
// not possible. A principal in ctx applies.
func (s *Server) Handle(ctx context.Context, msg []byte) []byte {
	return s.HandleStream(ctx, msg, nil, nil)
}

// HandleStream is Handle with HTTP-style headers (for the era and header
// checks; nil for none) and a callback receiving every message sent before
// the response (notifications; requests to the client fail).
func (s *Server) HandleStream(ctx context.Context, msg []byte, header http.Header, notify func(msg []byte)) []byte {
	tr := transport{scope: "memory"}
	if header != nil {
		tr.header = header
	}
	if notify != nil {
		tr.out = funcOut(notify)
	}
	rep := s.handle(ctx, msg, &tr)
	var out []byte
	if rep.body != nil {
		out = append([]byte(nil), rep.body...)
	}
	rep.release()
	return out
}

type funcOut func(msg []byte)

func (f funcOut) send(msg []byte) error {
	f(append([]byte(nil), msg...))
	return nil
}

func (f funcOut) requests() bool { return false }
