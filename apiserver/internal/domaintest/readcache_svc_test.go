package domain_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/fsrs"
)

func TestPlanAndStatsNeverStale(t *testing.T) { eachStore(t, testPlanAndStatsNeverStale) }

// testPlanAndStatsNeverStale: plans and stats are remembered per learner's
// day, yet after every kind of write, made through another instance (its
// own Services over the same database, as a second server would), the
// first instance answers exactly what a fresh instance computes.
func testPlanAndStatsNeverStale(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("cache@example.com")
	other := domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(), domain.Config{BaseURL: baseURL + "/"})
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Cached", NewCardsPerDay: ptr(5)})
	if err != nil {
		t.Fatal(err)
	}
	c := ids(e.add(ctx, d.ID, card("a", "1"), card("b", "2"), card("c", "3")))

	planArgs := []contracts.GetStudyPlanArgs{{}, {DeckID: d.ID, Days: 7, MinutesPerDay: 5}}
	statsArgs := []contracts.GetStatsArgs{{}, {DeckID: d.ID, Days: 7}}
	// check asks e.svc (which remembers) twice and a fresh instance once;
	// all must agree.
	check := func(after string) (contracts.StudyPlan, contracts.Stats) {
		t.Helper()
		fresh := domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(), domain.Config{BaseURL: baseURL + "/"})
		var plan contracts.StudyPlan
		var stats contracts.Stats
		for _, a := range planArgs {
			want, err := fresh.Stats.Plan(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				got, err := e.svc.Stats.Plan(ctx, a)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("after %s, plan %+v = %+v, a fresh computation %+v", after, a, got, want)
				}
			}
			plan = want
		}
		for _, a := range statsArgs {
			want, err := fresh.Stats.Stats(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				got, err := e.svc.Stats.Stats(ctx, a)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("after %s, stats %+v = %+v, a fresh computation %+v", after, a, got, want)
				}
			}
			stats = want
		}
		return plan, stats
	}
	p0, _ := check("adding cards")

	if _, err := other.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: d.ID, Cards: []contracts.NewCard{card("d", "4"), card("e", "5")}}); err != nil {
		t.Fatal(err)
	}
	p1, _ := check("another instance added cards")
	if p1.NewCardsRemaining != p0.NewCardsRemaining+2 {
		t.Errorf("new cards remaining %d → %d after adding 2", p0.NewCardsRemaining, p1.NewCardsRemaining)
	}

	s, err := other.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: s.ID, CardID: c[0], Rating: contracts.RatingEasy, DurationMs: 4000}); err != nil {
		t.Fatal(err)
	}
	_, st := check("another instance reviewed a card")
	if st.TotalReviews != 1 {
		t.Errorf("stats count %d reviews after one", st.TotalReviews)
	}

	if _, err := other.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, NewCardsPerDay: ptr(1)}); err != nil {
		t.Fatal(err)
	}
	check("another instance changed the deck's settings")

	if _, err := other.Settings.UpdateSettings(ctx, contracts.UpdateSettingsArgs{Timezone: ptr("Pacific/Kiritimati")}); err != nil {
		t.Fatal(err)
	}
	check("another instance changed the account's timezone")

	if _, err := other.Cards.DeleteCards(ctx, contracts.DeleteCardsArgs{CardIDs: c[1:2]}); err != nil {
		t.Fatal(err)
	}
	check("another instance deleted a card")

	e.clock.Advance(24 * time.Hour)
	p2, _ := check("a day passed")
	if p2.Forecast[0].Date == p1.Forecast[0].Date {
		t.Errorf("the forecast still starts on %s a day later", p2.Forecast[0].Date)
	}

	// Another account's answers are its own.
	ctx2 := e.user("other@example.com")
	p, err := e.svc.Stats.Plan(ctx2, contracts.GetStudyPlanArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if p.NewCardsRemaining != 0 {
		t.Errorf("an empty account's plan counts %d new cards", p.NewCardsRemaining)
	}
}
