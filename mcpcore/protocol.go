package mcpcore

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
)

// Protocol versions served.
const (
	// VersionModern is the stateless revision: server/discover, per-request _meta.
	VersionModern = "2026-07-28"
	// VersionLatestHandshake is the newest initialize-based revision.
	VersionLatestHandshake = "2025-11-25"
	Version20250618        = "2025-06-18"
	Version20250326        = "2025-03-26"
)

// handshakeVersions are negotiated by initialize, newest first.
var handshakeVersions = []string{VersionLatestHandshake, Version20250618, Version20250326}

// modernVersions are served statelessly.
var modernVersions = []string{VersionModern}

// supportedVersions are every version served, newest first: what
// server/discover lists and what an unsupported-version error offers.
var supportedVersions = slices.Concat(modernVersions, handshakeVersions)

// SupportedVersions returns every protocol version the engine serves,
// newest first (for discovery documents such as a server card).
func SupportedVersions() []string { return slices.Clone(supportedVersions) }

// supportedVersionsJSON is supportedVersions as a JSON array.
var supportedVersionsJSON, _ = json.Marshal(supportedVersions)

func isHandshakeVersion(v string) bool {
	for _, h := range handshakeVersions {
		if v == h {
			return true
		}
	}
	return false
}

func isModernVersion(v string) bool { return v == VersionModern }

// _meta keys of the modern era.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// message is a decoded JSON-RPC envelope; its fields alias the body.
type message struct {
	id       []byte // raw id; nil for a notification
	method   string
	params   []byte // raw params object; nil when absent
	response bool   // a response (result or error) from the client
	result   []byte
	errorVal []byte
}

// parseMessage decodes one JSON-RPC message from a valid JSON value.
// On failure it returns the error and whatever id could be read.
func parseMessage(b []byte) (message, []byte, *Error) {
	var m message
	it, ok := newObjIter(b)
	if !ok {
		return m, nil, &Error{Code: CodeInvalidRequest, Message: "Invalid Request: expected a JSON object"}
	}
	var version, method []byte
	var hasID, hasMethod, hasResult, hasError bool
	var idVal []byte
	for {
		k, v, ok := it.next()
		if !ok {
			break
		}
		switch {
		case keyIs(k, "jsonrpc"):
			version = v
		case keyIs(k, "id"):
			hasID, idVal = true, v
		case keyIs(k, "method"):
			hasMethod, method = true, v
		case keyIs(k, "params"):
			m.params = v
		case keyIs(k, "result"):
			hasResult, m.result = true, v
		case keyIs(k, "error"):
			hasError, m.errorVal = true, v
		}
	}
	echo := validID(idVal)
	if string(version) != `"2.0"` {
		return m, echo, &Error{Code: CodeInvalidRequest, Message: `Invalid Request: "jsonrpc" must be "2.0"`}
	}
	if hasID && echo == nil {
		return m, nil, &Error{Code: CodeInvalidRequest, Message: "Invalid Request: id must be a string or an integer"}
	}
	m.id = echo
	if !hasMethod {
		if (hasResult || hasError) && hasID {
			m.response = true
			return m, echo, nil
		}
		return m, echo, &Error{Code: CodeInvalidRequest, Message: "Invalid Request: missing method"}
	}
	if kindOf(method) != '"' {
		return m, echo, &Error{Code: CodeInvalidRequest, Message: "Invalid Request: method must be a string"}
	}
	m.method = internMethod(method)
	if m.params != nil && kindOf(m.params) != '{' {
		if isNull(m.params) {
			m.params = nil
		} else {
			return m, echo, &Error{Code: CodeInvalidParams, Message: "Invalid params: params must be an object"}
		}
	}
	return m, echo, nil
}

// validID returns v when it is a string or an integer, else nil.
func validID(v []byte) []byte {
	switch kindOf(v) {
	case '"':
		return v
	case '0':
		for i, c := range v {
			if c == '-' && i == 0 {
				continue
			}
			if c < '0' || c > '9' {
				return nil
			}
		}
		return v
	}
	return nil
}

// internMethod decodes a method name, returning a constant string (no
// allocation) for the methods on the hot path.
func internMethod(raw []byte) string {
	switch string(raw[1 : len(raw)-1]) {
	case "tools/call":
		return "tools/call"
	case "tools/list":
		return "tools/list"
	case "initialize":
		return "initialize"
	case "notifications/initialized":
		return "notifications/initialized"
	case "ping":
		return "ping"
	case "server/discover":
		return "server/discover"
	case "resources/read":
		return "resources/read"
	case "resources/list":
		return "resources/list"
	case "prompts/get":
		return "prompts/get"
	case "prompts/list":
		return "prompts/list"
	}
	name, _ := jsonString(raw)
	return name
}

// params holds the members of a request's params that the engine reads.
type params struct {
	meta           []byte
	name           []byte
	uri            []byte
	cursor         []byte
	arguments      []byte
	inputResponses []byte
	hasInputResp   bool
	requestState   []byte
	protocolVer    []byte // initialize: protocolVersion
	capabilities   []byte // initialize: capabilities
	level          []byte
	ref            []byte
	argument       []byte
	requestID      []byte // notifications/cancelled
	taskID         []byte // tasks/*

	// _meta members
	hasMeta        bool
	progressToken  []byte
	metaVersion    []byte
	metaClientCaps []byte
	metaLogLevel   []byte
}

// parseParams fills the zeroed p from the params object b.
func parseParams(b []byte, p *params) {
	it, ok := newObjIter(b)
	if !ok {
		return
	}
	for {
		k, v, ok := it.next()
		if !ok {
			break
		}
		switch string(k) {
		case "_meta":
			p.meta = v
		case "name":
			p.name = v
		case "uri":
			p.uri = v
		case "cursor":
			p.cursor = v
		case "arguments":
			p.arguments = v
		case "inputResponses":
			p.inputResponses, p.hasInputResp = v, true
		case "requestState":
			p.requestState = v
		case "protocolVersion":
			p.protocolVer = v
		case "capabilities":
			p.capabilities = v
		case "level":
			p.level = v
		case "ref":
			p.ref = v
		case "argument":
			p.argument = v
		case "requestId":
			p.requestID = v
		case "taskId":
			p.taskID = v
		}
	}
	if kindOf(p.meta) == '{' {
		p.hasMeta = true
		mi, _ := newObjIter(p.meta)
		for {
			k, v, ok := mi.next()
			if !ok {
				break
			}
			switch string(k) {
			case "progressToken":
				p.progressToken = v
			case metaProtocolVersion:
				p.metaVersion = v
			case metaClientCapabilities:
				p.metaClientCaps = v
			case metaLogLevel:
				p.metaLogLevel = v
			}
		}
	}
}

// headerValue is h.Get(key) for a key already in canonical form: it skips
// canonicalizing the key again on every lookup.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// decodeHeaderValue decodes the =?base64?…?= sentinel form of header values.
func decodeHeaderValue(v string) (string, bool) {
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= len("=?base64??=") {
		enc := v[len("=?base64?") : len(v)-2]
		dec, err := base64.StdEncoding.Strict().DecodeString(enc)
		if err != nil || !utf8.Valid(dec) {
			return "", false
		}
		return string(dec), true
	}
	return v, true
}

// checkModernHeaders compares MCP-Protocol-Version, Mcp-Method and Mcp-Name
// with the body (all required). It returns a -32020 error on mismatch.
func checkModernHeaders(h http.Header, m *message, p *params, version string) *Error {
	if h == nil {
		return nil
	}
	mismatch := func(msg string) *Error {
		return &Error{Code: CodeHeaderMismatch, Message: "Header mismatch: " + msg, status: http.StatusBadRequest}
	}
	if hv := headerValue(h, "Mcp-Protocol-Version"); hv == "" {
		return mismatch("missing MCP-Protocol-Version header")
	} else if hv != version {
		return mismatch("MCP-Protocol-Version header does not match _meta protocolVersion")
	}
	if hm := headerValue(h, "Mcp-Method"); hm == "" {
		return mismatch("missing Mcp-Method header")
	} else if hm != m.method {
		return mismatch("Mcp-Method header does not match method")
	}
	var want []byte
	switch m.method {
	case "tools/call", "prompts/get":
		want = p.name
	case "resources/read":
		want = p.uri
	case "tasks/get", "tasks/update", "tasks/cancel":
		want = p.taskID
	default:
		return nil
	}
	hn := headerValue(h, "Mcp-Name")
	if hn == "" {
		return mismatch("missing Mcp-Name header")
	}
	dec, ok := decodeHeaderValue(hn)
	body, _ := jsonString(want)
	if !ok || dec != body {
		return mismatch("Mcp-Name header does not match params")
	}
	return nil
}
