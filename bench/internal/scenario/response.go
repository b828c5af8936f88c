package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
)

// Response is an HTTP response as the harness received it.
type Response struct {
	Status      int
	ContentType string
	Body        []byte
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// RPCResponse is a JSON-RPC response envelope.
type RPCResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *RPCError       `json:"error"`
}

// Decode extracts the JSON-RPC response from r, which may be a single JSON
// object or a text/event-stream whose last message is the response. It fails
// on a non-2xx status and on a JSON-RPC error.
func (r *Response) Decode() (*RPCResponse, error) {
	if r.Status < 200 || r.Status > 299 {
		return nil, fmt.Errorf("HTTP %d: %.200s", r.Status, r.Body)
	}
	payload := r.Body
	if mt, _, _ := mime.ParseMediaType(r.ContentType); mt == "text/event-stream" {
		payload = lastSSEData(r.Body)
	}
	var msg RPCResponse
	if err := json.Unmarshal(payload, &msg); err != nil {
		return nil, fmt.Errorf("decoding JSON-RPC response (content type %q): %w: %.200s", r.ContentType, err, r.Body)
	}
	if msg.JSONRPC != "2.0" {
		return nil, fmt.Errorf("jsonrpc = %q, want 2.0", msg.JSONRPC)
	}
	if msg.Error != nil {
		return nil, fmt.Errorf("JSON-RPC error %d: %s", msg.Error.Code, msg.Error.Message)
	}
	if len(msg.Result) == 0 || string(msg.Result) == "null" {
		return nil, fmt.Errorf("response has no result: %.200s", r.Body)
	}
	return &msg, nil
}

// lastSSEData returns the data of the last event in an SSE stream.
func lastSSEData(stream []byte) []byte {
	var last, cur []byte
	for line := range bytes.Lines(stream) {
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if cur != nil {
				last, cur = cur, nil
			}
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if cur != nil {
				cur = append(cur, '\n')
			}
			cur = append(cur, d...)
		}
	}
	if cur != nil {
		last = cur
	}
	return last
}

var (
	errorKey   = []byte(`"error"`)
	resultKey  = []byte(`"result"`)
	isErrorKey = []byte(`"isError"`)
)

// FastCheck is the cheap per-request check used under load: a 2xx status, a
// result member, no JSON-RPC error member and no tool error flag. It relies on
// the fixture data never containing the quoted word "error"; the full Check
// runs in the sanity pass before any measurement.
func FastCheck(status int, body []byte) error {
	if status < 200 || status > 299 {
		return fmt.Errorf("HTTP %d: %.200s", status, body)
	}
	if bytes.Contains(body, errorKey) || !bytes.Contains(body, resultKey) {
		return fmt.Errorf("JSON-RPC error or no result: %.200s", body)
	}
	if i := bytes.Index(body, isErrorKey); i >= 0 {
		rest := bytes.TrimLeft(body[i+len(isErrorKey):], " \t\r\n:")
		if bytes.HasPrefix(rest, []byte("true")) {
			return fmt.Errorf("tool returned isError: %.200s", body)
		}
	}
	return nil
}
