package apiserver_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestRetentionAdviceTool: the official Go SDK client calls
// get_retention_advice (an admin tool: not in the lean default list) on
// a deck studied for 12 days (150 cards, 8 new a day), on SQLite and
// Postgres. The result matches its schema, answers exactly what the
// service (which the web page calls) does, shows AdvisorRetentions, the
// current and the recommended retention in order, recommends one in
// 0.70-0.95 whose cost per card memorized no point of the range beats,
// and memorizes more and costs more reviews at 0.97 than at 0.70; a read
// writes no audit row. An unknown or another user's deck is a not-found
// tool error, days out of range and a missing deckId are refused with a
// reason.
func TestRetentionAdviceTool(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), CredentialKind: contracts.CredentialSession, Scopes: contracts.AllScopes})
		ret, newPerDay := 0.85, 8
		deck, err := e.app.Services().Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Verbs", DesiredRetention: &ret, NewCardsPerDay: &newPerDay})
		if err != nil {
			t.Fatal(err)
		}
		cards := make([]contracts.NewCard, 150)
		for i := range cards {
			cards[i] = contracts.NewCard{Front: fmt.Sprintf("verb %d", i), Back: fmt.Sprintf("meaning %d", i)}
		}
		if _, err := e.app.Services().Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: deck.ID, Cards: cards}); err != nil {
			t.Fatal(err)
		}
		reviews := studyDays(t, e, ctx, deck.ID, 12, 28)

		key, _ := e.key(t, contracts.ScopeStatsRead, contracts.ScopeDecksRead)
		lean := connect(t, e.base+"/mcp/x/study,library", bearer(key), "")
		if slices.Contains(toolNames(t, lean), contracts.ToolGetRetentionAdvice) {
			t.Error("get_retention_advice is in the lean default toolsets")
		}
		cs := connect(t, e.base+"/mcp/x/admin", bearer(key), "")
		if !slices.Contains(toolNames(t, cs), contracts.ToolGetRetentionAdvice) {
			t.Fatal("the admin toolset lacks get_retention_advice")
		}
		began := time.Now()
		var adv contracts.RetentionAdvice
		call(t, cs, contracts.ToolGetRetentionAdvice, map[string]any{"deckId": deck.ID}, &adv)
		t.Logf("%d reviews in 12 days; advice in %v: recommended %.2f, current %.2f, %d points", reviews, time.Since(began).Round(time.Millisecond), adv.Recommended, adv.Current, len(adv.Points))
		for _, p := range adv.Points {
			t.Logf("  %.3f: %.1f reviews/day, %.1f min/day, %.1f lapses/day, %.1f memorized, cost %.1f", p.DesiredRetention, p.ReviewsPerDay, p.MinutesPerDay, p.LapsesPerDay, p.Memorized, p.CostPerMemorized)
		}
		if adv.DeckID != deck.ID || adv.PresetID != deck.Settings.PresetID || adv.Days != contracts.DefaultAdviceDays || adv.Current != 0.85 || adv.NewCardsPerDay != 8 || adv.SecondsPerReview != 12 {
			t.Errorf("advice header = %+v; want deck %s, preset %s, 365 days, current 0.85, 8 new a day, 12 s a review", adv, deck.ID, deck.Settings.PresetID)
		}
		direct, err := e.app.Services().Stats.RetentionAdvice(ctx, contracts.GetRetentionAdviceArgs{DeckID: deck.ID})
		if err != nil || !reflect.DeepEqual(direct, adv) {
			t.Errorf("the service (the web page's) answers %+v, %v; the tool %+v", direct, err, adv)
		}
		want := append(slices.Clone(contracts.AdvisorRetentions), 0.85, adv.Recommended)
		slices.Sort(want)
		want = slices.Compact(want)
		var got []float64
		for _, p := range adv.Points {
			got = append(got, p.DesiredRetention)
		}
		if !slices.Equal(got, want) {
			t.Errorf("points at %v, want %v", got, want)
		}
		if adv.Recommended < contracts.AdviceLowest || adv.Recommended > contracts.AdviceHighest {
			t.Errorf("recommended %.3f, outside 0.70-0.95", adv.Recommended)
		}
		var rec, low, high contracts.RetentionPoint
		for _, p := range adv.Points {
			switch p.DesiredRetention {
			case adv.Recommended:
				rec = p
			case 0.7:
				low = p
			case 0.97:
				high = p
			}
		}
		if adv.Recommended == 0.7 {
			low = rec
		}
		for _, p := range adv.Points {
			if p.DesiredRetention <= contracts.AdviceHighest && p.CostPerMemorized < rec.CostPerMemorized {
				t.Errorf("%.2f costs %.1f per card memorized, less than the recommended %.2f's %.1f", p.DesiredRetention, p.CostPerMemorized, adv.Recommended, rec.CostPerMemorized)
			}
		}
		if high.Memorized <= low.Memorized || high.ReviewsPerDay <= low.ReviewsPerDay || low.Memorized <= 0 || high.Memorized > 150 {
			t.Errorf("0.70: %.1f memorized, %.1f reviews a day; 0.97: %.1f, %.1f; want more of both at 0.97, within the 150 cards", low.Memorized, low.ReviewsPerDay, high.Memorized, high.ReviewsPerDay)
		}
		var month contracts.RetentionAdvice
		call(t, cs, contracts.ToolGetRetentionAdvice, map[string]any{"deckId": deck.ID, "days": 30}, &month)
		if month.Days != 30 || month.Recommended < contracts.AdviceLowest || month.Recommended > contracts.AdviceHighest {
			t.Errorf("30 days: %+v", month)
		}

		// Refusals, each a tool error with a reason.
		other, _, err := e.app.EnsureUser(context.Background(), "grace@example.com", "Grace")
		if err != nil {
			t.Fatal(err)
		}
		octx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: other.ID, CredentialKind: contracts.CredentialSession, Scopes: contracts.AllScopes})
		theirs, err := e.app.Services().Decks.CreateDeck(octx, contracts.CreateDeckArgs{Name: "Theirs"})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"deckId": "no-such-deck"}, "not found"},
			{map[string]any{"deckId": theirs.ID}, "not found"},
			{map[string]any{"deckId": deck.ID, "days": 10}, "days"},
			{map[string]any{"deckId": deck.ID, "days": 5000}, "days"},
			{map[string]any{}, "deckId"},
		} {
			res := tryTool(t, cs, contracts.ToolGetRetentionAdvice, c.args)
			if text := resultText(res); !res.IsError || !strings.Contains(text, c.want) || strings.Contains(strings.ToLower(text), "select ") {
				t.Errorf("%v: isError=%v %q; want an error saying %q", c.args, res.IsError, text, c.want)
			}
		}

		events, err := e.app.AuditTrail(context.Background(), testUser, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range events {
			if ev.Tool == contracts.ToolGetRetentionAdvice {
				t.Errorf("a read wrote an audit row: %+v", ev)
			}
		}
	})
}
