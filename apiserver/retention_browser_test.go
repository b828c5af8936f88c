package apiserver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestRetentionAdviceInABrowser: the deck's desired-retention page shows
// the advice get_retention_advice gives (the same service call): the
// minimum recommended retention and the current one as figures, and a
// table with the workload, the cards remembered at the end and the cost
// per card at each retention, the recommended row marked and the current
// one aria-current; at 360px the table fits its panel. Screenshots at
// 360 and 1280px, light and dark (TAKHTABUSH_SCREENSHOTS).
func TestRetentionAdviceInABrowser(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	b := newBrowser(t, e)
	b.signIn(testUser)
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), CredentialKind: contracts.CredentialSession, Scopes: contracts.AllScopes})
	ret, newPerDay := 0.9, 10
	deck, err := e.app.Services().Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Kanji", DesiredRetention: &ret, NewCardsPerDay: &newPerDay})
	if err != nil {
		t.Fatal(err)
	}
	cards := make([]contracts.NewCard, 200)
	for i := range cards {
		cards[i] = contracts.NewCard{Front: fmt.Sprintf("kanji %d", i), Back: fmt.Sprintf("reading %d", i)}
	}
	if _, err := e.app.Services().Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: deck.ID, Cards: cards}); err != nil {
		t.Fatal(err)
	}
	studyDays(t, e, ctx, deck.ID, 10, 5)
	adv, err := e.app.Services().Stats.RetentionAdvice(ctx, contracts.GetRetentionAdviceArgs{DeckID: deck.ID})
	if err != nil {
		t.Fatal(err)
	}
	pct := func(r float64) string { return strconv.FormatFloat(float64(int(r*1000+0.5))/10, 'f', -1, 64) + "%" }

	b.open("/decks/" + deck.ID + "/retention")
	if got := b.textOf("#recommended dd"); got != pct(adv.Recommended) {
		t.Errorf("the page recommends %q; the advice %s", got, pct(adv.Recommended))
	}
	if got := b.textOf("#current dd"); got != "90%" {
		t.Errorf("the page shows the current retention as %q, want 90%%", got)
	}
	head := evalJS[[]string](b, `[...document.querySelectorAll("main thead th")].map(e => e.textContent.replace(/\u00ad/g, "").trim())`)
	if len(head) != 7 || head[4] != "Remembered" || head[5] != "Cost" {
		t.Errorf("the table's columns are %q", head)
	}
	rows := evalJS[[]string](b, `[...document.querySelectorAll("main tbody tr")].map(r => r.innerText.replace(/\s+/g, " ").trim())`)
	if len(rows) != len(adv.Points) {
		t.Fatalf("%d rows for %d points: %q", len(rows), len(adv.Points), rows)
	}
	for i, p := range adv.Points {
		want := fmt.Sprintf("%.1f %.0f %.1f %.0f %.0f", p.MinutesPerDay, p.ReviewsPerDay, p.LapsesPerDay, p.Memorized, p.CostPerMemorized)
		if !strings.HasPrefix(rows[i], pct(p.DesiredRetention)) || !strings.HasSuffix(rows[i], want) {
			t.Errorf("row %d reads %q; want %s … %s", i, rows[i], pct(p.DesiredRetention), want)
		}
	}
	if got := b.textOf("tr.recommended th"); !strings.HasPrefix(got, pct(adv.Recommended)) || !strings.Contains(got, "recommended") {
		t.Errorf("the recommended row's head reads %q", got)
	}
	if got := b.textOf(`tr[aria-current="true"] th`); !strings.HasPrefix(got, "90%") || !strings.Contains(got, "current") {
		t.Errorf("the current row's head reads %q", got)
	}
	b.look("retention-advice")
	// On a phone the table fits its panel, with the minutes, the cards
	// remembered and the cost.
	b.emulate(360, 780, true, "light")
	if w := evalJS[[]int64](b, `(e => [e.scrollWidth, e.clientWidth])(document.querySelector("main .table-wrap"))`); w[0] > w[1] {
		t.Errorf("at 360px the advisor's table is %dpx wide in a %dpx panel: it scrolls sideways", w[0], w[1])
	}
	if shown := evalJS[[]string](b, `[...document.querySelectorAll("main thead th")].filter(e => e.offsetWidth > 0).map(e => e.textContent.replace(/\u00ad/g, "").trim())`); strings.Join(shown, ",") != "Desired retention,Minutes,Remembered,Cost" {
		t.Errorf("at 360px the columns shown are %q", shown)
	}
	b.emulate(0, 0, false, "")
}

// studyDays studies a deck through the study service for days learner's
// days on the test clock: each day a session of everything it serves,
// rated by a seeded learner (again 15%, hard 10%, good 60%, easy 15%),
// 12 s a review; then the clock moves to the next day.
func studyDays(t *testing.T, e *env, ctx context.Context, deckID string, days int, seed uint64) int {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	study := e.app.Services().Study
	reviews := 0
	for range days {
		sess, err := study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: deckID})
		if err != nil {
			t.Fatal(err)
		}
		for cur := sess.Current; cur != nil; {
			rating := contracts.RatingGood
			switch x := rng.Float64(); {
			case x < 0.15:
				rating = contracts.RatingAgain
			case x < 0.25:
				rating = contracts.RatingHard
			case x >= 0.85:
				rating = contracts.RatingEasy
			}
			e.clock.Advance(12 * time.Second)
			rr, err := study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: sess.ID, CardID: cur.CardID, Position: &cur.Position, Rating: rating, DurationMs: 12_000})
			if err != nil {
				t.Fatal(err)
			}
			reviews++
			if reviews > 5_000 {
				t.Fatal("the sessions never end")
			}
			cur = rr.Next
		}
		e.clock.Advance(24 * time.Hour)
	}
	return reviews
}
