package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// Create, read, list with paging, update and delete a deck over the real
// stack.
func TestDeckRoundTrip(t *testing.T) {
	s := newStack(t)
	deck := decode[contracts.Deck](t, s.call(t, s.web, "POST", "/api/decks",
		`{"name":"German","description":"A1 verbs","desiredRetention":0.85,"newCardsPerDay":5}`, http.StatusCreated))
	if deck.ID == "" || deck.Name != "German" || deck.Settings.DesiredRetention != 0.85 || deck.Settings.NewCardsPerDay != 5 {
		t.Fatalf("created %+v", deck)
	}

	got := decode[contracts.Deck](t, s.call(t, s.web, "GET", "/api/decks/"+deck.ID, "", http.StatusOK))
	if got.ID != deck.ID || got.Description != "A1 verbs" {
		t.Fatalf("got %+v", got)
	}

	updated := decode[contracts.Deck](t, s.call(t, s.web, "PATCH", "/api/decks/"+deck.ID, `{"name":"Deutsch","reviewsPerDay":50}`, http.StatusOK))
	if updated.Name != "Deutsch" || updated.Settings.ReviewsPerDay != 50 || updated.Description != "A1 verbs" || updated.Settings.NewCardsPerDay != 5 {
		t.Fatalf("updated %+v", updated)
	}

	// A duplicate name is a conflict.
	w := serve(t, s.h, s.web, "POST", "/api/decks", `{"name":"Deutsch"}`)
	wantError(t, w, http.StatusConflict, contracts.KindConflict)
	// A bad setting is invalid.
	w = serve(t, s.h, s.web, "PATCH", "/api/decks/"+deck.ID, `{"desiredRetention":1.5}`)
	wantError(t, w, http.StatusBadRequest, contracts.KindInvalid, "etention")

	del := decode[contracts.DeleteResult](t, s.call(t, s.web, "DELETE", "/api/decks/"+deck.ID, "", http.StatusOK))
	if !del.Deleted || del.ID != deck.ID {
		t.Fatalf("deleted %+v", del)
	}
	wantError(t, serve(t, s.h, s.web, "GET", "/api/decks/"+deck.ID, ""), http.StatusNotFound, contracts.KindNotFound)
	wantError(t, serve(t, s.h, s.web, "DELETE", "/api/decks/"+deck.ID, ""), http.StatusNotFound, contracts.KindNotFound)
}

// Listing pages through every deck once, following nextCursor.
func TestDeckListPaging(t *testing.T) {
	s := newStack(t)
	want := map[string]bool{}
	for i := range 5 {
		want[s.createDeck(t, fmt.Sprintf("Deck %d", i)).ID] = true
	}
	seen := map[string]bool{}
	target, pages := "/api/decks?limit=2", 0
	for {
		page := decode[contracts.DeckPage](t, s.call(t, s.web, "GET", target, "", http.StatusOK))
		pages++
		if len(page.Items) > 2 {
			t.Fatalf("page of %d items with limit 2", len(page.Items))
		}
		for _, d := range page.Items {
			if seen[d.ID] {
				t.Fatalf("deck %s listed twice", d.ID)
			}
			seen[d.ID] = true
		}
		if page.NextCursor == "" {
			break
		}
		target = "/api/decks?limit=2&cursor=" + page.NextCursor
	}
	if pages != 3 || len(seen) != len(want) {
		t.Fatalf("%d pages, %d decks seen; want 3 pages, %d decks", pages, len(seen), len(want))
	}
	wantError(t, serve(t, s.h, s.web, "GET", "/api/decks?cursor=garbage", ""), http.StatusBadRequest, contracts.KindInvalid)
}

// Another user's deck is not found, never forbidden.
func TestDeckOfAnotherUser(t *testing.T) {
	s := newStack(t)
	deck := s.createDeck(t, "Mine")
	other, err := s.svc.Accounts.CreateUser(as(s.web), "other@example.com", "")
	if err != nil {
		t.Fatal(err)
	}
	stranger := &contracts.Principal{UserID: other.ID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession}
	wantError(t, serve(t, s.h, stranger, "GET", "/api/decks/"+deck.ID, ""), http.StatusNotFound, contracts.KindNotFound)
	wantError(t, serve(t, s.h, stranger, "PATCH", "/api/decks/"+deck.ID, `{"name":"x"}`), http.StatusNotFound, contracts.KindNotFound)
}
