package apiserver_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// userCtx is a web session's principal for the account email.
func userCtx(t *testing.T, e *env, email string) context.Context {
	t.Helper()
	u, _, err := e.app.EnsureUser(context.Background(), email, "")
	if err != nil {
		t.Fatal(err)
	}
	return contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: u.ID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
}

// addNote adds one note to a new deck and returns the note's id and its
// cards' ids.
func addNote(t *testing.T, e *env, ctx context.Context, noteType string, fields map[string]string) (string, []string) {
	t.Helper()
	svc := e.app.Services()
	d, err := svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Notes " + noteType})
	if err != nil {
		t.Fatal(err)
	}
	res, err := svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: d.ID, Notes: []contracts.NewNote{{NoteType: noteType, Fields: fields, Tags: []string{"old"}}}})
	if err != nil || res.Items[0].Status != contracts.OutcomeCreated {
		t.Fatalf("adding a %s note: %+v, %v", noteType, res, err)
	}
	return res.Items[0].ID, res.Items[0].CardIDs
}

// TestEditNoteForm: POST /notes/{id} changes a note's fields and tags
// through update_notes: its cards get the new text and keep their
// scheduling, and the audit trail has an update_notes row for the note. A
// change the domain refuses shows the form again, 400, with the reason and
// everything typed; another person's note is not found and stays as it was.
func TestEditNoteForm(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		cookies, csrf := e.signIn(t, testUser)
		ctx := userCtx(t, e, testUser)
		svc := e.app.Services()
		noteID, cardIDs := addNote(t, e, ctx, contracts.NoteTypeBasicReversed, map[string]string{"Front": "Ankara", "Back": "Turkey"})
		reviewed := reviewCard(t, e, ctx, cardIDs[0])
		post := func(id string, form url.Values) (*http.Response, string) {
			t.Helper()
			form.Set("csrf_token", csrf)
			resp, body := e.postForm(t, "/notes/"+id, form, http.Header{"Origin": {e.base}}, cookies...)
			return resp, string(body)
		}

		resp, body := post(noteID, url.Values{"cardId": {cardIDs[0]}, "field-0": {"Ankara (since 1923)"}, "field-1": {"Türkiye"}, "tags": {"geo capitals"}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/decks/"+reviewed.DeckID+"?flash=note-saved" {
			t.Fatalf("saving the note: %d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
		}
		n, err := svc.Notes.GetNote(ctx, noteID)
		if err != nil || n.Fields["Front"] != "Ankara (since 1923)" || n.Fields["Back"] != "Türkiye" || !slices.Equal(n.Tags, []string{"geo", "capitals"}) {
			t.Fatalf("the note after the form: %+v, %v", n, err)
		}
		c, err := svc.Cards.GetCard(ctx, cardIDs[0])
		if err != nil || c.Front != "Ankara (since 1923)" || c.Back != "Türkiye" {
			t.Errorf("the reviewed card after the edit: %+v, %v", c, err)
		}
		if s, was := c.State, reviewed.State; !s.Due.Equal(was.Due) || s.Stability != was.Stability || s.Reps != was.Reps || s.Phase != was.Phase || was.Reps == 0 {
			t.Errorf("the edit changed the card's scheduling: %+v, was %+v", s, was)
		}
		if r, err := svc.Cards.GetCard(ctx, cardIDs[1]); err != nil || r.Front != "Türkiye" || r.Back != "Ankara (since 1923)" {
			t.Errorf("the reverse card after the edit: %+v, %v", r, err)
		}
		audit, err := svc.Audit.List(ctx, contracts.AuditFilter{Tool: contracts.ToolUpdateNotes}, "", 10)
		if err != nil || len(audit.Items) != 1 || !slices.Equal(audit.Items[0].AffectedIDs, []string{noteID}) ||
			audit.Items[0].CredentialKind != contracts.CredentialSession || audit.Items[0].Outcome != contracts.AuditOK {
			t.Errorf("update_notes audit rows: %+v, %v", audit.Items, err)
		}

		// An empty first field leaves the reverse card without a back:
		// refused, and the form comes back with what was typed.
		resp, body = post(noteID, url.Values{"cardId": {cardIDs[0]}, "field-0": {""}, "field-1": {"typed <back>"}, "tags": {"kept typed"}, "deckId": {reviewed.DeckID}})
		page := html.UnescapeString(body)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(page, "The note was not saved: card 2: back must not be empty") ||
			!strings.Contains(page, ">typed <back></textarea>") || !strings.Contains(page, `value="kept typed"`) || !strings.Contains(page, `id="edit-note"`) {
			t.Errorf("an empty first field: %d\n%s", resp.StatusCode, body)
		}
		if n2, _ := svc.Notes.GetNote(ctx, noteID); n2.Fields["Back"] != "Türkiye" {
			t.Errorf("the refused edit changed the note: %+v", n2)
		}

		// A re-made card that would duplicate another card of its deck:
		// 409, the form again.
		if _, err := svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: reviewed.DeckID, Cards: []contracts.NewCard{{Front: "Paris", Back: "France"}}}); err != nil {
			t.Fatal(err)
		}
		resp, body = post(noteID, url.Values{"cardId": {cardIDs[0]}, "field-0": {"Paris"}, "field-1": {"France"}})
		if resp.StatusCode != http.StatusConflict || !strings.Contains(body, "card 1 would duplicate another card of its deck") || !strings.Contains(body, ">Paris</textarea>") {
			t.Errorf("a duplicating edit: %d\n%s", resp.StatusCode, body)
		}

		// Another deck moves the card the form was opened from, and only it.
		other, err := svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Elsewhere"})
		if err != nil {
			t.Fatal(err)
		}
		resp, body = post(noteID, url.Values{"cardId": {cardIDs[1]}, "field-0": {"Ankara"}, "field-1": {"Türkiye"}, "deckId": {other.ID}})
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/decks/"+other.ID+"?flash=note-saved" {
			t.Fatalf("saving and moving: %d %q\n%s", resp.StatusCode, resp.Header.Get("Location"), body)
		}
		n, _ = svc.Notes.GetNote(ctx, noteID)
		if len(n.Cards) != 2 || n.Cards[0].DeckID != reviewed.DeckID || n.Cards[1].DeckID != other.ID || n.Cards[0].Front != "Ankara" || len(n.Tags) != 0 {
			t.Errorf("after saving and moving the reverse card: %+v", n)
		}

		// Another person's note is not found, and stays as it was.
		bob := userCtx(t, e, "bob@example.com")
		bobNote, bobCards := addNote(t, e, bob, contracts.NoteTypeBasic, map[string]string{"Front": "Bob's", "Back": "secret"})
		for _, card := range []string{bobCards[0], cardIDs[0]} {
			if resp, body := post(bobNote, url.Values{"cardId": {card}, "field-0": {"mine now"}, "field-1": {"x"}}); resp.StatusCode != http.StatusNotFound {
				t.Errorf("another person's note with card %s: %d\n%s", card, resp.StatusCode, body)
			}
		}
		if n, err := svc.Notes.GetNote(bob, bobNote); err != nil || n.Fields["Front"] != "Bob's" {
			t.Errorf("Bob's note after the refused edit: %+v, %v", n, err)
		}
		// A card of another note does not open this one either.
		if resp, body := post(noteID, url.Values{"cardId": {bobCards[0]}, "field-0": {"x"}}); resp.StatusCode != http.StatusNotFound {
			t.Errorf("the note with another person's card: %d\n%s", resp.StatusCode, body)
		}
	})
}

// reviewCard rates a card good in a study session of its deck (the card
// must be the only new card there or come first) and returns it after.
func reviewCard(t *testing.T, e *env, ctx context.Context, cardID string) contracts.Card {
	t.Helper()
	svc := e.app.Services()
	c, err := svc.Cards.GetCard(ctx, cardID)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: c.DeckID})
	if err != nil || sess.Current == nil || sess.Current.CardID != cardID {
		t.Fatalf("study session %+v, %v; want card %s first", sess, err, cardID)
	}
	pos := 0
	if _, err := svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: sess.ID, CardID: cardID, Position: &pos, Rating: contracts.RatingGood}); err != nil {
		t.Fatal(err)
	}
	if c, err = svc.Cards.GetCard(ctx, cardID); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEditFormsKeepTheCardsDeck: a card's edit form, a plain card's or a
// note's, has the card's own deck chosen even when the person has more
// decks than the form lists, so saving it does not move the card.
func TestEditFormsKeepTheCardsDeck(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	cookies, _ := e.signIn(t, testUser)
	ctx := userCtx(t, e, testUser)
	svc := e.app.Services()
	for i := range 100 {
		if _, err := svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Early " + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	_, cards := addNote(t, e, ctx, contracts.NoteTypeBasic, map[string]string{"Front": "late", "Back": "deck"})
	c, err := svc.Cards.GetCard(ctx, cards[0])
	if err != nil {
		t.Fatal(err)
	}
	plain, err := svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: c.DeckID, Cards: []contracts.NewCard{{Front: "plain", Back: "card"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{c.ID, plain.Items[0].ID} {
		resp, body := e.request(t, http.MethodGet, "/cards/"+id+"/edit", nil, nil, cookies...)
		if want := `<option value="` + c.DeckID + `" selected>`; resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("GET /cards/%s/edit: %d, no %s in\n%s", id, resp.StatusCode, want, body)
		}
	}
}
