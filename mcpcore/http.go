package mcpcore

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// HTTPOptions configures the Streamable HTTP handler.
type HTTPOptions struct {
	// MaxBodyBytes bounds a request body (default 4 MiB); larger gets 413.
	MaxBodyBytes int64
	// AllowedHosts lists accepted Host values besides loopback names
	// (localhost, 127.0.0.1, [::1], any port): "api.example.com" accepts any
	// port, "api.example.com:8443" only that one, "*" any host.
	AllowedHosts []string
	// AllowedOrigins lists accepted Origin values ("https://app.example.com")
	// besides loopback origins; "*" accepts any. A request without Origin is accepted.
	AllowedOrigins []string
	// ResourceMetadataURL is named in the WWW-Authenticate challenge of an
	// insufficient-scope 403.
	ResourceMetadataURL string
	// BrowserHandler serves a GET whose Accept includes text/html (a setup
	// page); otherwise GET answers 405.
	BrowserHandler http.Handler
	// RequestContext, when set, derives the context of each request (request
	// ids, tracing, the principal).
	RequestContext func(r *http.Request) context.Context
}

type httpHandler struct {
	srv  *Server
	opts HTTPOptions
}

// NewHTTPHandler serves srv over stateless Streamable HTTP: POST only, JSON
// responses (an SSE stream only when the handler emits progress, logs or,
// in the handshake era, requests to the client), no Mcp-Session-Id ever.
// Put the authenticated principal in the request context (WithPrincipal)
// before this handler, or through HTTPOptions.RequestContext.
func NewHTTPHandler(srv *Server, opts HTTPOptions) http.Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 4 << 20
	}
	return &httpHandler{srv: srv, opts: opts}
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !HostAllowed(r.Host, h.opts.AllowedHosts) {
		transportError(w, http.StatusMisdirectedRequest, CodeInvalidRequest, "Host not allowed")
		return
	}
	if o := headerValue(r.Header, "Origin"); o != "" && !OriginAllowed(o, h.opts.AllowedOrigins) {
		transportError(w, http.StatusForbidden, CodeInvalidRequest, "Origin not allowed")
		return
	}
	if r.Method != http.MethodPost {
		if r.Method == http.MethodGet && h.opts.BrowserHandler != nil && strings.Contains(r.Header.Get("Accept"), "text/html") {
			h.opts.BrowserHandler.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Allow", http.MethodPost)
		transportError(w, http.StatusMethodNotAllowed, CodeInvalidRequest, "Method not allowed: use POST")
		return
	}
	if !isJSONContentType(headerValue(r.Header, "Content-Type")) {
		transportError(w, http.StatusUnsupportedMediaType, CodeInvalidRequest, "Content-Type must be application/json")
		return
	}
	if r.ContentLength > h.opts.MaxBodyBytes {
		transportError(w, http.StatusRequestEntityTooLarge, CodeInvalidRequest, "Request body too large")
		return
	}
	bp := getBuf()
	defer func() { *bp = (*bp)[:0]; bufPool.Put(bp) }()
	body, err := readBody(r.Body, (*bp)[:0], h.opts.MaxBodyBytes)
	*bp = body
	if err != nil {
		if errors.Is(err, errBodyTooLarge) {
			transportError(w, http.StatusRequestEntityTooLarge, CodeInvalidRequest, "Request body too large")
		} else {
			transportError(w, http.StatusBadRequest, CodeParseError, "Parse error: could not read body")
		}
		return
	}
	ctx := r.Context()
	if h.opts.RequestContext != nil {
		ctx = h.opts.RequestContext(r)
	}
	if r.Header.Get("Mcp-Protocol-Version") != VersionModern {
		// In the handshake era a disconnect is not a cancellation
		// (notifications/cancelled is); tool timeouts still bound the work.
		ctx = context.WithoutCancel(ctx)
	}
	// notifications/cancelled names a request id, unique per client: the
	// scope keeps one credential's ids apart from another's.
	scope := "http"
	if p, ok := ctx.Value(principalKey{}).(*Principal); ok && p != nil {
		scope = "http:" + p.UserID + ":" + p.CredentialKind + ":" + p.CredentialID
	}
	// One allocation for both: handlers may keep the stream, so it is not pooled.
	c := &httpCall{out: httpOut{w: w}}
	hdr := r.Header
	if hdr == nil {
		hdr = http.Header{} // nil means "not HTTP" to the engine
	}
	c.tr = transport{header: hdr, out: &c.out, scope: scope}
	rep := h.srv.handle(ctx, body, &c.tr)
	c.out.finish(&rep, h.opts.ResourceMetadataURL)
	rep.release()
}

// httpCall is the transport state of one POST.
type httpCall struct {
	out httpOut
	tr  transport
}

// isJSONContentType accepts application/json with optional parameters,
// without allocating for the common forms.
func isJSONContentType(ct string) bool {
	if ct == "application/json" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

var errBodyTooLarge = errors.New("body too large")

// readBody reads r into buf, failing past max bytes.
func readBody(r io.Reader, buf []byte, max int64) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return buf, errBodyTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// transportError answers a transport-level failure with a JSON-RPC error body (id null).
func transportError(w http.ResponseWriter, status, code int, msg string) {
	WriteHTTPError(w, status, &Error{Code: code, Message: msg})
}

// WriteHTTPError answers an HTTP request that never reached dispatch with
// status and e as a JSON-RPC error (id null, data only when e has some).
// It is the one JSON-RPC error body of the HTTP transport: the engine uses
// it, and so do the layers in front of it (authentication, host checks).
func WriteHTTPError(w http.ResponseWriter, status int, e *Error) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Del("Content-Length")
	w.WriteHeader(status)
	b := append([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":`), []byte(itoa(e.Code))...)
	b = append(b, `,"message":`...)
	b = appendString(b, e.Message)
	if e.Data != nil {
		if data, err := json.Marshal(e.Data); err == nil {
			b = append(append(b, `,"data":`...), data...)
		}
	}
	w.Write(append(b, "}}"...))
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// httpOut answers one POST: a JSON body by default, upgraded to an SSE
// stream when something must be sent before the final response.
type httpOut struct {
	mu     sync.Mutex
	w      http.ResponseWriter
	sse    bool
	closed bool
}

var errStreamClosed = errors.New("mcpcore: response stream closed")

func (o *httpOut) send(msg []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return errStreamClosed
	}
	if !o.sse {
		hd := o.w.Header()
		hd.Set("Content-Type", "text/event-stream")
		hd.Set("Cache-Control", "no-cache")
		hd.Set("X-Accel-Buffering", "no")
		o.w.WriteHeader(http.StatusOK)
		o.sse = true
	}
	return o.writeEvent(msg)
}

func (o *httpOut) requests() bool { return true }

func (o *httpOut) writeEvent(msg []byte) error {
	if _, err := io.WriteString(o.w, "event: message\ndata: "); err != nil {
		return err
	}
	if _, err := o.w.Write(msg); err != nil {
		return err
	}
	if _, err := io.WriteString(o.w, "\n\n"); err != nil {
		return err
	}
	return http.NewResponseController(o.w).Flush()
}

func (o *httpOut) finish(rep *reply, resourceMetadata string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	if o.sse {
		if rep.body != nil {
			o.writeEvent(rep.body)
		}
		return
	}
	hd := o.w.Header()
	if rep.body == nil {
		o.w.WriteHeader(http.StatusAccepted)
		return
	}
	hd.Set("Content-Type", "application/json")
	if rep.challenge != nil {
		c := `Bearer error="insufficient_scope", scope="` + strings.Join(rep.challenge, " ") + `"`
		if resourceMetadata != "" {
			c += `, resource_metadata="` + resourceMetadata + `"`
		}
		hd.Set("WWW-Authenticate", c)
	}
	if rep.retry > 0 {
		hd.Set("Retry-After", strconv.Itoa(rep.retry))
	}
	o.w.WriteHeader(rep.status)
	o.w.Write(rep.body)
}
