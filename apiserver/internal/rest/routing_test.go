package rest_test

import (
	"net/http"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"go.uber.org/mock/gomock"
)

// A path outside the route table is a JSON 404; a known path with another
// method is a JSON 405 naming the methods allowed.
func TestUnroutedRequests(t *testing.T) {
	m := newMocked(t)
	w := serve(t, m.h, webUser, "GET", "/api/nope", "")
	wantError(t, w, http.StatusNotFound, contracts.KindNotFound, "no API route GET /api/nope")

	w = serve(t, m.h, webUser, "PUT", "/api/decks", `{}`)
	wantError(t, w, http.StatusMethodNotAllowed, contracts.KindInvalid, "method PUT is not allowed")
	if got := w.Header().Get("Allow"); got != "GET, POST" {
		t.Fatalf("Allow %q, want \"GET, POST\"", got)
	}

	w = serve(t, m.h, webUser, "POST", "/api/decks/d1", `{}`)
	wantError(t, w, http.StatusMethodNotAllowed, contracts.KindInvalid)
	if got := w.Header().Get("Allow"); got != "GET, PATCH, DELETE" {
		t.Fatalf("Allow %q, want \"GET, PATCH, DELETE\"", got)
	}
}

// A card whose id is "delete" is still reachable: the bulk-delete route is
// POST only.
func TestCardNamedDelete(t *testing.T) {
	m := newMocked(t)
	m.cards.EXPECT().GetCard(gomock.Any(), "delete").Return(contracts.Card{ID: "delete"}, nil)
	w := serve(t, m.h, webUser, "GET", "/api/cards/delete", "")
	wantOK(t, w, http.StatusOK)
}
