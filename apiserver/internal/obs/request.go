package obs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"

	"github.com/takhtabush/takhtabush/contracts"
)

// RequestIDHeader carries the request id in and out.
const RequestIDHeader = "X-Request-Id"

// Request is the state of one HTTP request that the layers below fill in
// and the access log and metrics read: who acted, with what credential, and
// which MCP tool ran. It also memoizes the exposure settings read, so a
// tools/list asks the database once, not once per tool.
type Request struct {
	// ID is the request id, from a sane X-Request-Id or freshly made.
	ID string

	mu         sync.Mutex
	userID     string
	credKind   contracts.CredentialKind
	credID     string
	tool       string
	exposure   *contracts.ExposureSettings
	exposureMu sync.Mutex
}

type requestKey struct{}

// WithRequest returns a context carrying r.
func WithRequest(ctx context.Context, r *Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// RequestFrom returns the request state in ctx, or nil.
func RequestFrom(ctx context.Context) *Request {
	r, _ := ctx.Value(requestKey{}).(*Request)
	return r
}

// RequestID returns the id of the request in ctx, or "".
func RequestID(ctx context.Context) string {
	if r := RequestFrom(ctx); r != nil {
		return r.ID
	}
	return ""
}

// SetPrincipal records who the request acts for (never a secret: the
// credential id is a key id or session reference).
func (r *Request) SetPrincipal(p contracts.Principal) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.userID, r.credKind, r.credID = p.UserID, p.CredentialKind, p.CredentialID
	r.mu.Unlock()
}

// SetTool records the MCP tool the request called.
func (r *Request) SetTool(name string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.tool = name
	r.mu.Unlock()
}

func (r *Request) snapshot() (userID string, kind contracts.CredentialKind, credID, tool string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.userID, r.credKind, r.credID, r.tool
}

// SeedExposure memoizes exposure settings read with the principal, so
// Exposure does not read them again within the request.
func (r *Request) SeedExposure(s contracts.ExposureSettings) {
	if r == nil {
		return
	}
	r.exposureMu.Lock()
	r.exposure = &s
	r.exposureMu.Unlock()
}

// Exposure returns the memoized exposure settings, calling read on first
// use within the request. A failed read is not memoized.
func (r *Request) Exposure(read func() (contracts.ExposureSettings, error)) (contracts.ExposureSettings, error) {
	if r == nil {
		return read()
	}
	r.exposureMu.Lock()
	defer r.exposureMu.Unlock()
	if r.exposure != nil {
		return *r.exposure, nil
	}
	s, err := read()
	if err != nil {
		return s, err
	}
	r.exposure = &s
	return s, nil
}

// NewRequestID returns a fresh random request id.
func NewRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// SaneRequestID reports whether a client-supplied request id may be reused:
// 1 to 64 characters of letters, digits, '-', '_', '.' and ':'.
func SaneRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}
