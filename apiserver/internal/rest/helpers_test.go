package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/apiserver/internal/rest"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports/mock"
	"go.uber.org/mock/gomock"
)

// Principals as the outer middleware would resolve them.
var (
	webUser = &contracts.Principal{UserID: "u1", Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession, CredentialID: "ws1"}
	keyUser = &contracts.Principal{UserID: "u1", Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialAPIKey, CredentialID: "k1"}
	appUser = &contracts.Principal{UserID: "u1", Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialOAuth, CredentialID: "c1"}
)

// mocked is the handler over gomock services. A test sets the expectations
// it needs; any other call to a service fails the test.
type mocked struct {
	h        http.Handler
	logs     *bytes.Buffer
	decks    *mock.MockDeckService
	cards    *mock.MockCardService
	study    *mock.MockStudyService
	stats    *mock.MockStatsService
	keys     *mock.MockKeyService
	exposure *mock.MockExposureService
	audit    *mock.MockAuditService
	accounts *mock.MockAccountService
	// audited are the audit rows the handler wrote (AuditService.Record).
	audited *[]contracts.AuditEvent
}

func newMocked(t *testing.T) *mocked {
	ctrl := gomock.NewController(t)
	m := &mocked{
		logs:     new(bytes.Buffer),
		decks:    mock.NewMockDeckService(ctrl),
		cards:    mock.NewMockCardService(ctrl),
		study:    mock.NewMockStudyService(ctrl),
		stats:    mock.NewMockStatsService(ctrl),
		keys:     mock.NewMockKeyService(ctrl),
		exposure: mock.NewMockExposureService(ctrl),
		audit:    mock.NewMockAuditService(ctrl),
		accounts: mock.NewMockAccountService(ctrl),
		audited:  &[]contracts.AuditEvent{},
	}
	m.audit.EXPECT().Record(gomock.Any(), gomock.Any()).DoAndReturn(func(_ context.Context, e contracts.AuditEvent) error {
		*m.audited = append(*m.audited, e)
		return nil
	}).AnyTimes()
	m.h = rest.NewHandler(rest.Services{
		Decks: m.decks, Cards: m.cards, Study: m.study, Stats: m.stats,
		Keys: m.keys, Exposure: m.exposure, Audit: m.audit, Accounts: m.accounts,
	}, slog.New(slog.NewJSONHandler(m.logs, nil)))
	return m
}

// serve sends one request to h as p (nil: no principal). A non-empty body
// is sent as JSON.
func serve(t *testing.T, h http.Handler, p *contracts.Principal, method, target, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := newRequest(t, p, method, target, body)
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	return record(h, r)
}

// decode decodes a JSON response body, failing on unknown fields so the
// tests notice a changed shape.
func decode[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(bytes.NewReader(w.Body.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decoding %T from %s: %v", v, w.Body, err)
	}
	return v
}

// wantOK fails unless w has the status and a JSON body.
func wantOK(t *testing.T, w *httptest.ResponseRecorder, status int) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d; body %s", w.Code, status, w.Body)
	}
	if status != http.StatusNoContent && !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("Content-Type %q, want JSON", w.Header().Get("Content-Type"))
	}
}

// errorBody is the exact shape of every error response.
type errorBody struct {
	Error struct {
		Kind    contracts.ErrorKind `json:"kind"`
		Message string              `json:"message"`
	} `json:"error"`
}

// wantError fails unless w is an error of the status and kind whose
// message contains every fragment, in exactly the error shape.
func wantError(t *testing.T, w *httptest.ResponseRecorder, status int, kind contracts.ErrorKind, fragments ...string) errorBody {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d; body %s", w.Code, status, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, want JSON", ct)
	}
	var raw map[string]map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &raw); err != nil || len(raw) != 1 || len(raw["error"]) != 2 {
		t.Fatalf("body %s is not exactly {\"error\":{\"kind\",\"message\"}}", w.Body)
	}
	b := decode[errorBody](t, w)
	if b.Error.Kind != kind {
		t.Fatalf("kind %q, want %q; body %s", b.Error.Kind, kind, w.Body)
	}
	for _, f := range fragments {
		if !strings.Contains(b.Error.Message, f) {
			t.Fatalf("message %q does not contain %q", b.Error.Message, f)
		}
	}
	return b
}

// newRequest builds a request as p (nil: no principal).
func newRequest(t *testing.T, p *contracts.Principal, method, target, body string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if p != nil {
		r = r.WithContext(contracts.WithPrincipal(context.Background(), *p))
	}
	return r
}

// record serves r with h.
func record(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
