package rest_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"go.uber.org/mock/gomock"
)

// accountRoutes are routes only a web session may use (every route but
// /api/me), each with a body that would otherwise be valid.
var accountRoutes = []struct{ method, path, body string }{
	{"GET", "/api/decks", ""},
	{"POST", "/api/decks", `{"name":"Geography"}`},
	{"DELETE", "/api/decks/d1", ""},
	{"POST", "/api/decks/d1/cards", `{"cards":[{"front":"Q","back":"A"}]}`},
	{"POST", "/api/cards/delete", `{"cardIds":["c1"]}`},
	{"GET", "/api/cards?q=x", ""},
	{"POST", "/api/study-sessions/s1/reviews", `{"cardId":"c1","rating":"good"}`},
	{"GET", "/api/stats", ""},
	{"GET", "/api/keys", ""},
	{"POST", "/api/keys", `{"name":"laptop","scopes":["decks:read"]}`},
	{"DELETE", "/api/keys/k1", ""},
	{"GET", "/api/exposure", ""},
	{"PUT", "/api/exposure", `{"readOnly":true,"disabledTools":[]}`},
	{"GET", "/api/audit", ""},
}

// An API key or an OAuth token never reaches a service through REST: an
// agent's key works on /mcp, where its scopes, the account's exposure and
// the audit trail apply. The mocks have no expectations, so any call fails
// the test.
func TestAccountRoutesRefuseKeysAndTokens(t *testing.T) {
	for _, p := range []*contracts.Principal{keyUser, appUser} {
		for _, rt := range accountRoutes {
			t.Run(string(p.CredentialKind)+" "+rt.method+" "+rt.path, func(t *testing.T) {
				m := newMocked(t)
				w := serve(t, m.h, p, rt.method, rt.path, rt.body)
				wantError(t, w, http.StatusForbidden, contracts.KindForbidden, "agents use /mcp")
			})
		}
	}
}

// The access check comes before decoding: a key learns nothing about the
// route, not even that its body is malformed.
func TestAccountRoutesRefuseBeforeDecoding(t *testing.T) {
	m := newMocked(t)
	w := serve(t, m.h, keyUser, "POST", "/api/keys", `{"name":`)
	wantError(t, w, http.StatusForbidden, contracts.KindForbidden)
}

// A web session mints a key: the request reaches CreateKey with its name,
// scopes and expiry, and the response is 201 with the secret.
func TestWebSessionMintsKey(t *testing.T) {
	m := newMocked(t)
	minted := contracts.NewAPIKey{Key: contracts.APIKeyView{ID: "k1", Name: "laptop", Scopes: []contracts.Scope{contracts.ScopeDecksRead}, Hint: "abcdef"}, Secret: "tbk_secret"}
	m.keys.EXPECT().CreateKey(gomock.Any(), "laptop", []contracts.Scope{contracts.ScopeDecksRead}, 720*time.Hour).Return(minted, nil)
	w := serve(t, m.h, webUser, "POST", "/api/keys", `{"name":"laptop","scopes":["decks:read"],"expiresIn":"720h"}`)
	wantOK(t, w, http.StatusCreated)
	if got := decode[contracts.NewAPIKey](t, w); got.Secret != "tbk_secret" || got.Key.ID != "k1" {
		t.Fatalf("minted %+v", got)
	}
}

// The development principal stands in for a web session.
func TestDevPrincipalManagesExposure(t *testing.T) {
	m := newMocked(t)
	dev := *webUser
	dev.CredentialKind = contracts.CredentialDev
	m.exposure.EXPECT().Exposure(gomock.Any()).Return(contracts.ExposureSettings{}, nil)
	w := serve(t, m.h, &dev, "GET", "/api/exposure", "")
	wantOK(t, w, http.StatusOK)
	if w.Body.String() != `{"readOnly":false,"disabledTools":[]}`+"\n" {
		t.Fatalf("body %s", w.Body)
	}
}

// Without a principal every route answers 401 and calls nothing.
func TestNoPrincipalIsUnauthenticated(t *testing.T) {
	m := newMocked(t)
	for _, target := range []string{"/api/me", "/api/decks", "/api/cards?q=x", "/api/stats", "/api/keys", "/api/audit"} {
		w := serve(t, m.h, nil, "GET", target, "")
		wantError(t, w, http.StatusUnauthorized, contracts.KindUnauthenticated)
	}
	w := serve(t, m.h, nil, "POST", "/api/decks", `{"name":`)
	wantError(t, w, http.StatusUnauthorized, contracts.KindUnauthenticated)
}

// A web session uses the ordinary routes; the domain scopes them.
func TestWebSessionUsesOrdinaryRoutes(t *testing.T) {
	m := newMocked(t)
	m.decks.EXPECT().ListDecks(gomock.Any(), contracts.ListDecksArgs{}).Return(contracts.DeckPage{Items: []contracts.Deck{}}, nil)
	w := serve(t, m.h, webUser, "GET", "/api/decks", "")
	wantOK(t, w, http.StatusOK)
}

// /api/me names the user, the credential kind and the scopes.
func TestMe(t *testing.T) {
	m := newMocked(t)
	m.accounts.EXPECT().UserByID(gomock.Any(), "u1").Return(contracts.User{ID: "u1", Email: "a@example.com"}, nil)
	w := serve(t, m.h, keyUser, "GET", "/api/me", "")
	wantOK(t, w, http.StatusOK)
	got := decode[struct {
		User           contracts.User           `json:"user"`
		CredentialKind contracts.CredentialKind `json:"credentialKind"`
		Scopes         []contracts.Scope        `json:"scopes"`
	}](t, w)
	if got.User.Email != "a@example.com" || got.CredentialKind != contracts.CredentialAPIKey || len(got.Scopes) != len(contracts.AllScopes) {
		t.Fatalf("me %+v", got)
	}
}
