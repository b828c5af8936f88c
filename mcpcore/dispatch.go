package mcpcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// transport describes where a message came from and how to reach the
// client before the final response.
type transport struct {
	header http.Header // HTTP request headers; nil otherwise
	out    outbound    // stream for notifications and client requests; nil if none
	conn   *connState  // stdio connection state; nil for HTTP
	scope  string      // key separating callers in the in-process registries
}

// outbound carries messages to the client ahead of the final response.
type outbound interface {
	send(msg []byte) error
	// requests reports whether client responses can come back (so a
	// server-to-client request can be answered).
	requests() bool
}

// connState is what a stdio connection remembers from initialize.
type connState struct {
	mu       sync.Mutex
	version  string
	caps     []byte
	logLevel int
}

// reply is the engine's answer to one inbound message.
type reply struct {
	body      []byte // nil: nothing to send (notification or client response)
	status    int
	challenge []string // insufficient_scope challenge for OAuth principals
	retry     int      // seconds for a Retry-After header (0: none)
	modern    bool
	buf       *[]byte // pooled backing store of body
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func getBuf() *[]byte { return bufPool.Get().(*[]byte) }

// release returns the reply's buffer to the pool.
func (r *reply) release() {
	if r.buf != nil && cap(*r.buf) <= 1<<20 {
		*r.buf = (*r.buf)[:0]
		bufPool.Put(r.buf)
	}
	r.buf, r.body = nil, nil
}

// exchange carries one request through the engine. Exchanges are pooled:
// nothing a handler can reach points into one (handlers get copies of
// the fields they need), so it is recycled when the message is answered.
type exchange struct {
	s         *Server
	tr        *transport
	m         message
	p         params
	modern    bool
	version   string
	principal *Principal
	sel       selection // the tools the request chose, resolved on first use
}

var exchangePool = sync.Pool{New: func() any { return new(exchange) }}

// handle processes one transport message (a single message or, in the
// 2025-03-26 era, a batch) and returns the reply.
func (s *Server) handle(ctx context.Context, body []byte, tr *transport) reply {
	if !validJSON(body) {
		return s.errorReply(nil, &Error{Code: CodeParseError, Message: "Parse error"}, false)
	}
	i := skipWS(body, 0)
	if i < len(body) && body[i] == '[' {
		return s.handleBatch(ctx, body, tr)
	}
	return s.handleOne(ctx, body, tr)
}

func (s *Server) handleBatch(ctx context.Context, body []byte, tr *transport) reply {
	version := Version20250326
	if tr.header != nil {
		if hv := headerValue(tr.header, "Mcp-Protocol-Version"); hv != "" {
			version = hv
		}
	} else if tr.conn != nil {
		tr.conn.mu.Lock()
		if tr.conn.version != "" {
			version = tr.conn.version
		}
		tr.conn.mu.Unlock()
	}
	if version != Version20250326 {
		r := s.errorReply(nil, &Error{Code: CodeInvalidRequest, Message: "Invalid Request: batches are only accepted in protocol version 2025-03-26"}, false)
		r.status = http.StatusBadRequest
		return r
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(body, &elems); err != nil || len(elems) == 0 {
		r := s.errorReply(nil, &Error{Code: CodeInvalidRequest, Message: "Invalid Request: empty batch"}, false)
		r.status = http.StatusBadRequest
		return r
	}
	if len(elems) > MaxBatch {
		r := s.errorReply(nil, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("Invalid Request: a batch may hold at most %d messages", MaxBatch)}, false)
		r.status = http.StatusBadRequest
		return r
	}
	out := []byte{'['}
	for _, e := range elems {
		if len(out) > maxBatchResponse {
			// Answer the rest with an error instead of building an
			// unbounded response in memory.
			id := batchID(e)
			if id == nil {
				continue
			}
			r := s.errorReply(id, &Error{Code: CodeInternalError, Message: "batch response too large; send the rest again"}, false)
			out = append(append(out, ','), r.body...)
			r.release()
			continue
		}
		r := s.handleOne(ctx, e, tr)
		if r.body != nil {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, r.body...)
		}
		r.release()
	}
	if len(out) == 1 {
		return reply{status: http.StatusAccepted}
	}
	return reply{body: append(out, ']'), status: http.StatusOK}
}

// MaxBatch bounds the messages of one 2025-03-26 batch.
const MaxBatch = 50

// maxBatchResponse bounds the bytes a batch's responses may take before
// the remaining requests are refused.
const maxBatchResponse = 8 << 20

// batchID returns the id of a batch element that is a request, or nil.
func batchID(e []byte) []byte {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(e, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" {
		return nil
	}
	return m.ID
}

func (s *Server) handleOne(ctx context.Context, body []byte, tr *transport) reply {
	x := exchangePool.Get().(*exchange)
	rep := s.serveOne(ctx, x, body, tr)
	*x = exchange{}
	exchangePool.Put(x)
	return rep
}

// serveOne answers one message using the zeroed exchange x.
func (s *Server) serveOne(ctx context.Context, x *exchange, body []byte, tr *transport) reply {
	var echo []byte
	var perr *Error
	x.m, echo, perr = parseMessage(body)
	if perr != nil {
		return s.errorReply(echo, perr, false)
	}
	m := &x.m
	if m.response {
		s.pending.deliver(tr.scope, m.id, m.result, m.errorVal)
		return reply{status: http.StatusAccepted}
	}
	parseParams(m.params, &x.p)
	x.s, x.tr = s, tr
	if pr, ok := ctx.Value(principalKey{}).(*Principal); ok && pr != nil {
		x.principal = pr
	}
	x.modern = m.method == "server/discover" || x.p.metaVersion != nil
	if !x.modern && tr.header != nil && isModernVersion(headerValue(tr.header, "Mcp-Protocol-Version")) {
		x.modern = true
	}
	if m.id == nil {
		s.notification(x)
		return reply{status: http.StatusAccepted}
	}
	var err *Error
	if x.modern {
		err = x.modernChecks()
	} else {
		err = x.legacyChecks()
	}
	if err != nil {
		return s.errorReply(m.id, err, x.modern)
	}
	return x.dispatch(ctx)
}

// modernChecks applies the 2026-07-28 validation order: _meta, headers,
// version, then (in dispatch) the method.
func (x *exchange) modernChecks() *Error {
	p := &x.p
	var missing []string
	if kindOf(p.metaVersion) != '"' {
		missing = append(missing, metaProtocolVersion)
	}
	if kindOf(p.metaClientCaps) != '{' {
		missing = append(missing, metaClientCapabilities)
	}
	if missing != nil {
		msg := "Invalid params: missing _meta"
		if !p.hasMeta {
			msg = "Invalid params: _meta is required"
		}
		return errWithStatus(CodeInvalidParams, http.StatusBadRequest, msg, map[string]any{"missing": missing})
	}
	version, _ := jsonString(p.metaVersion)
	if err := checkModernHeaders(x.tr.header, &x.m, p, version); err != nil {
		return err
	}
	if !isModernVersion(version) {
		return errWithStatus(CodeUnsupportedProtocolVersion, http.StatusBadRequest, "Unsupported protocol version",
			map[string]any{"supported": supportedVersions, "requested": version})
	}
	x.version = version
	return nil
}

// legacyChecks validates the MCP-Protocol-Version header of the handshake era.
func (x *exchange) legacyChecks() *Error {
	x.version = Version20250326
	if x.tr.conn != nil {
		x.tr.conn.mu.Lock()
		if x.tr.conn.version != "" {
			x.version = x.tr.conn.version
		}
		x.tr.conn.mu.Unlock()
	}
	if x.tr.header == nil || x.m.method == "initialize" {
		return nil
	}
	hv := headerValue(x.tr.header, "Mcp-Protocol-Version")
	if hv == "" {
		return nil
	}
	if !isHandshakeVersion(hv) {
		return errWithStatus(CodeInvalidRequest, http.StatusBadRequest, "Bad Request: unsupported MCP-Protocol-Version "+strconv.Quote(hv),
			map[string]any{"supported": supportedVersions, "requested": hv})
	}
	x.version = hv
	return nil
}

// notification handles a message without id.
func (s *Server) notification(x *exchange) {
	switch x.m.method {
	case "notifications/cancelled":
		if id := validID(x.p.requestID); id != nil {
			s.inflight.cancel(x.tr.scope, id)
		}
	}
}

type methodFunc func(x *exchange, ctx context.Context, b []byte) ([]byte, error)

var (
	commonMethods = map[string]methodFunc{
		"tools/list":               (*exchange).toolsList,
		"tools/call":               (*exchange).toolsCall,
		"resources/list":           (*exchange).resourcesList,
		"resources/templates/list": (*exchange).templatesList,
		"resources/read":           (*exchange).resourcesRead,
		"prompts/list":             (*exchange).promptsList,
		"prompts/get":              (*exchange).promptsGet,
		"completion/complete":      (*exchange).complete,
	}
	legacyMethods = map[string]methodFunc{
		"initialize":            (*exchange).initialize,
		"ping":                  (*exchange).empty,
		"logging/setLevel":      (*exchange).setLevel,
		"resources/subscribe":   (*exchange).empty,
		"resources/unsubscribe": (*exchange).empty,
	}
	modernMethods = map[string]methodFunc{
		"server/discover": (*exchange).discover,
	}
)

func (x *exchange) dispatch(ctx context.Context) reply {
	s := x.s
	fn := commonMethods[x.m.method]
	if fn == nil {
		if x.modern {
			fn = modernMethods[x.m.method]
			if fn == nil && s.opts.Tasks != nil {
				fn = taskMethods[x.m.method]
			}
		} else {
			fn = legacyMethods[x.m.method]
		}
	}
	if fn == nil {
		return s.errorReply(x.m.id, &Error{Code: CodeMethodNotFound, Message: "Method not found: " + x.m.method}, x.modern)
	}
	if x.principal != nil {
		x.narrow(ctx)
		ctx = context.WithValue(ctx, principalKey{}, x.principal)
	}
	bp := getBuf()
	b := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	b = append(b, x.m.id...)
	b = append(b, `,"result":`...)
	b, err := fn(x, ctx, b)
	if err != nil {
		*bp = b[:0]
		bufPool.Put(bp)
		if err == errNoReply {
			if x.tr.header == nil {
				return reply{status: http.StatusAccepted} // stdio: a cancelled request gets no reply
			}
			// HTTP must answer the POST; the client has stopped waiting for it.
			err = &Error{Code: CodeInternalError, Message: "request cancelled by the client"}
		}
		var e *Error
		if !errors.As(err, &e) {
			x.s.logger.Error("mcpcore: method failed", "method", x.m.method, "err", err)
			e = &Error{Code: CodeInternalError, Message: defaultInternalErrorMessageText}
		}
		r := s.errorReply(x.m.id, e, x.modern)
		if e.Code == CodeInsufficientScope && x.principal != nil && x.principal.OAuth {
			r.status = http.StatusForbidden
			r.challenge = e.scopes
		}
		return r
	}
	b = append(b, '}')
	*bp = b
	return reply{body: b, status: http.StatusOK, buf: bp, modern: x.modern}
}

// narrow applies the x-mcp-scopes header to the principal's grant.
func (x *exchange) narrow(ctx context.Context) {
	if x.tr.header == nil {
		return
	}
	if h := headerValue(x.tr.header, "X-Mcp-Scopes"); h != "" {
		p := *x.principal
		p.Scopes = NarrowScopes(p.Scopes, h)
		x.principal = &p
	}
}

// errNoReply marks a request that must not be answered (cancelled on stdio).
var errNoReply = &Error{Code: codeRequestCancelled, Message: "request cancelled"}

// errorReply builds a JSON-RPC error response.
func (s *Server) errorReply(id []byte, e *Error, modern bool) reply {
	bp := getBuf()
	b := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	if id == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, id...)
	}
	b = append(b, `,"error":{"code":`...)
	code := e.Code
	data := e.Data
	if code == CodeResourceNotFound && modern {
		code = CodeInvalidParams
	}
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":`...)
	b = appendString(b, e.Message)
	if data != nil {
		b = append(b, `,"data":`...)
		var err error
		if b, err = appendJSON(b, data); err != nil {
			b = append(b, "null"...)
		}
	}
	b = append(b, "}}"...)
	*bp = b
	r := reply{body: b, status: e.httpStatus(modern), buf: bp, modern: modern}
	if e.retryAfter > 0 {
		r.retry = max(int((e.retryAfter+time.Second-1)/time.Second), 1)
	}
	return r
}

// tail closes a result object: in the modern era it adds resultType, the
// cache hints when cacheable, and _meta with serverInfo.
func (x *exchange) tail(b []byte, meta map[string]any, cacheable bool) ([]byte, error) {
	if !x.modern {
		b, err := appendMeta(b, meta)
		return append(b, '}'), err
	}
	b = append(b, `,"resultType":"complete"`...)
	if cacheable {
		b = x.s.appendCacheHints(b)
	}
	return x.s.appendResultMeta(b, meta)
}

func (s *Server) appendCacheHints(b []byte) []byte {
	b = appendInt(b, "ttlMs", s.ttlMs)
	if s.scoped {
		return append(b, `,"cacheScope":"private"`...)
	}
	return append(b, `,"cacheScope":"public"`...)
}

// appendResultMeta writes _meta (with serverInfo) and the closing brace.
func (s *Server) appendResultMeta(b []byte, meta map[string]any) ([]byte, error) {
	b = append(b, `,"_meta":{"`+metaServerInfo+`":`...)
	b = append(b, s.infoJSON...)
	if len(meta) > 0 {
		js, err := json.Marshal(meta)
		if err != nil {
			return b, err
		}
		if len(js) > 2 {
			b = append(b, ',')
			b = append(b, js[1:len(js)-1]...)
		}
	}
	return append(b, "}}"...), nil
}

// ---- lifecycle methods ----

func (x *exchange) initialize(ctx context.Context, b []byte) ([]byte, error) {
	requested, _ := jsonString(x.p.protocolVer)
	version := VersionLatestHandshake
	if isHandshakeVersion(requested) {
		version = requested
	}
	if c := x.tr.conn; c != nil {
		c.mu.Lock()
		c.version = version
		c.caps = append([]byte(nil), x.p.capabilities...)
		c.mu.Unlock()
	}
	b = append(b, `{"protocolVersion":`...)
	b = appendString(b, version)
	b = append(b, `,"capabilities":`...)
	b = append(b, x.s.capsJSON...)
	b = append(b, `,"serverInfo":`...)
	b = append(b, x.s.infoJSON...)
	ins, err := x.instructions(ctx)
	if err != nil {
		return b, err
	}
	b = appendOpt(b, "instructions", ins)
	return append(b, '}'), nil
}

func (x *exchange) empty(ctx context.Context, b []byte) ([]byte, error) {
	return append(b, '{', '}'), nil
}

func (x *exchange) setLevel(ctx context.Context, b []byte) ([]byte, error) {
	lvl, _ := jsonString(x.p.level)
	n, ok := logLevels[lvl]
	if !ok {
		return b, InvalidParams("Invalid params: unknown log level %q", lvl)
	}
	if c := x.tr.conn; c != nil {
		c.mu.Lock()
		c.logLevel = n
		c.mu.Unlock()
	}
	return append(b, '{', '}'), nil
}

func (x *exchange) discover(ctx context.Context, b []byte) ([]byte, error) {
	// A dual-era server names the handshake versions too, newest first.
	b = append(append(append(b, `{"supportedVersions":`...), supportedVersionsJSON...), `,"capabilities":`...)
	b = append(b, x.s.modernCapsJSON...)
	ins, err := x.instructions(ctx)
	if err != nil {
		return b, err
	}
	b = appendOpt(b, "instructions", ins)
	return x.tail(b, nil, true)
}
