package contracts_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

func TestErrorKinds(t *testing.T) {
	nf := contracts.Errorf(contracts.KindNotFound, "deck %q not found", "d1")
	wrapped := fmt.Errorf("loading: %w", nf)
	if got := contracts.KindOf(wrapped); got != contracts.KindNotFound {
		t.Fatalf("KindOf(wrapped) = %q", got)
	}
	if !errors.Is(wrapped, &contracts.Error{Kind: contracts.KindNotFound}) {
		t.Fatal("errors.Is does not match by kind through wrapping")
	}
	if errors.Is(wrapped, &contracts.Error{Kind: contracts.KindConflict}) {
		t.Fatal("errors.Is matched another kind")
	}
	if got := contracts.MessageOf(wrapped); got != `deck "d1" not found` {
		t.Fatalf("MessageOf = %q", got)
	}
	secret := errors.New("pq: relation \"cards\" does not exist")
	internal := contracts.Internal(secret)
	if contracts.KindOf(internal) != contracts.KindInternal || contracts.MessageOf(internal) != "internal error" {
		t.Fatalf("internal error leaks: kind %q message %q", contracts.KindOf(internal), contracts.MessageOf(internal))
	}
	if !errors.Is(internal, secret) {
		t.Fatal("Internal drops its cause for logs")
	}
	if contracts.Internal(nf) != nf {
		t.Fatal("Internal rewraps an *Error")
	}
	if contracts.KindOf(errors.New("plain")) != contracts.KindInternal || contracts.KindOf(nil) != "" {
		t.Fatal("KindOf of plain or nil errors is wrong")
	}
}

// An insufficient-scope refusal carries the scopes it lacks through
// wrapping; other refusals, and other kinds, carry none.
func TestScopeErrorf(t *testing.T) {
	need := []contracts.Scope{contracts.ScopeStudyWrite}
	err := fmt.Errorf("reading: %w", contracts.ScopeErrorf(need, "job %s needs %s", "j1", need[0]))
	need[0] = contracts.ScopeDecksRead // the error keeps its own copy
	if !contracts.IsKind(err, contracts.KindForbidden) || contracts.MessageOf(err) != "job j1 needs study:write" {
		t.Errorf("ScopeErrorf = kind %q, message %q", contracts.KindOf(err), contracts.MessageOf(err))
	}
	if got := contracts.ScopesOf(err); len(got) != 1 || got[0] != contracts.ScopeStudyWrite {
		t.Errorf("ScopesOf = %v, want [study:write]", got)
	}
	if got := contracts.ScopesOf(contracts.Errorf(contracts.KindForbidden, "read-only")); got != nil {
		t.Errorf("ScopesOf of a plain refusal = %v", got)
	}
	if got := contracts.ScopesOf(&contracts.Error{Kind: contracts.KindInvalid, Scopes: need}); got != nil {
		t.Errorf("ScopesOf of an invalid-kind error = %v", got)
	}
}

func TestParseScopes(t *testing.T) {
	got, err := contracts.ParseScopes("stats:read, decks:read decks:read")
	if err != nil || len(got) != 2 || got[0] != contracts.ScopeDecksRead || got[1] != contracts.ScopeStatsRead {
		t.Fatalf("ParseScopes = %v, %v", got, err)
	}
	if _, err := contracts.ParseScopes("decks:read,admin"); !contracts.IsKind(err, contracts.KindInvalid) {
		t.Fatalf("unknown scope: err = %v", err)
	}
	if got, err := contracts.ParseScopes(""); err != nil || len(got) != 0 {
		t.Fatalf("empty list = %v, %v", got, err)
	}
	if !contracts.HasScopes(contracts.AllScopes, []contracts.Scope{contracts.ScopeMediaWrite}) ||
		contracts.HasScopes([]contracts.Scope{contracts.ScopeDecksRead}, []contracts.Scope{contracts.ScopeDecksWrite}) {
		t.Fatal("HasScopes is wrong")
	}
}

func TestPrincipalContext(t *testing.T) {
	ctx := context.Background()
	if _, err := contracts.UserID(ctx); !contracts.IsKind(err, contracts.KindUnauthenticated) {
		t.Fatalf("UserID without principal: %v", err)
	}
	ctx = contracts.WithPrincipal(ctx, contracts.Principal{UserID: "u1", CredentialKind: contracts.CredentialAPIKey})
	if id, err := contracts.UserID(ctx); id != "u1" || err != nil {
		t.Fatalf("UserID = %q, %v", id, err)
	}
}

func TestExposureAllows(t *testing.T) {
	add, _ := contracts.Tool(contracts.ToolAddCards)
	list, _ := contracts.Tool(contracts.ToolListDecks)
	var s contracts.ExposureSettings
	if !s.Allows(add) || !s.Allows(list) {
		t.Fatal("default settings must expose everything")
	}
	s.ReadOnly = true
	if s.Allows(add) || !s.Allows(list) {
		t.Fatal("read-only must hide writes only")
	}
	s = contracts.ExposureSettings{DisabledTools: []string{contracts.ToolListDecks}}
	if s.Allows(list) || !s.Allows(add) {
		t.Fatal("a disabled tool must be hidden, others not")
	}
}

// TestErrorLogValue: logs carry the cause that messages hide.
func TestErrorLogValue(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	err := contracts.Internal(errors.New("sqlite: no such column: dek_id"))
	log.Error("failed", "err", err)
	if !strings.Contains(buf.String(), "no such column") || !strings.Contains(buf.String(), "kind=internal") {
		t.Fatalf("log lacks the cause: %s", buf.String())
	}
}

// ErrorKinds lists every Kind constant declared in errors.go, so the
// transports' tables that range over it cannot miss a new kind.
func TestErrorKindsListsEveryKind(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[contracts.ErrorKind]bool{}
	for _, k := range contracts.ErrorKinds {
		listed[k] = true
	}
	declared := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "ErrorKind" {
				continue
			}
			lit := v.Values[0].(*ast.BasicLit)
			declared++
			if k := contracts.ErrorKind(strings.Trim(lit.Value, `"`)); !listed[k] {
				t.Errorf("kind %s (%s) is not in ErrorKinds", k, v.Names[0].Name)
			}
		}
	}
	if declared != len(contracts.ErrorKinds) {
		t.Errorf("errors.go declares %d kinds, ErrorKinds lists %d", declared, len(contracts.ErrorKinds))
	}
}
