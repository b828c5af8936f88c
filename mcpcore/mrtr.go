package mcpcore

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net/http"
	"time"
)

// requestState wire format: base64url(version ‖ issuedAt(8) ‖ nonce(8) ‖ state) "." base64url(mac).
// The MAC covers the method, the target name, the caller, a digest of the
// request's arguments and the payload, so a state minted for one tool,
// prompt, user or set of arguments is useless for another: a person's
// answer to "delete this deck?" cannot be replayed on another deck.

const stateVersion = 1

func (s *Server) signState(method, name, scope string, args, state []byte) string {
	payload := make([]byte, 17, 17+len(state))
	payload[0] = stateVersion
	binary.BigEndian.PutUint64(payload[1:9], uint64(time.Now().Unix()))
	rand.Read(payload[9:17])
	payload = append(payload, state...)
	mac := s.stateMAC(method, name, scope, argsDigest(args), payload)
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(mac)
}

func (s *Server) stateMAC(method, name, scope string, digest, payload []byte) []byte {
	h := hmac.New(sha256.New, s.stateKey)
	h.Write([]byte("mcpcore/requestState\x00" + method + "\x00" + name + "\x00" + scope + "\x00"))
	h.Write(digest)
	h.Write(payload)
	return h.Sum(nil)
}

// argsDigest returns the SHA-256 of a request's arguments in a canonical
// form (object keys sorted, no insignificant space, numbers as written),
// so that a retry whose client re-encodes the same arguments matches;
// absent or null arguments are {}.
func argsDigest(args []byte) []byte {
	canon := []byte("{}")
	if len(args) > 0 && !isNull(args) {
		canon = args
		d := json.NewDecoder(bytes.NewReader(args))
		d.UseNumber()
		var v any
		if d.Decode(&v) == nil {
			if b, err := json.Marshal(v); err == nil {
				canon = b
			}
		}
	}
	sum := sha256.Sum256(canon)
	return sum[:]
}

// verifyState returns the handler state of a signed requestState minted
// for the same method, target, caller and arguments.
func (s *Server) verifyState(method, name, scope string, args []byte, token string) ([]byte, bool) {
	dot := -1
	for i := len(token) - 1; i >= 0; i-- {
		if token[i] == '.' {
			dot = i
			break
		}
	}
	if dot < 0 {
		return nil, false
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(token[:dot])
	mac, err2 := base64.RawURLEncoding.DecodeString(token[dot+1:])
	if err1 != nil || err2 != nil || len(payload) < 17 || payload[0] != stateVersion {
		return nil, false
	}
	if !hmac.Equal(mac, s.stateMAC(method, name, scope, argsDigest(args), payload)) {
		return nil, false
	}
	issued := time.Unix(int64(binary.BigEndian.Uint64(payload[1:9])), 0)
	if time.Since(issued) > s.opts.StateTTL {
		return nil, false
	}
	return payload[17:], true
}

var errBadState = errWithStatus(CodeInvalidParams, http.StatusOK, "Invalid params: requestState failed integrity verification", nil)

// prepareInputs checks requestState and inputResponses of a modern retry.
func (x *exchange) prepareInputs(r *Request, name string) *Error {
	p := &x.p
	if !x.modern {
		return nil
	}
	if p.hasInputResp {
		if kindOf(p.inputResponses) != '{' {
			return InvalidParams("Invalid params: inputResponses must be an object")
		}
		it, _ := newObjIter(p.inputResponses)
		for {
			_, v, ok := it.next()
			if !ok {
				break
			}
			if kindOf(v) != '{' {
				return InvalidParams("Invalid params: each inputResponses entry must be an object")
			}
		}
		r.inputRaw = p.inputResponses
	}
	if p.requestState != nil && !isNull(p.requestState) {
		tok, ok := jsonString(p.requestState)
		if !ok {
			return errBadState
		}
		st, ok := x.s.verifyState(x.m.method, name, principalScope(x.principal), p.arguments, tok)
		if !ok {
			return errBadState
		}
		r.state = st
	}
	return nil
}

func principalScope(p *Principal) string {
	if p == nil {
		return ""
	}
	return p.UserID
}

// writeInputRequired appends an InputRequiredResult (modern era only).
func (x *exchange) writeInputRequired(b []byte, name string, ir *InputRequiredError) ([]byte, error) {
	if !x.modern {
		return b, &Error{Code: CodeInternalError, Message: "input required, but the handshake era has no input_required result"}
	}
	caps := x.p.metaClientCaps
	req := Request{clientCaps: caps}
	for _, q := range ir.Requests {
		if c := capabilityFor(q.Method); c != "" {
			if has, _ := req.HasClientCapability(c); !has {
				return b, missingCapability(c)
			}
		}
	}
	b = append(b, `{"resultType":"input_required","inputRequests":`...)
	b, err := appendInputRequests(b, ir.Requests)
	if err != nil {
		return b, err
	}
	b = append(b, `,"requestState":`...)
	b = appendString(b, x.s.signState(x.m.method, name, principalScope(x.principal), x.p.arguments, ir.State))
	return x.s.appendResultMeta(b, nil)
}
