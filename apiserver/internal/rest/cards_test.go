package rest_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// Bulk add reports one outcome per card: created, duplicate (naming the
// card it repeats) and invalid (with a reason), and the created cards are
// readable one by one.
func TestBulkAddWithDuplicateAndInvalid(t *testing.T) {
	s := newStack(t)
	deck := s.createDeck(t, "German")
	body := `{"cards":[
		{"front":"der Hund","back":"the dog","tags":["noun"]},
		{"front":"die Katze","back":"the cat"},
		{"front":"der Hund","back":"the dog"},
		{"front":"","back":"nothing in front"}
	],"idempotencyKey":"batch-1"}`
	res := decode[contracts.BulkResult](t, s.call(t, s.web, "POST", "/api/decks/"+deck.ID+"/cards", body, http.StatusOK))
	if len(res.Items) != 4 {
		t.Fatalf("%d outcomes, want 4: %+v", len(res.Items), res)
	}
	want := []contracts.OutcomeStatus{contracts.OutcomeCreated, contracts.OutcomeCreated, contracts.OutcomeDuplicate, contracts.OutcomeInvalid}
	for i, st := range want {
		if res.Items[i].Index != i || res.Items[i].Status != st {
			t.Fatalf("item %d: %+v, want status %s", i, res.Items[i], st)
		}
	}
	if res.Items[2].ExistingID != res.Items[0].ID || res.Items[3].Reason == "" {
		t.Fatalf("duplicate or invalid outcome incomplete: %+v", res.Items)
	}
	if res.Counts["created"] != 2 || res.Counts["duplicate"] != 1 || res.Counts["invalid"] != 1 {
		t.Fatalf("counts %v", res.Counts)
	}

	card := decode[contracts.Card](t, s.call(t, s.web, "GET", "/api/cards/"+res.Items[0].ID, "", http.StatusOK))
	if card.Front != "der Hund" || card.DeckID != deck.ID || card.State.Phase != contracts.PhaseNew || len(card.Tags) != 1 {
		t.Fatalf("card %+v", card)
	}

	// The same idempotency key replays; with other content it conflicts.
	replay := decode[contracts.BulkResult](t, s.call(t, s.web, "POST", "/api/decks/"+deck.ID+"/cards", body, http.StatusOK))
	if !replay.Replayed || replay.Items[0].ID != res.Items[0].ID {
		t.Fatalf("replay %+v", replay)
	}
	w := serve(t, s.h, s.web, "POST", "/api/decks/"+deck.ID+"/cards", `{"cards":[{"front":"x","back":"y"}],"idempotencyKey":"batch-1"}`)
	wantError(t, w, http.StatusConflict, contracts.KindConflict)

	// A missing deck fails the whole request.
	w = serve(t, s.h, s.web, "POST", "/api/decks/no-such-deck/cards", `{"cards":[{"front":"x","back":"y"}]}`)
	wantError(t, w, http.StatusNotFound, contracts.KindNotFound)
	// An unknown field in an item is refused before anything is added.
	w = serve(t, s.h, s.web, "POST", "/api/decks/"+deck.ID+"/cards", `{"cards":[{"front":"x","back":"y","extra":1}]}`)
	wantError(t, w, http.StatusBadRequest, contracts.KindInvalid, `unknown field "extra"`)
	wantError(t, serve(t, s.h, s.web, "GET", "/api/cards/no-such-card", ""), http.StatusNotFound, contracts.KindNotFound)
}

// Search filters by text, deck, every tag given, state and due time, and
// pages through its results.
func TestSearchFiltersAndPaging(t *testing.T) {
	s := newStack(t)
	german, french := s.createDeck(t, "German"), s.createDeck(t, "French")
	var items []string
	for i := range 7 {
		tags := `["noun"]`
		if i%2 == 0 {
			tags = `["noun","animal"]`
		}
		items = append(items, fmt.Sprintf(`{"front":"Wort %d","back":"word %d","tags":%s}`, i, i, tags))
	}
	s.call(t, s.web, "POST", "/api/decks/"+german.ID+"/cards", `{"cards":[`+strings.Join(items, ",")+`]}`, http.StatusOK)
	s.call(t, s.web, "POST", "/api/decks/"+french.ID+"/cards", `{"cards":[{"front":"le chien","back":"the dog","tags":["animal"]}]}`, http.StatusOK)

	search := func(query string) contracts.CardPage {
		t.Helper()
		return decode[contracts.CardPage](t, s.call(t, s.web, "GET", "/api/cards?"+query, "", http.StatusOK))
	}
	if n := len(search("deckId=" + german.ID).Items); n != 7 {
		t.Fatalf("deck filter: %d cards, want 7", n)
	}
	if n := len(search("tag=animal").Items); n != 5 {
		t.Fatalf("tag filter: %d cards, want 5 (4 German, 1 French)", n)
	}
	if n := len(search("tag=animal&tag=noun").Items); n != 4 {
		t.Fatalf("two tags: %d cards, want 4", n)
	}
	if got := search("q=chien").Items; len(got) != 1 || got[0].Front != "le chien" {
		t.Fatalf("text search: %+v", got)
	}
	if n := len(search("state=new&deckId=" + french.ID).Items); n != 1 {
		t.Fatalf("state=new: %d cards, want 1", n)
	}
	if n := len(search("state=review").Items); n != 0 {
		t.Fatalf("state=review: %d cards, want 0", n)
	}
	past := url.QueryEscape(time.Now().Add(-24 * time.Hour).UTC().Format(time.RFC3339))
	if n := len(search("dueBefore=" + past).Items); n != 0 {
		t.Fatalf("due before yesterday: %d cards, want 0", n)
	}

	seen := map[string]bool{}
	query, pages := "deckId="+german.ID+"&limit=3", 0
	for {
		page := search(query)
		pages++
		for _, c := range page.Items {
			if seen[c.ID] || c.DeckID != german.ID {
				t.Fatalf("card %+v repeated or from another deck", c)
			}
			seen[c.ID] = true
		}
		if page.NextCursor == "" {
			break
		}
		query = "deckId=" + german.ID + "&limit=3&cursor=" + url.QueryEscape(page.NextCursor)
	}
	if pages != 3 || len(seen) != 7 {
		t.Fatalf("%d pages and %d cards, want 3 and 7", pages, len(seen))
	}
	wantError(t, serve(t, s.h, s.web, "GET", "/api/cards?state=sleepy", ""), http.StatusBadRequest, contracts.KindInvalid)
	wantError(t, serve(t, s.h, s.web, "GET", "/api/cards?limit=-1", ""), http.StatusBadRequest, contracts.KindInvalid)
}

// Import, bulk update (edit, suspend, move) and bulk delete.
func TestImportUpdateDelete(t *testing.T) {
	s := newStack(t)
	deck, other := s.createDeck(t, "German"), s.createDeck(t, "Archive")
	imported := decode[contracts.BulkResult](t, s.call(t, s.web, "POST", "/api/decks/"+deck.ID+"/import",
		`{"text":"der Hund\tthe dog\ndie Katze\tthe cat\n","format":"tsv"}`, http.StatusOK))
	if imported.Counts["created"] != 2 {
		t.Fatalf("import %+v", imported)
	}
	dog, cat := imported.Items[0].ID, imported.Items[1].ID

	updated := decode[contracts.BulkResult](t, s.call(t, s.web, "PATCH", "/api/cards", fmt.Sprintf(
		`{"updates":[{"id":%q,"back":"the hound","suspended":true},{"id":%q,"deckId":%q},{"id":"no-such-card","back":"x"}]}`,
		dog, cat, other.ID), http.StatusOK))
	if updated.Counts["updated"] != 2 || updated.Items[2].Status != contracts.OutcomeNotFound {
		t.Fatalf("update %+v", updated)
	}
	card := decode[contracts.Card](t, s.call(t, s.web, "GET", "/api/cards/"+dog, "", http.StatusOK))
	if card.Back != "the hound" || !card.Suspended || card.Front != "der Hund" {
		t.Fatalf("edited card %+v", card)
	}
	if moved := decode[contracts.Card](t, s.call(t, s.web, "GET", "/api/cards/"+cat, "", http.StatusOK)); moved.DeckID != other.ID {
		t.Fatalf("moved card in %s, want %s", moved.DeckID, other.ID)
	}

	deleted := decode[contracts.BulkResult](t, s.call(t, s.web, "POST", "/api/cards/delete", fmt.Sprintf(`{"cardIds":[%q,%q]}`, dog, cat), http.StatusOK))
	if deleted.Counts["deleted"] != 2 {
		t.Fatalf("delete %+v", deleted)
	}
	wantError(t, serve(t, s.h, s.web, "GET", "/api/cards/"+dog, ""), http.StatusNotFound, contracts.KindNotFound)
}
