package mcpcore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
)

// Request is what every handler (tool, prompt, resource) receives about the
// request in flight, and its way back to the client: progress, logs, and
// asking for input in either protocol era.
type Request struct {
	srv           *Server
	id            []byte
	method        string
	modern        bool
	version       string
	progressToken []byte
	logLevel      int // minimum level to send; -1: send nothing
	clientCaps    []byte
	inputRaw      []byte
	inputs        map[string]json.RawMessage
	state         []byte
	out           outbound
	scope         string
	cancellable   bool // notifications/cancelled applies (handshake era, or not HTTP)
}

// ID returns the raw JSON-RPC id of the request.
func (r *Request) ID() json.RawMessage { return r.id }

// Modern reports whether the request uses the stateless 2026-07-28 era.
func (r *Request) Modern() bool { return r.modern }

// ProtocolVersion returns the protocol version of the request.
func (r *Request) ProtocolVersion() string { return r.version }

// ClientCapabilities returns the client's declared capabilities, when
// known (always in the modern era; on stdio after initialize).
func (r *Request) ClientCapabilities() json.RawMessage { return r.clientCaps }

// HasClientCapability reports whether the client declared the named
// top-level capability (e.g. "sampling"). unknown is true when the
// transport cannot know (handshake era over stateless HTTP).
func (r *Request) HasClientCapability(name string) (has, unknown bool) {
	if r.clientCaps == nil {
		return false, true
	}
	it, ok := newObjIter(r.clientCaps)
	if !ok {
		return false, false
	}
	for {
		k, v, ok := it.next()
		if !ok {
			return false, false
		}
		if keyIs(k, name) {
			return !isNull(v), false
		}
	}
}

// State returns the handler state of a verified requestState (modern era
// retries), or nil.
func (r *Request) State() []byte { return r.state }

// InputResponses returns the client's answers keyed as in the
// InputRequiredError that asked for them (modern era retries).
func (r *Request) InputResponses() map[string]json.RawMessage {
	if r.inputs == nil && r.inputRaw != nil {
		_ = json.Unmarshal(r.inputRaw, &r.inputs)
	}
	return r.inputs
}

// WantsProgress reports whether the request carried a progressToken and
// has a way back to the client for progress notifications.
func (r *Request) WantsProgress() bool { return r.progressToken != nil && r.out != nil }

// Progress reports progress when the request carried a progressToken; it
// is a no-op otherwise. Over HTTP the response becomes an SSE stream.
func (r *Request) Progress(ctx context.Context, progress, total float64, message string) error {
	if r.progressToken == nil || r.out == nil {
		return nil
	}
	b := append(make([]byte, 0, 160), `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`...)
	b = append(b, r.progressToken...)
	b = append(b, `,"progress":`...)
	b = strconv.AppendFloat(b, progress, 'g', -1, 64)
	if total > 0 {
		b = append(b, `,"total":`...)
		b = strconv.AppendFloat(b, total, 'g', -1, 64)
	}
	b = appendOpt(b, "message", message)
	b = append(b, "}}"...)
	return r.out.send(b)
}

// Log levels, lowest first (RFC 5424 names).
var logLevels = map[string]int{
	"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7,
}

// Log sends a notifications/message to the client when its level passes
// the client's threshold: in the modern era only if the request set
// _meta["io.modelcontextprotocol/logLevel"]; on stdio per logging/setLevel.
func (r *Request) Log(ctx context.Context, level, logger string, data any) error {
	n, ok := logLevels[level]
	if !ok {
		return fmt.Errorf("mcpcore: unknown log level %q", level)
	}
	if r.out == nil || r.logLevel < 0 || n < r.logLevel {
		return nil
	}
	b := append(make([]byte, 0, 128), `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":`...)
	b = appendString(b, level)
	b = appendOpt(b, "logger", logger)
	b = append(b, `,"data":`...)
	b, err := appendJSON(b, data)
	if err != nil {
		return err
	}
	return r.out.send(append(b, "}}"...))
}

// InputRequest is a request the server needs the client to fulfil.
type InputRequest struct {
	Method string `json:"method"` // "elicitation/create", "sampling/createMessage", "roots/list"
	Params any    `json:"params"`
}

// ElicitParams asks the user for structured input.
type ElicitParams struct {
	Message         string `json:"message"`
	Mode            string `json:"mode,omitempty"`
	RequestedSchema any    `json:"requestedSchema"`
}

// ElicitResult is the user's answer.
type ElicitResult struct {
	Action  string         `json:"action"` // accept, decline, cancel
	Content map[string]any `json:"content,omitempty"`
}

// ElicitationRequest builds an elicitation/create input request.
func ElicitationRequest(p ElicitParams) InputRequest {
	return InputRequest{Method: "elicitation/create", Params: p}
}

// SamplingRequest builds a sampling/createMessage input request.
func SamplingRequest(params any) InputRequest {
	return InputRequest{Method: "sampling/createMessage", Params: params}
}

// RootsRequest builds a roots/list input request.
func RootsRequest() InputRequest { return InputRequest{Method: "roots/list", Params: struct{}{}} }

// capabilityFor names the client capability an input request relies on.
func capabilityFor(method string) string {
	switch method {
	case "elicitation/create":
		return "elicitation"
	case "sampling/createMessage":
		return "sampling"
	case "roots/list":
		return "roots"
	}
	return ""
}

// Ask obtains the client's answers to reqs, in either era:
//   - modern: answers already present in the retry's inputResponses are
//     returned; otherwise it returns an *InputRequiredError (return it from
//     the handler unchanged) carrying the missing requests and state.
//   - handshake: each request is sent to the client on the call's stream
//     and the answer awaited.
//
// A request needing a capability the client did not declare fails with
// -32021 in the modern era, -32602 in the handshake era.
func (r *Request) Ask(ctx context.Context, reqs map[string]InputRequest, state []byte) (map[string]json.RawMessage, error) {
	for _, q := range reqs {
		if c := capabilityFor(q.Method); c != "" {
			if has, unknown := r.HasClientCapability(c); !has && !unknown {
				if !r.modern {
					// -32021 and its 400 belong to the modern era.
					return nil, InvalidParams("the client did not declare the %s capability this tool needs", c)
				}
				return nil, missingCapability(c)
			}
		}
	}
	if r.modern {
		got := r.InputResponses()
		out := make(map[string]json.RawMessage, len(reqs))
		missing := make(map[string]InputRequest)
		for k, q := range reqs {
			if v, ok := got[k]; ok && kindOf(v) == '{' {
				out[k] = v
			} else {
				missing[k] = q
			}
		}
		if len(missing) > 0 {
			return nil, &InputRequiredError{Requests: missing, State: state}
		}
		return out, nil
	}
	if r.out == nil || !r.out.requests() {
		return nil, errors.New("mcpcore: this transport cannot send requests to the client")
	}
	out := make(map[string]json.RawMessage, len(reqs))
	for k, q := range reqs {
		res, err := r.srv.pending.call(ctx, r.out, r.scope, q.Method, q.Params)
		if err != nil {
			return nil, err
		}
		out[k] = res
	}
	return out, nil
}

func missingCapability(c string) *Error {
	return errWithStatus(CodeMissingRequiredCapability, 400, "Missing required client capability: "+c,
		map[string]any{"requiredCapabilities": map[string]any{c: map[string]any{}}})
}

// Elicit asks the user for input under key (see Ask).
func (r *Request) Elicit(ctx context.Context, key string, p ElicitParams) (*ElicitResult, error) {
	res, err := r.Ask(ctx, map[string]InputRequest{key: ElicitationRequest(p)}, r.state)
	if err != nil {
		return nil, err
	}
	var er ElicitResult
	if err := json.Unmarshal(res[key], &er); err != nil {
		return nil, InvalidParams("Invalid params: malformed elicitation response: %v", err)
	}
	return &er, nil
}

// Sample asks the client's model for a completion under key (see Ask).
func (r *Request) Sample(ctx context.Context, key string, params any) (json.RawMessage, error) {
	res, err := r.Ask(ctx, map[string]InputRequest{key: SamplingRequest(params)}, r.state)
	if err != nil {
		return nil, err
	}
	return res[key], nil
}

// ListRoots asks the client for its roots under key (see Ask).
func (r *Request) ListRoots(ctx context.Context, key string) (json.RawMessage, error) {
	res, err := r.Ask(ctx, map[string]InputRequest{key: RootsRequest()}, r.state)
	if err != nil {
		return nil, err
	}
	return res[key], nil
}

// ---- server-to-client requests (handshake era) ----

// pendingRequests correlates client responses with server requests.
type pendingRequests struct {
	mu  sync.Mutex
	m   map[string]*pendingReq
	seq atomic.Uint64
}

type pendingReq struct {
	scope string
	ch    chan pendingResult
}

type pendingResult struct {
	result, err []byte
}

// call sends a request to the client through out and waits for its answer.
func (p *pendingRequests) call(ctx context.Context, out outbound, scope, method string, params any) (json.RawMessage, error) {
	id := "mcpcore-" + strconv.FormatUint(p.seq.Add(1), 36) + "-" + NewRef()
	pr := &pendingReq{scope: scope, ch: make(chan pendingResult, 1)}
	p.mu.Lock()
	p.m[id] = pr
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.m, id)
		p.mu.Unlock()
	}()
	b := append([]byte(`{"jsonrpc":"2.0","id":`), appendString(nil, id)...)
	b = append(b, `,"method":`...)
	b = appendString(b, method)
	b = append(b, `,"params":`...)
	b, err := appendJSON(b, params)
	if err != nil {
		return nil, err
	}
	if err := out.send(append(b, '}')); err != nil {
		return nil, err
	}
	select {
	case res := <-pr.ch:
		if res.err != nil {
			var e struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			}
			_ = json.Unmarshal(res.err, &e)
			return nil, fmt.Errorf("client rejected %s: %s (%d)", method, e.Message, e.Code)
		}
		return res.result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// deliver hands a client response to the waiting request, if any.
func (p *pendingRequests) deliver(scope string, id, result, errVal []byte) {
	key, ok := jsonString(id)
	if !ok {
		return
	}
	p.mu.Lock()
	pr := p.m[key]
	p.mu.Unlock()
	if pr == nil || pr.scope != scope {
		return
	}
	res := pendingResult{}
	if errVal != nil {
		res.err = append([]byte(nil), errVal...)
	} else {
		res.result = append([]byte(nil), result...)
	}
	select {
	case pr.ch <- res:
	default:
	}
}
