package apiserver_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestDueCountsEqualSessions: in three timezones, at 12 moments 7 hours
// apart (crossing each zone's day boundaries at different hours), before
// and right after rating three cards, the due and new counts of Today,
// the deck list, the deck page and the study snapshot (DueToday, the
// count beside get_study_snapshot's dueNow) all equal what a session
// started right then serves; dueNow, the cards due at that instant, is
// never more. The account studies in UTC
// first, then picks its zone, so cards fall due at UTC day starts, and
// learning steps fall due later the same day (issue 31 §3: after
// choosing Asia/Tokyo the pages said 0 due while a session served 2).
func TestDueCountsEqualSessions(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		svc := e.app.Services()
		for i, zone := range []string{"Asia/Tokyo", "America/New_York", "Pacific/Auckland"} {
			email := fmt.Sprintf("zone%d@example.com", i)
			u, _, err := e.app.EnsureUser(context.Background(), email, "")
			if err != nil {
				t.Fatal(err)
			}
			ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: u.ID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialLocal})
			five := 5
			deck, err := svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Counted", NewCardsPerDay: &five})
			if err != nil {
				t.Fatal(err)
			}
			var cards []contracts.NewCard
			for n := range 30 {
				cards = append(cards, contracts.NewCard{Front: fmt.Sprintf("Q%d", n), Back: "A"})
			}
			if _, err := svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: deck.ID, Cards: cards}); err != nil {
				t.Fatal(err)
			}
			cookies, _ := e.signIn(t, email)
			ratings := []contracts.Rating{contracts.RatingGood, contracts.RatingAgain, contracts.RatingEasy, contracts.RatingHard}
			check := func(step int, when string) {
				t.Helper()
				at := fmt.Sprintf("%s step %d %s (%s)", zone, step, when, e.clock.Now().In(mustZone(t, zone)).Format("Mon 15:04"))
				snap, err := svc.Study.Snapshot(ctx, deck.ID)
				if err != nil {
					t.Fatal(err)
				}
				home := pageCounts(t, e, cookies, "/", `(\d+) due</span>`, `(\d+) new today`)
				list := pageCounts(t, e, cookies, "/decks", `data-label="Due today">(?:<span class="badge due">)?(\d+)`, `data-label="New today">(\d+)`)
				page := pageCounts(t, e, cookies, "/decks/"+deck.ID, `<strong>(\d+) due today`, `<strong>(\d+) new today`)
				sess, err := svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: deck.ID})
				if err != nil {
					t.Fatal(err)
				}
				served := sess.Remaining
				for name, got := range map[string][2]int{"Today": home, "the deck list": list, "the deck page": page, "the snapshot": {snap.DueToday, snap.NewToday}} {
					if got[0]+got[1] != served {
						t.Errorf("%s: %s says %d due + %d new, a session started then serves %d", at, name, got[0], got[1], served)
					}
				}
				if snap.DueNow > snap.DueToday {
					t.Errorf("%s: the snapshot's dueNow %d exceeds the cards due today, %d", at, snap.DueNow, snap.DueToday)
				}
				if home != list || list != page || page != [2]int{snap.DueToday, snap.NewToday} {
					t.Errorf("%s: Today %v, deck list %v, deck page %v, snapshot %v", at, home, list, page, [2]int{snap.DueToday, snap.NewToday})
				}
			}
			for step := range 12 {
				if step == 4 {
					// The person picks their timezone: the cards scheduled
					// so far fall due at the start of UTC days.
					if _, err := svc.Settings.UpdateSettings(ctx, contracts.UpdateSettingsArgs{Timezone: &zone}); err != nil {
						t.Fatal(err)
					}
				}
				check(step, "before rating")
				// Rate up to three of the cards a session serves now.
				sess, err := svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: deck.ID})
				if err != nil {
					t.Fatal(err)
				}
				for r := 0; r < 3 && sess.Current != nil; r++ {
					// A person takes seconds to answer: a frozen clock
					// would rate a card re-served at once (a learning
					// step studied ahead) at the instant of its last
					// review, which SubmitReview refuses as stale.
					e.clock.Advance(8 * time.Second)
					pos := sess.Current.Position
					if _, err := svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: sess.ID, CardID: sess.Current.CardID, Position: &pos,
						Rating: ratings[(step+r)%len(ratings)]}); err != nil {
						t.Fatal(err)
					}
					if sess, err = svc.Study.GetSession(ctx, sess.ID); err != nil {
						t.Fatal(err)
					}
				}
				check(step, "after rating")
				e.clock.Advance(7 * time.Hour)
			}
		}
	})
}

// pageCounts reads a page's due and new counts of its one deck by the
// two patterns (a missing count is 0: the pages leave out a zero badge).
func pageCounts(t *testing.T, e *env, cookies []*http.Cookie, path, due, fresh string) [2]int {
	t.Helper()
	resp, body := e.request(t, http.MethodGet, path, nil, nil, cookies...)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", path, resp.StatusCode)
	}
	var out [2]int
	for i, pat := range []string{due, fresh} {
		if m := regexp.MustCompile(pat).FindSubmatch(body); m != nil {
			out[i], _ = strconv.Atoi(string(m[1]))
		}
	}
	return out
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
