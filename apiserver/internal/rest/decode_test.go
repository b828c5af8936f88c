package rest_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"go.uber.org/mock/gomock"
)

// Malformed requests are 400 invalid with a message that says what is
// wrong, and never reach a service (the mocks expect nothing).
func TestMalformedRequests(t *testing.T) {
	cases := []struct {
		name, method, target, body string
		fragments                  []string
	}{
		{"unknown field", "POST", "/api/decks", `{"name":"x","colour":"red"}`, []string{`unknown field "colour"`}},
		{"unknown nested field", "POST", "/api/decks/d1/cards", `{"cards":[{"front":"a","back":"b","hint":"c"}]}`, []string{`unknown field "hint"`}},
		{"bad JSON", "POST", "/api/decks", `{"name":"x",}`, []string{"not valid JSON", "byte"}},
		{"truncated JSON", "POST", "/api/decks", `{"name":"x"`, []string{"not valid JSON", "ends too early"}},
		{"wrong type", "POST", "/api/decks", `{"name":42}`, []string{`field "name" must be a string, not number`}},
		{"wrong nested type", "PATCH", "/api/decks/d1", `{"newCardsPerDay":"ten"}`, []string{`"newCardsPerDay" must be an integer`}},
		{"not an object", "PATCH", "/api/cards", `[1,2]`, []string{"must be a JSON object, not array"}},
		{"trailing data", "POST", "/api/decks", `{"name":"x"} {"name":"y"}`, []string{"nothing after it"}},
		{"path and body disagree", "POST", "/api/decks/d1/cards", `{"deckId":"d2","cards":[]}`, []string{`deckId "d2" in the body differs from "d1"`}},
		{"session path and body disagree", "POST", "/api/study-sessions/s1/reviews", `{"sessionId":"s2","cardId":"c","rating":"good"}`, []string{"sessionId"}},
		{"bad expiry", "POST", "/api/keys", `{"name":"k","scopes":["decks:read"],"expiresIn":"soon"}`, []string{`expiresIn must be a positive duration`}},
		{"negative expiry", "POST", "/api/keys", `{"name":"k","scopes":["decks:read"],"expiresIn":"-1h"}`, []string{`expiresIn`}},
		{"unknown query parameter", "GET", "/api/decks?page=2", "", []string{`query parameter "page" is not a parameter`, "cursor, limit"}},
		{"query on a body route", "POST", "/api/decks?x=1", `{"name":"x"}`, []string{`"x"`, "allowed: none"}},
		{"query on an id route", "GET", "/api/decks/d1?verbose=1", "", []string{`"verbose"`}},
		{"bad limit", "GET", "/api/decks?limit=ten", "", []string{`"limit" must be an integer, not "ten"`}},
		{"repeated parameter", "GET", "/api/cards?deckId=a&deckId=b", "", []string{`"deckId" is given 2 times`}},
		{"bad dueBefore", "GET", "/api/cards?dueBefore=tomorrow", "", []string{`"dueBefore"`, `"tomorrow" is not a date (YYYY-MM-DD`, `or a date-time (RFC 3339`}},
		{"bad minutes", "GET", "/api/plan?minutesPerDay=NaN", "", []string{`"minutesPerDay" must be a number`}},
		{"bad days", "GET", "/api/stats?days=1.5", "", []string{`"days" must be an integer`}},
		{"malformed query", "GET", "/api/audit?limit=%zz", "", []string{"query string is malformed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newMocked(t)
			w := serve(t, m.h, webUser, c.method, c.target, c.body)
			wantError(t, w, http.StatusBadRequest, contracts.KindInvalid, c.fragments...)
		})
	}
}

// A body must be declared JSON, and bounded.
func TestBodyContentTypeAndSize(t *testing.T) {
	m := newMocked(t)
	r := func(contentType, body string) *http.Request {
		req := newRequest(t, webUser, "POST", "/api/decks", body)
		req.Header.Set("Content-Type", contentType)
		return req
	}
	w := record(m.h, r("text/plain", `{"name":"x"}`))
	wantError(t, w, http.StatusBadRequest, contracts.KindInvalid, "Content-Type: application/json")

	big := `{"name":"` + strings.Repeat("x", 9<<20) + `"}`
	w = record(m.h, r("application/json", big))
	wantError(t, w, http.StatusBadRequest, contracts.KindInvalid, "larger than")

	bounded := r("application/json", `{"name":"a longer name"}`)
	bounded.Body = http.MaxBytesReader(httptest.NewRecorder(), bounded.Body, 10)
	w = record(m.h, bounded)
	wantError(t, w, http.StatusBadRequest, contracts.KindInvalid, "larger than 10 bytes")

	m.decks.EXPECT().CreateDeck(gomock.Any(), contracts.CreateDeckArgs{Name: "x"}).Return(contracts.Deck{ID: "d"}, nil)
	w = record(m.h, r("application/json; charset=utf-8", `{"name":"x"}`))
	wantOK(t, w, http.StatusCreated)
}

// An empty body is an empty object: starting a session needs no limits.
func TestEmptyBodyIsEmptyObject(t *testing.T) {
	m := newMocked(t)
	m.study.EXPECT().StartSession(gomock.Any(), contracts.StartStudySessionArgs{DeckID: "d1"}).Return(contracts.StudySession{ID: "s1", DeckID: "d1"}, nil)
	w := serve(t, m.h, webUser, "POST", "/api/decks/d1/study-sessions", "")
	wantOK(t, w, http.StatusCreated)
}

// Query parameters and path ids reach the services exactly.
func TestRequestsReachServices(t *testing.T) {
	m := newMocked(t)
	due, err := contracts.ParseDateOrTime("2026-03-01T12:00:00Z")
	if err != nil {
		t.Fatal(err)
	}
	m.cards.EXPECT().SearchCards(gomock.Any(), contracts.SearchCardsArgs{
		Query: "der Hund", DeckID: "d1", Tags: []string{"noun", "a1"}, State: "review",
		DueBefore: &due, Cursor: "c2", Limit: 5,
	}).Return(contracts.CardPage{Items: []contracts.Card{}}, nil)
	m.stats.EXPECT().Plan(gomock.Any(), contracts.GetStudyPlanArgs{DeckID: "d1", Days: 7, MinutesPerDay: 12.5}).Return(contracts.StudyPlan{}, nil)
	m.stats.EXPECT().Stats(gomock.Any(), contracts.GetStatsArgs{Days: 30}).Return(contracts.Stats{}, nil)
	m.audit.EXPECT().List(gomock.Any(), contracts.AuditFilter{Tool: "add_cards", CredentialID: "k1"}, "c3", 10).Return(contracts.Page[contracts.AuditEvent]{}, nil)
	m.decks.EXPECT().UpdateDeck(gomock.Any(), contracts.UpdateDeckArgs{DeckID: "d1", Name: ptr("Nouns")}).Return(contracts.Deck{}, nil)
	m.cards.EXPECT().ImportCards(gomock.Any(), contracts.ImportCardsArgs{DeckID: "d1", Text: "a,b", Format: contracts.ImportCSV}).Return(contracts.BulkResult{}, nil)
	m.study.EXPECT().SubmitReview(gomock.Any(), contracts.SubmitReviewArgs{SessionID: "s1", CardID: "c1", Rating: contracts.RatingGood, DurationMs: 1500}).Return(contracts.ReviewResult{}, nil)
	m.cards.EXPECT().DeleteCards(gomock.Any(), contracts.DeleteCardsArgs{CardIDs: []string{"c1", "c2"}}).Return(contracts.BulkResult{}, nil)

	for _, c := range []struct{ method, target, body string }{
		{"GET", "/api/cards?q=der+Hund&deckId=d1&tag=noun&tag=a1&state=review&dueBefore=2026-03-01T12:00:00Z&cursor=c2&limit=5", ""},
		{"GET", "/api/plan?deckId=d1&days=7&minutesPerDay=12.5", ""},
		{"GET", "/api/stats?days=30", ""},
		{"GET", "/api/audit?tool=add_cards&credentialId=k1&cursor=c3&limit=10", ""},
		{"PATCH", "/api/decks/d1", `{"name":"Nouns"}`},
		{"POST", "/api/decks/d1/import", `{"deckId":"d1","text":"a,b","format":"csv"}`},
		{"POST", "/api/study-sessions/s1/reviews", `{"cardId":"c1","rating":"good","durationMs":1500}`},
		{"POST", "/api/cards/delete", `{"cardIds":["c1","c2"]}`},
	} {
		w := serve(t, m.h, webUser, c.method, c.target, c.body)
		wantOK(t, w, http.StatusOK)
	}
}

func ptr[T any](v T) *T { return &v }
