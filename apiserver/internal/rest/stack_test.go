package rest_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/takhtabush/takhtabush/adapters/sqlite"
	"github.com/takhtabush/takhtabush/apiserver/internal/rest"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/fsrs"
)

// stack is the handler over the real domain services on a fresh SQLite
// file, with one signed-in user.
type stack struct {
	h   http.Handler
	svc *domain.Services
	web *contracts.Principal // the user's web session
}

func newStack(t *testing.T) *stack {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "takhtabush.db"))
	if err != nil {
		t.Fatalf("opening the store: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	svc := domain.NewServices(store, nil, domain.SystemClock{}, domain.RandomIDs{}, fsrs.New(), domain.Config{BaseURL: "http://localhost:8080"})
	user, err := svc.Accounts.CreateUser(ctx, "learner@example.com", "Learner")
	if err != nil {
		t.Fatalf("creating the user: %v", err)
	}
	return &stack{
		h: rest.NewHandler(rest.Services{
			Decks: svc.Decks, Cards: svc.Cards, Study: svc.Study, Stats: svc.Stats,
			Keys: svc.Keys, Exposure: svc.Exposure, Audit: svc.Audit, Accounts: svc.Accounts,
		}, slog.New(slog.DiscardHandler)),
		svc: svc,
		web: &contracts.Principal{UserID: user.ID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession, CredentialID: "web-session-1"},
	}
}

// as returns a context acting as p.
func as(p *contracts.Principal) context.Context {
	return contracts.WithPrincipal(context.Background(), *p)
}

// call sends a request as p and wants status; it returns the response.
func (s *stack) call(t *testing.T, p *contracts.Principal, method, target, body string, status int) *httptest.ResponseRecorder {
	t.Helper()
	w := serve(t, s.h, p, method, target, body)
	wantOK(t, w, status)
	return w
}

// createDeck makes a deck through the API and returns it.
func (s *stack) createDeck(t *testing.T, name string) contracts.Deck {
	t.Helper()
	return decode[contracts.Deck](t, s.call(t, s.web, "POST", "/api/decks", `{"name":"`+name+`"}`, http.StatusCreated))
}
