package mcpcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"
)

var emptyObject = json.RawMessage(`{}`)

var (
	errClientCancelled = errors.New("request cancelled by the client")
	errToolTimeout     = errors.New("tool timed out")
)

func unknownTool(name string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "Unknown tool: " + name}
}

// initRequest fills r, the zeroed handler-facing view of the request in
// flight (in place: it is embedded in a freshly allocated request).
func (x *exchange) initRequest(r *Request) {
	*r = Request{
		srv:           x.s,
		id:            x.m.id,
		method:        x.m.method,
		modern:        x.modern,
		version:       x.version,
		progressToken: x.p.progressToken,
		out:           x.tr.out,
		scope:         x.tr.scope,
		logLevel:      -1,
		cancellable:   !x.modern || x.tr.header == nil,
	}
	switch {
	case x.modern:
		r.clientCaps = x.p.metaClientCaps
		if lvl, ok := jsonString(x.p.metaLogLevel); ok {
			if n, ok := logLevels[lvl]; ok {
				r.logLevel = n
			}
		}
	case x.tr.conn != nil:
		x.tr.conn.mu.Lock()
		r.clientCaps, r.logLevel = x.tr.conn.caps, x.tr.conn.logLevel
		x.tr.conn.mu.Unlock()
	default:
		r.logLevel = 0 // stateless handshake era: no level was kept, send all
	}
}

// lookupName decodes a name param, avoiding an allocation for plain names.
func lookupName[T any](raw []byte, idx map[string]T) (string, T, bool) {
	var zero T
	if kindOf(raw) != '"' {
		return "", zero, false
	}
	inner := raw[1 : len(raw)-1]
	for _, c := range inner {
		if c == '\\' {
			name := unquoteRaw(inner)
			v, ok := idx[name]
			return name, v, ok
		}
	}
	v, ok := idx[string(inner)]
	if !ok {
		return string(inner), zero, false
	}
	return "", v, true
}

func (x *exchange) toolsCall(ctx context.Context, b []byte) ([]byte, error) {
	if kindOf(x.p.name) != '"' {
		return b, InvalidParams("Invalid params: name must be a string")
	}
	name, te, ok := lookupName(x.p.name, x.s.toolIdx)
	if !ok {
		return b, unknownTool(name)
	}
	name = te.def.Name
	sel, err := x.selection(ctx)
	if err != nil {
		return b, err
	}
	if !sel.includes(te) {
		return b, unknownTool(name)
	}
	if x.principal != nil {
		if f := x.s.opts.ToolVisible; f != nil {
			vis, err := f(ctx, name)
			if err != nil {
				return b, err
			}
			if !vis {
				return b, unknownTool(name)
			}
		}
		if err := te.scopeError(x.principal.Scopes); err != nil {
			return b, err
		}
	}
	args := json.RawMessage(x.p.arguments)
	if isNull(args) {
		args = emptyObject
	} else if kindOf(args) != '{' {
		return b, InvalidParams("Invalid params: arguments must be an object")
	}
	cr := &CallRequest{Name: name, Tool: &te.def}
	x.initRequest(&cr.Request)
	if err := x.prepareInputs(&cr.Request, name); err != nil {
		return b, err
	}
	if err := x.checkParamHeaders(te, args); err != nil {
		return b, err
	}
	asTask, err := x.taskMode(te)
	if err != nil {
		return b, err
	}
	if asTask && te.def.TaskFromResult == nil {
		return x.createTask(ctx, b, te, cr, args)
	}
	res, err := x.s.runTool(ctx, te, cr, args)
	if err != nil {
		var ir *InputRequiredError
		if errors.As(err, &ir) {
			return x.writeInputRequired(b, name, ir)
		}
		return b, err
	}
	if asTask && !res.IsError {
		if id, ok := te.def.TaskFromResult(res); ok {
			return x.adoptTask(ctx, b, id)
		}
	}
	if b, err = res.appendJSON(b); err != nil {
		return b, err
	}
	return x.tail(b, res.Meta, false)
}

// runTool is the served-call pipeline: argument check → guardrails →
// approval → execute (timeout, cancellation, panic recovery) → result
// guardrails. Protocol errors come back as error; everything the model
// should see comes back as an isError result.
func (s *Server) runTool(ctx context.Context, te *toolEntry, cr *CallRequest, args json.RawMessage) (*CallToolResult, error) {
	// The deadline covers the whole pipeline, argument checks included:
	// in the handshake era a disconnect does not end the call, so the
	// deadline is what ends runaway work.
	if d := s.timeout(te); d > 0 && !cr.task {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, errToolTimeout)
		defer cancel()
	}
	if v := te.in.argViolations(args); v != nil {
		return validationResult(te.def.Name, v), nil
	}
	if errors.Is(context.Cause(ctx), errToolTimeout) {
		return s.timeoutResult(te), nil
	}
	rewritten := false
	for _, g := range s.opts.Guardrails {
		if g.OnCall == nil {
			continue
		}
		verdict, err := g.OnCall(ctx, &te.def, args)
		if err != nil {
			return ErrorResult(fmt.Sprintf("Guardrail '%s' failed: %v", g.Name, err)), nil
		}
		if verdict.Block {
			return ErrorResult(fmt.Sprintf("Blocked by guardrail '%s': %s", g.Name, verdict.Reason)), nil
		}
		if verdict.Args != nil {
			args, rewritten = verdict.Args, true
		}
	}
	if rewritten {
		if v := te.in.violations(args); v != nil {
			return validationResult(te.def.Name, v), nil
		}
	}
	if te.def.NeedsApproval != nil && te.def.NeedsApproval(ctx, args) {
		if s.opts.Approve == nil {
			return ErrorResult("Tool call denied: it needs approval and no approver is configured. It was not run."), nil
		}
		ok, err := s.opts.Approve(ctx, &te.def, args)
		if err != nil || !ok {
			return ErrorResult("Tool call denied by the approver. It was not run."), nil
		}
	}
	cr.Arguments = args
	res, err := s.execute(ctx, te, cr)
	if err != nil {
		var pe *Error
		var ir *InputRequiredError
		switch {
		case errors.As(err, &ir), errors.As(err, &pe):
			return nil, err
		case errors.Is(err, errToolTimeout):
			return s.timeoutResult(te), nil
		case errors.Is(err, errClientCancelled):
			return nil, errNoReply
		}
		return ErrorResult(err.Error()), nil
	}
	for _, g := range s.opts.Guardrails {
		if g.OnResult == nil {
			continue
		}
		r2, err := g.OnResult(ctx, &te.def, args, res)
		if err != nil {
			return ErrorResult(fmt.Sprintf("Guardrail '%s' failed: %v", g.Name, err)), nil
		}
		if r2 != nil {
			res = r2
		}
	}
	if s.opts.ValidateOutput && te.out != nil && res.StructuredContent != nil && !res.IsError {
		js, err := appendJSON(nil, res.StructuredContent)
		if err != nil {
			return nil, err
		}
		if v := te.out.violations(js); v != nil {
			s.logger.Error("mcpcore: structuredContent does not match outputSchema", "tool", te.def.Name, "violations", v)
			return nil, &Error{Code: CodeInternalError, Message: "tool output does not match its outputSchema"}
		}
	}
	return res, nil
}

func (s *Server) timeoutResult(te *toolEntry) *CallToolResult {
	return ErrorResult(fmt.Sprintf("Tool %s timed out after %s.", te.def.Name, s.timeout(te)))
}

func (s *Server) timeout(te *toolEntry) time.Duration {
	if te.def.Timeout > 0 {
		return te.def.Timeout
	}
	return s.opts.DefaultTimeout
}

// execute runs the handler under runTool's deadline, with the
// handshake-era cancellation registry and panic recovery.
func (s *Server) execute(ctx context.Context, te *toolEntry, cr *CallRequest) (res *CallToolResult, err error) {
	if cr.cancellable {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		cr.inflight = inflightCall{scope: cr.scope, id: cr.id, cancel: cancel}
		s.inflight.add(&cr.inflight)
		defer s.inflight.remove(&cr.inflight)
	}
	defer func() {
		if p := recover(); p != nil {
			ref := NewRef()
			s.logger.Error("mcpcore: tool handler panicked", "tool", te.def.Name, "ref", ref, "panic", p, "stack", string(debug.Stack()))
			res, err = ErrorResult("Internal error (ref "+ref+")."), nil
		}
	}()
	res, err = te.def.Handler(ctx, cr)
	if cause := context.Cause(ctx); cause != nil && (errors.Is(cause, errClientCancelled) || errors.Is(cause, errToolTimeout)) {
		if err != nil || ctx.Err() != nil {
			return nil, cause
		}
	}
	if err == nil && res == nil {
		res = &CallToolResult{}
	}
	return res, err
}

// Bounds on the text of an invalid-arguments result.
const (
	MaxViolations     = 50
	MaxViolationBytes = 16 << 10
	MaxViolationLine  = 1 << 10
)

// cutUTF8 shortens s to at most n bytes without splitting a character,
// marking the cut with "…".
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// validationResult lists every violation so the model can fix its call
// (SEP-1303). The list is text only: structuredContent would have to match
// the tool's outputSchema, and clients check that even on errors.
//
// The list is bounded: at most MaxViolations lines and about
// MaxViolationBytes of text, each line cut at MaxViolationLine bytes, and
// "… and N more" for the rest.
func validationResult(tool string, v []string) *CallToolResult {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Invalid arguments for tool %s:", tool)
	for i, line := range v {
		if i == MaxViolations || sb.Len()+len(line) > MaxViolationBytes-64 && i > 0 {
			fmt.Fprintf(&sb, "\n… and %d more", len(v)-i)
			break
		}
		sb.WriteString("\n- ")
		sb.WriteString(cutUTF8(line, MaxViolationLine))
	}
	return &CallToolResult{Content: []Content{TextContent(sb.String())}, IsError: true}
}

// ---- prompts ----

func (x *exchange) promptsGet(ctx context.Context, b []byte) ([]byte, error) {
	name, pr, ok := lookupName(x.p.name, x.s.promptIdx)
	if !ok {
		if name == "" {
			name, _ = jsonString(x.p.name)
		}
		return b, InvalidParams("Invalid params: unknown prompt %q", name)
	}
	args := map[string]string{}
	if !isNull(x.p.arguments) {
		var raw map[string]any
		if err := json.Unmarshal(x.p.arguments, &raw); err != nil {
			return b, InvalidParams("Invalid params: arguments must be an object of strings")
		}
		for k, v := range raw {
			sv, ok := v.(string)
			if !ok {
				return b, InvalidParams("Invalid params: argument %q must be a string", k)
			}
			args[k] = sv
		}
	}
	for _, a := range pr.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			return b, InvalidParams("Invalid params: missing required argument %q", a.Name)
		}
	}
	req := &GetPromptRequest{Name: pr.Name, Arguments: args}
	x.initRequest(&req.Request)
	if err := x.prepareInputs(&req.Request, pr.Name); err != nil {
		return b, err
	}
	res, err := safeCall(x.s, "prompt "+pr.Name, func() (*GetPromptResult, error) { return pr.Get(ctx, req) })
	if err != nil {
		return x.handlerError(b, pr.Name, err)
	}
	if b, err = res.appendJSON(b); err != nil {
		return b, err
	}
	return x.tail(b, res.Meta, false)
}

// handlerError maps a prompt or resource handler error.
func (x *exchange) handlerError(b []byte, name string, err error) ([]byte, error) {
	var ir *InputRequiredError
	if errors.As(err, &ir) {
		return x.writeInputRequired(b, name, ir)
	}
	var pe *Error
	if errors.As(err, &pe) {
		return b, pe
	}
	return b, &Error{Code: CodeInternalError, Message: err.Error()}
}

// safeCall runs a non-tool handler, turning a panic into an internal error
// that carries only a reference id.
func safeCall[T any](s *Server, what string, f func() (T, error)) (res T, err error) {
	defer func() {
		if p := recover(); p != nil {
			ref := NewRef()
			s.logger.Error("mcpcore: handler panicked", "handler", what, "ref", ref, "panic", p, "stack", string(debug.Stack()))
			err = &Error{Code: CodeInternalError, Message: "Internal error (ref " + ref + ")"}
		}
	}()
	return f()
}

// ---- resources ----

func (x *exchange) resourcesRead(ctx context.Context, b []byte) ([]byte, error) {
	uri, ok := jsonString(x.p.uri)
	if !ok || uri == "" {
		return b, InvalidParams("Invalid params: uri must be a string")
	}
	var read ResourceHandler
	var vars map[string]string
	var scopes []string
	if r := x.s.resIdx[uri]; r != nil {
		read, scopes = r.Read, r.Scopes
	} else {
		for _, t := range x.s.templates {
			if v, ok := t.ut.match(uri); ok {
				read, scopes, vars = t.def.Read, t.def.Scopes, v
				break
			}
		}
	}
	if read == nil {
		return b, ResourceNotFound(uri)
	}
	if !x.scopesAllow(scopes) {
		return b, ScopeError(scopes)
	}
	req := &ReadRequest{URI: uri, Vars: vars}
	x.initRequest(&req.Request)
	if err := x.prepareInputs(&req.Request, uri); err != nil {
		return b, err
	}
	contents, err := safeCall(x.s, "resource "+uri, func() ([]ResourceContents, error) { return read(ctx, req) })
	if err != nil {
		return x.handlerError(b, uri, err)
	}
	if len(contents) == 0 {
		return b, ResourceNotFound(uri)
	}
	b = append(b, `{"contents":[`...)
	for i := range contents {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = contents[i].appendJSON(b); err != nil {
			return b, err
		}
	}
	b = append(b, ']')
	return x.tail(b, nil, true)
}

// ---- completion ----

func (x *exchange) complete(ctx context.Context, b []byte) ([]byte, error) {
	var ref struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	var arg struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	if json.Unmarshal(x.p.ref, &ref) != nil || json.Unmarshal(x.p.argument, &arg) != nil {
		return b, InvalidParams("Invalid params: ref and argument are required")
	}
	var values []string
	var err error
	switch ref.Type {
	case "ref/prompt":
		p := x.s.promptIdx[ref.Name]
		if p == nil {
			return b, InvalidParams("Invalid params: unknown prompt %q", ref.Name)
		}
		if p.Complete != nil {
			values, err = p.Complete(ctx, arg.Name, arg.Value)
		}
	case "ref/resource":
		var t *templateEntry
		for _, te := range x.s.templates {
			if te.def.URITemplate == ref.URI {
				t = te
			}
		}
		if t == nil {
			return b, InvalidParams("Invalid params: unknown resource template %q", ref.URI)
		}
		if t.def.Complete != nil {
			values, err = t.def.Complete(ctx, arg.Name, arg.Value)
		}
	default:
		return b, InvalidParams("Invalid params: unknown ref type %q", ref.Type)
	}
	if err != nil {
		return b, err
	}
	total := len(values)
	if len(values) > 100 {
		values = values[:100]
	}
	b = append(b, `{"completion":{"values":[`...)
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, v)
	}
	b = append(b, ']')
	b = appendInt(b, "total", int64(total))
	if total > len(values) {
		b = append(b, `,"hasMore":true`...)
	} else {
		b = append(b, `,"hasMore":false`...)
	}
	b = append(b, '}')
	return x.tail(b, nil, false)
}
