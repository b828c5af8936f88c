package rest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// A study session runs to completion: snapshot, start, review every card,
// and the session and the snapshot show it done; then stats and the plan
// reflect the reviews.
func TestStudySessionToCompletion(t *testing.T) {
	s := newStack(t)
	deck := s.createDeck(t, "German")
	s.call(t, s.web, "POST", "/api/decks/"+deck.ID+"/cards",
		`{"cards":[{"front":"eins","back":"one"},{"front":"zwei","back":"two"},{"front":"drei","back":"three"}]}`, http.StatusOK)

	snap := decode[contracts.StudySnapshot](t, s.call(t, s.web, "GET", "/api/decks/"+deck.ID+"/snapshot", "", http.StatusOK))
	if snap.DeckID != deck.ID || snap.NewAvailable != 3 || len(snap.Preview) == 0 {
		t.Fatalf("snapshot before %+v", snap)
	}

	session := decode[contracts.StudySession](t, s.call(t, s.web, "POST", "/api/decks/"+deck.ID+"/study-sessions", `{"newLimit":3}`, http.StatusCreated))
	if session.ID == "" || session.Current == nil || session.Remaining != 3 || session.Done {
		t.Fatalf("started %+v", session)
	}
	got := decode[contracts.StudySession](t, s.call(t, s.web, "GET", "/api/study-sessions/"+session.ID, "", http.StatusOK))
	if got.ID != session.ID || got.Current == nil || got.Current.CardID != session.Current.CardID {
		t.Fatalf("session %+v", got)
	}

	// Rating a card that is not the one pending is a conflict.
	w := serve(t, s.h, s.web, "POST", "/api/study-sessions/"+session.ID+"/reviews", `{"cardId":"not-pending","rating":"good"}`)
	wantError(t, w, http.StatusConflict, contracts.KindConflict)
	w = serve(t, s.h, s.web, "POST", "/api/study-sessions/"+session.ID+"/reviews", fmt.Sprintf(`{"cardId":%q,"rating":"superb"}`, session.Current.CardID))
	wantError(t, w, http.StatusBadRequest, contracts.KindInvalid)

	current, reviews := session.Current, 0
	for current != nil {
		if reviews++; reviews > 20 {
			t.Fatal("the session does not end")
		}
		res := decode[contracts.ReviewResult](t, s.call(t, s.web, "POST", "/api/study-sessions/"+session.ID+"/reviews",
			fmt.Sprintf(`{"cardId":%q,"rating":"easy","durationMs":2000}`, current.CardID), http.StatusOK))
		if res.CardID != current.CardID || res.Rating != contracts.RatingEasy || res.State.Reps != 1 || res.IntervalHuman == "" {
			t.Fatalf("review %+v", res)
		}
		if res.Done != (res.Next == nil) {
			t.Fatalf("done %v with next %+v", res.Done, res.Next)
		}
		current = res.Next
	}
	if reviews != 3 {
		t.Fatalf("%d reviews, want 3 (easy cards leave the queue)", reviews)
	}
	done := decode[contracts.StudySession](t, s.call(t, s.web, "GET", "/api/study-sessions/"+session.ID, "", http.StatusOK))
	if !done.Done || done.Reviewed != 3 || done.Remaining != 0 || done.Current != nil {
		t.Fatalf("finished session %+v", done)
	}
	after := decode[contracts.StudySnapshot](t, s.call(t, s.web, "GET", "/api/decks/"+deck.ID+"/snapshot", "", http.StatusOK))
	if after.DueNow != 0 || after.NewAvailable != 0 {
		t.Fatalf("snapshot after %+v", after)
	}

	stats := decode[contracts.Stats](t, s.call(t, s.web, "GET", "/api/stats?deckId="+deck.ID+"&days=7", "", http.StatusOK))
	if stats.TotalReviews != 3 || stats.Days != 7 || stats.CardStates.Review != 3 || stats.StreakDays != 1 {
		t.Fatalf("stats %+v", stats)
	}
	overall := decode[contracts.Stats](t, s.call(t, s.web, "GET", "/api/stats", "", http.StatusOK))
	if overall.DeckID != "" || overall.TotalReviews != 3 {
		t.Fatalf("account stats %+v", overall)
	}
	plan := decode[contracts.StudyPlan](t, s.call(t, s.web, "GET", "/api/plan?deckId="+deck.ID+"&days=30&minutesPerDay=10", "", http.StatusOK))
	forecast := 0
	for _, d := range plan.Forecast {
		forecast += d.Due
	}
	// Each of the three cards comes due once in the 30 days (every run of
	// the simulation reviews it on its due day); a simulated lapse or a
	// second interval within the month may add a little.
	if plan.Days != 30 || len(plan.Forecast) != 30 || plan.MinutesPerDay != 10 || forecast < 3 || forecast > 6 {
		t.Fatalf("plan %+v", plan)
	}
	wantError(t, serve(t, s.h, s.web, "GET", "/api/plan?days=1000", ""), http.StatusBadRequest, contracts.KindInvalid)
	wantError(t, serve(t, s.h, s.web, "GET", "/api/stats?deckId=no-such-deck", ""), http.StatusNotFound, contracts.KindNotFound)
}

// Unknown, and other users', sessions and decks are not found.
func TestStudyNotFound(t *testing.T) {
	s := newStack(t)
	deck := s.createDeck(t, "German")
	s.call(t, s.web, "POST", "/api/decks/"+deck.ID+"/cards", `{"cards":[{"front":"eins","back":"one"}]}`, http.StatusOK)
	session := decode[contracts.StudySession](t, s.call(t, s.web, "POST", "/api/decks/"+deck.ID+"/study-sessions", "", http.StatusCreated))

	other, err := s.svc.Accounts.CreateUser(as(s.web), "other@example.com", "")
	if err != nil {
		t.Fatal(err)
	}
	stranger := &contracts.Principal{UserID: other.ID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession}
	wantError(t, serve(t, s.h, stranger, "GET", "/api/study-sessions/"+session.ID, ""), http.StatusNotFound, contracts.KindNotFound)
	w := serve(t, s.h, stranger, "POST", "/api/study-sessions/"+session.ID+"/reviews", fmt.Sprintf(`{"cardId":%q,"rating":"good"}`, session.Current.CardID))
	wantError(t, w, http.StatusNotFound, contracts.KindNotFound)
	wantError(t, serve(t, s.h, s.web, "POST", "/api/decks/no-such-deck/study-sessions", ""), http.StatusNotFound, contracts.KindNotFound)
	wantError(t, serve(t, s.h, s.web, "GET", "/api/decks/no-such-deck/snapshot", ""), http.StatusNotFound, contracts.KindNotFound)
}
