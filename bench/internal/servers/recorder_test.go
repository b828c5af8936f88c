package servers

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// recorder is a minimal, reusable http.ResponseWriter for in-process calls.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}

// Flush makes the recorder an http.Flusher, as a real connection is.
func (r *recorder) Flush() {}

func (r *recorder) reset() {
	clear(r.header)
	r.status = 0
	r.body.Reset()
}

func (r *recorder) response() *scenario.Response {
	return &scenario.Response{Status: r.status, ContentType: r.header.Get("Content-Type"), Body: r.body.Bytes()}
}

// caller issues requests to a handler without a network.
type caller struct {
	tmpl *http.Request
	rd   bytes.Reader
	rec  recorder
}

func newCaller(ctx context.Context, extra http.Header) (*caller, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1/mcp", nil)
	if err != nil {
		return nil, err
	}
	req.Header = scenario.Header()
	for k, v := range extra {
		req.Header[k] = v
	}
	req.RemoteAddr = "127.0.0.1:40000"
	return &caller{tmpl: req, rec: recorder{header: http.Header{}}}, nil
}

// call serves one request with body; the returned response is valid until
// the next call.
func (c *caller) call(h http.Handler, body []byte) *scenario.Response {
	c.rec.reset()
	c.rd.Reset(body)
	req := *c.tmpl
	req.Body = io.NopCloser(&c.rd)
	req.ContentLength = int64(len(body))
	h.ServeHTTP(&c.rec, &req)
	return c.rec.response()
}
