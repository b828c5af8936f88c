package rest_test

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
	"go.uber.org/mock/gomock"
)

// Every error kind a service returns becomes its status and the exact
// error body, even when wrapped.
func TestErrorKindsMapToStatuses(t *testing.T) {
	cases := []struct {
		kind   contracts.ErrorKind
		status int
	}{
		{contracts.KindInvalid, http.StatusBadRequest},
		{contracts.KindUnauthenticated, http.StatusUnauthorized},
		{contracts.KindForbidden, http.StatusForbidden},
		{contracts.KindNotFound, http.StatusNotFound},
		{contracts.KindConflict, http.StatusConflict},
		{contracts.KindRateLimited, http.StatusTooManyRequests},
		{contracts.KindUnavailable, http.StatusServiceUnavailable},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			m := newMocked(t)
			err := fmt.Errorf("service layer: %w", contracts.Errorf(c.kind, "the %s message", c.kind))
			m.decks.EXPECT().GetDeck(gomock.Any(), "d1").Return(contracts.Deck{}, err)
			w := serve(t, m.h, webUser, "GET", "/api/decks/d1", "")
			b := wantError(t, w, c.status, c.kind)
			if want := "the " + string(c.kind) + " message"; b.Error.Message != want {
				t.Fatalf("message %q, want %q", b.Error.Message, want)
			}
			if m.logs.Len() != 0 {
				t.Fatalf("a %s error was logged: %s", c.kind, m.logs)
			}
		})
	}
}

// An internal error, and an error that is not a *contracts.Error at all,
// show only "internal error" with a reference id; the cause goes to the
// log under that id and never into the body.
func TestInternalErrorsHideTheCause(t *testing.T) {
	causes := map[string]error{
		"internal kind": contracts.Internal(errors.New("SELECT secret FROM keys: disk I/O error")),
		"plain error":   errors.New("SELECT secret FROM keys: disk I/O error"),
		"unknown kind":  &contracts.Error{Kind: "weird", Message: "SELECT secret FROM keys"},
	}
	for name, cause := range causes {
		t.Run(name, func(t *testing.T) {
			m := newMocked(t)
			m.decks.EXPECT().ListDecks(gomock.Any(), gomock.Any()).Return(contracts.DeckPage{}, cause)
			w := serve(t, m.h, webUser, "GET", "/api/decks", "")
			b := wantError(t, w, http.StatusInternalServerError, contracts.KindInternal, "internal error (ref ")
			if strings.Contains(w.Body.String(), "SELECT") {
				t.Fatalf("the cause leaked into the body: %s", w.Body)
			}
			ref := strings.TrimSuffix(strings.TrimPrefix(b.Error.Message, "internal error (ref "), ")")
			if len(ref) != len(mcpcore.NewRef()) || !strings.Contains(m.logs.String(), ref) || !strings.Contains(m.logs.String(), "SELECT secret") {
				t.Fatalf("the log does not hold the reference %q and the cause: %s", ref, m.logs)
			}
		})
	}
}

// Two internal errors get two reference ids.
func TestInternalErrorReferencesDiffer(t *testing.T) {
	m := newMocked(t)
	m.decks.EXPECT().ListDecks(gomock.Any(), gomock.Any()).Return(contracts.DeckPage{}, errors.New("boom")).Times(2)
	a := wantError(t, serve(t, m.h, webUser, "GET", "/api/decks", ""), 500, contracts.KindInternal)
	b := wantError(t, serve(t, m.h, webUser, "GET", "/api/decks", ""), 500, contracts.KindInternal)
	if a.Error.Message == b.Error.Message {
		t.Fatalf("two failures share the reference: %q", a.Error.Message)
	}
}

// Successful responses: 200 with the record, 201 for a creation, an empty
// 204 for a revocation.
func TestResponseStatuses(t *testing.T) {
	m := newMocked(t)
	deck := contracts.Deck{ID: "d1", Name: "Verbs", Settings: contracts.DefaultDeckSettings()}
	m.decks.EXPECT().CreateDeck(gomock.Any(), contracts.CreateDeckArgs{Name: "Verbs"}).Return(deck, nil)
	m.decks.EXPECT().GetDeck(gomock.Any(), "d1").Return(deck, nil)
	m.keys.EXPECT().RevokeKey(gomock.Any(), "k9").Return(nil)

	w := serve(t, m.h, webUser, "POST", "/api/decks", `{"name":"Verbs"}`)
	wantOK(t, w, http.StatusCreated)
	if got := decode[contracts.Deck](t, w); got.ID != "d1" || got.Name != "Verbs" {
		t.Fatalf("created %+v", got)
	}
	w = serve(t, m.h, webUser, "GET", "/api/decks/d1", "")
	wantOK(t, w, http.StatusOK)
	if got := decode[contracts.Deck](t, w); !reflect.DeepEqual(got.Settings, contracts.DefaultDeckSettings()) {
		t.Fatalf("got %+v", got)
	}
	if cc := w.Header().Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("Cache-Control %q", cc)
	}
	w = serve(t, m.h, webUser, "DELETE", "/api/keys/k9", "")
	wantOK(t, w, http.StatusNoContent)
	if w.Body.Len() != 0 {
		t.Fatalf("204 with a body: %s", w.Body)
	}
}
