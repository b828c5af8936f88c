package httperr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// rpcBody is the JSON-RPC door's error body.
type rpcBody struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int               `json:"code"`
		Message string            `json:"message"`
		Data    map[string]string `json:"data"`
	} `json:"error"`
}

// strict decodes b into v, failing on unknown fields.
func strict(t *testing.T, b []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("body %s: %v", b, err)
	}
}

// The table's statuses and codes, door by door, for every kind (wrapped
// errors too): the same status on both doors, the kind in both bodies.
func TestEveryKindOnEveryDoor(t *testing.T) {
	want := map[contracts.ErrorKind]struct{ status, code int }{
		contracts.KindInvalid:         {400, mcpcore.CodeInvalidRequest},
		contracts.KindUnauthenticated: {401, httperr.CodeUnauthenticated},
		contracts.KindForbidden:       {403, mcpcore.CodeInvalidRequest},
		contracts.KindNotFound:        {404, mcpcore.CodeInvalidRequest},
		contracts.KindConflict:        {409, mcpcore.CodeInvalidRequest},
		contracts.KindRateLimited:     {429, mcpcore.CodeInvalidRequest},
		contracts.KindUnavailable:     {503, mcpcore.CodeInternalError},
	}
	for _, kind := range contracts.ErrorKinds {
		if kind == contracts.KindInternal {
			continue // TestInternalErrorsShowOnlyAReference
		}
		w, ok := want[kind]
		if !ok {
			t.Errorf("kind %s has no expectation here: add it to the table and this test", kind)
			continue
		}
		err := fmt.Errorf("layer: %w", contracts.Errorf(kind, "the %s message", kind))

		rec := httptest.NewRecorder()
		httperr.Write(context.Background(), slog.New(slog.DiscardHandler), rec, httperr.JSON, err)
		var jb httperr.Body
		strict(t, rec.Body.Bytes(), &jb)
		if rec.Code != w.status || jb.Error.Kind != kind || jb.Error.Message != "the "+string(kind)+" message" {
			t.Errorf("JSON door, %s: %d %s", kind, rec.Code, rec.Body)
		}
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("JSON door, %s: Content-Type %q", kind, ct)
		}
		if got := httperr.Status(kind); got != w.status {
			t.Errorf("Status(%s) = %d, want %d", kind, got, w.status)
		}
		rec = httptest.NewRecorder()
		if status, k, msg := httperr.Page(context.Background(), slog.New(slog.DiscardHandler), rec, err); status != w.status || k != kind || msg != "the "+string(kind)+" message" {
			t.Errorf("page door, %s: %d %s %q", kind, status, k, msg)
		}

		rec = httptest.NewRecorder()
		httperr.Write(context.Background(), slog.New(slog.DiscardHandler), rec, httperr.JSONRPC, err)
		var rb rpcBody
		strict(t, rec.Body.Bytes(), &rb)
		if rec.Code != w.status || rb.JSONRPC != "2.0" || string(rb.ID) != "null" || rb.Error.Code != w.code ||
			rb.Error.Data["kind"] != string(kind) || rb.Error.Message != "the "+string(kind)+" message" {
			t.Errorf("JSON-RPC door, %s: %d %s", kind, rec.Code, rec.Body)
		}
	}
}

// An internal error, an error of another type and an unknown kind show
// only a reference, which the log line carries beside the cause.
func TestInternalErrorsShowOnlyAReference(t *testing.T) {
	for name, err := range map[string]error{
		"internal":     contracts.Internal(errors.New("SELECT secret FROM keys")),
		"plain":        errors.New("SELECT secret FROM keys"),
		"unknown kind": &contracts.Error{Kind: "weird", Message: "SELECT secret FROM keys"},
	} {
		for _, door := range []httperr.Door{httperr.JSON, httperr.JSONRPC} {
			var logs bytes.Buffer
			rec := httptest.NewRecorder()
			httperr.Write(context.Background(), slog.New(slog.NewJSONHandler(&logs, nil)), rec, door, err)
			if rec.Code != 500 || strings.Contains(rec.Body.String(), "SELECT") || !strings.Contains(rec.Body.String(), `"internal error (ref `) {
				t.Fatalf("%s, door %d: %d %s", name, door, rec.Code, rec.Body)
			}
			if door == httperr.JSON {
				prec := httptest.NewRecorder()
				status, kind, msg := httperr.Page(context.Background(), slog.New(slog.DiscardHandler), prec, err)
				if status != 500 || kind != contracts.KindInternal || strings.Contains(msg, "SELECT") || !strings.HasPrefix(msg, "internal error (ref ") {
					t.Fatalf("%s, page door: %d %s %q", name, status, kind, msg)
				}
			}
			ref := rec.Body.String()
			ref = ref[strings.Index(ref, "(ref ")+5:]
			ref = ref[:strings.IndexByte(ref, ')')]
			if len(ref) != len(mcpcore.NewRef()) || !strings.Contains(logs.String(), `"ref":"`+ref+`"`) || !strings.Contains(logs.String(), "SELECT secret") {
				t.Fatalf("%s: the log does not hold ref %q and the cause: %s", name, ref, logs.String())
			}
		}
	}
}

// The named exceptions keep their kind and say more with their status.
func TestNamedExceptions(t *testing.T) {
	for _, c := range []struct {
		x      httperr.Exception
		status int
		kind   contracts.ErrorKind
	}{
		{httperr.TooLarge, 413, contracts.KindInvalid},
		{httperr.MisdirectedHost, 421, contracts.KindForbidden},
		{httperr.MethodNotAllowed, 405, contracts.KindInvalid},
	} {
		rec := httptest.NewRecorder()
		httperr.Refuse(rec, httperr.JSON, c.x, "why")
		var jb httperr.Body
		strict(t, rec.Body.Bytes(), &jb)
		if rec.Code != c.status || jb.Error.Kind != c.kind || jb.Error.Message != "why" {
			t.Errorf("exception %d: %d %s", c.x, rec.Code, rec.Body)
		}
		rec = httptest.NewRecorder()
		httperr.Refuse(rec, httperr.JSONRPC, c.x, "why")
		var rb rpcBody
		strict(t, rec.Body.Bytes(), &rb)
		if rec.Code != c.status || rb.Error.Data["kind"] != string(c.kind) {
			t.Errorf("exception %d on /mcp: %d %s", c.x, rec.Code, rec.Body)
		}
	}
	if httperr.Status("weird") != http.StatusInternalServerError {
		t.Error("an unknown kind's status is not 500")
	}
}

// The kinds a client should retry carry Retry-After on both doors; the
// others do not.
func TestRetryAfter(t *testing.T) {
	want := map[contracts.ErrorKind]string{contracts.KindUnavailable: "5", contracts.KindRateLimited: "60"}
	for _, kind := range contracts.ErrorKinds {
		for _, door := range []httperr.Door{httperr.JSON, httperr.JSONRPC} {
			rec := httptest.NewRecorder()
			httperr.Write(context.Background(), slog.New(slog.DiscardHandler), rec, door, contracts.Errorf(kind, "m"))
			if got := rec.Header().Get("Retry-After"); got != want[kind] {
				t.Errorf("%s on door %d: Retry-After %q, want %q", kind, door, got, want[kind])
			}
		}
	}
}
