package domain_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestDryRunMatchesRealCallImportCards is the dry-run property for
// import_cards: random texts (CSV rows repeating each other and cards the
// deck has, rows with an empty or over-long side, a missing medium, an
// Anki export whose deck column names the target, existing and new decks
// and a bad deck name) get from a dry run exactly the outcomes, counts,
// created decks and dropped HTML the real call then has on the same
// state; the dry run leaves the decks, cards and change records as they
// were, and previews the first cards it would add.
func TestDryRunMatchesRealCallImportCards(t *testing.T) {
	eachStore(t, testDryRunMatchesRealCallImportCards)
}

func testDryRunMatchesRealCallImportCards(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	a, b := e.deck(ctx, "A"), e.deck(ctx, "B")
	cards := make([]contracts.NewCard, 10)
	for i := range cards {
		cards[i] = card(fmt.Sprintf("front %d", i), fmt.Sprintf("back %d", i))
	}
	e.add(ctx, a.ID, cards...)
	rng := rand.New(rand.NewPCG(29, uint64(len(store))))
	pick := func(vs ...string) string { return vs[rng.IntN(len(vs))] }
	row := func() (front, back string) {
		n := rng.IntN(20) // 0-9 are in deck A already
		front, back = fmt.Sprintf("front %d", n), fmt.Sprintf("back %d", n)
		switch rng.IntN(12) {
		case 0:
			front = ""
		case 1:
			back = strings.Repeat("y", contracts.MaxCardSideLen+1)
		case 2:
			back = "![x](media:0190d5a0-0000-7000-8000-00000000beef)"
		case 3:
			front = fmt.Sprintf("<b>fresh</b> %d", rng.IntN(1000))
		}
		return front, back
	}
	seen, decksMade := map[string]int{}, 0
	rounds := 24
	if testing.Short() {
		rounds = 8
	}
	for round := range rounds {
		var text strings.Builder
		args := contracts.ImportCardsArgs{DeckID: pick(a.ID, a.ID, b.ID)}
		if round%3 == 2 { // an Anki export naming decks
			args.Format = contracts.ImportAnki
			text.WriteString("#separator:tab\n#html:true\n#deck column:3\n")
			for range 1 + rng.IntN(15) {
				f, bk := row()
				fmt.Fprintf(&text, "%s\t%s\t%s\n", f, bk, pick("A", "B", "B::Sub", fmt.Sprintf("New %d", round), "Bad::", "a"))
			}
		} else {
			for range 1 + rng.IntN(25) {
				f, bk := row()
				fmt.Fprintf(&text, "%q,%q,t%d\n", f, bk, rng.IntN(3))
			}
		}
		args.Text = text.String()
		before := e.accountState(ctx)
		dryArgs := args
		dryArgs.DryRun = true
		dry, dryErr := e.svc.Cards.ImportCards(ctx, dryArgs)
		if after := e.accountState(ctx); after != before {
			t.Fatalf("round %d: the dry run changed the account:\n%s\nwas\n%s", round, after, before)
		}
		real, realErr := e.svc.Cards.ImportCards(ctx, args)
		if contracts.KindOf(dryErr) != contracts.KindOf(realErr) {
			t.Fatalf("round %d: dry run error %v, real call error %v", round, dryErr, realErr)
		}
		if dryErr != nil {
			continue
		}
		if !dry.DryRun || real.DryRun {
			t.Fatalf("round %d: DryRun flags %v / %v", round, dry.DryRun, real.DryRun)
		}
		known := []string{a.ID, b.ID}
		if !reflect.DeepEqual(importOutcomes(dry.Items, known), importOutcomes(real.Items, known)) || !reflect.DeepEqual(dry.Counts, real.Counts) ||
			!slices.Equal(dry.DecksCreated, real.DecksCreated) || !reflect.DeepEqual(dry.Dropped, real.Dropped) {
			t.Fatalf("round %d: dry run\n%+v %v %v\nreal call\n%+v %v %v", round, dry.Items, dry.Counts, dry.DecksCreated, real.Items, real.Counts, real.DecksCreated)
		}
		created := real.Counts[string(contracts.OutcomeCreated)]
		if len(dry.Changes) != min(created+len(real.DecksCreated), contracts.MaxPreviewChanges) {
			t.Fatalf("round %d: %d preview changes for %d created cards and %d decks", round, len(dry.Changes), created, len(real.DecksCreated))
		}
		for _, c := range dry.Changes {
			if c.Kind == contracts.ChangeDeckAdd && strings.Contains(string(c.After), `"name"`) {
				continue // the decks the rows name, created first
			}
			if c.Kind != contracts.ChangeCardAdd || !strings.Contains(string(c.After), `"front"`) {
				t.Fatalf("round %d: preview change %+v", round, c)
			}
		}
		for k, n := range real.Counts {
			seen[k] += n
		}
		decksMade += len(real.DecksCreated)
	}
	for _, k := range []contracts.OutcomeStatus{contracts.OutcomeCreated, contracts.OutcomeDuplicate, contracts.OutcomeInvalid} {
		if seen[string(k)] == 0 {
			t.Errorf("no %s outcome in %d rounds (%v): the texts do not cover it", k, rounds, seen)
		}
	}
	if decksMade == 0 {
		t.Errorf("no round created a deck")
	}
	t.Logf("outcomes over %d rounds: %v; decks created: %d", rounds, seen, decksMade)
}

// importOutcomes are import outcomes without what each call mints
// afresh: the ids of the cards it creates (a later item duplicating one
// names its item) and of the decks it creates (an outcome's deck id
// counts only when it is one of known).
func importOutcomes(items []contracts.ItemOutcome, known []string) []string {
	fresh := map[string]string{} // a created card's id → "item i"
	for i, it := range items {
		if it.Status == contracts.OutcomeCreated {
			fresh[it.ID] = fmt.Sprintf("item %d", i)
		}
	}
	out := make([]string, len(items))
	for i, it := range items {
		id, deck, existing := it.ID, it.DeckID, it.ExistingID
		if it.Status == contracts.OutcomeCreated {
			id = "new"
		}
		if f, ok := fresh[existing]; ok {
			existing = f
		}
		if deck != "" && !slices.Contains(known, deck) {
			deck = "new deck"
		}
		out[i] = fmt.Sprintf("%d|%d|%s|%s|%s|%s|%s", it.Index, it.Line, id, it.Status, it.Reason, existing, deck)
	}
	return out
}

// accountState is what a dry run must leave as it was: the decks (names
// and card counts), the cards' ids, text and versions, and how many
// change records the account has.
func (e *env) accountState(ctx context.Context) string {
	e.t.Helper()
	uid, err := contracts.UserID(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	decks, err := e.store.Decks().ListDecks(ctx, uid, "", 500, e.clock.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	var b strings.Builder
	var ids []string
	for _, d := range decks {
		fmt.Fprintf(&b, "deck %s %q %d\n", d.ID, d.Name, d.Counts.Total)
		for cursor := ""; ; {
			res, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: d.ID, Limit: contracts.MaxSearchResults, Cursor: cursor})
			if err != nil {
				e.t.Fatal(err)
			}
			for _, c := range res.Items {
				ids = append(ids, c.ID)
			}
			if cursor = res.NextCursor; cursor == "" {
				break
			}
		}
	}
	state := e.cardsState(ctx, ids)
	keys := make([]string, 0, len(state))
	for k := range state {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "card %s %s\n", k, state[k])
	}
	recs, err := e.store.Changes().ListChanges(ctx, uid, contracts.ChangeFilter{}, "", 100000)
	if err != nil {
		e.t.Fatal(err)
	}
	fmt.Fprintf(&b, "%d change records\n", len(recs))
	return b.String()
}
