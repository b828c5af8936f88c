package domain_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/ports"
)

// Issue 27 §4, studying a deck tree (domain/study/tree.go): a session of
// a parent serves its own cards and its children's, each child within its
// own limits and all within the parent's; the snapshot and the plan's day
// 0 count what the session then serves; a child studied directly
// afterwards uses what its own limits leave (the parent's do not apply);
// a second session of the parent serves nothing once its limit is used;
// review limits work the same way on a later day. Injected clock, SQLite
// and Postgres.
func TestDeckTreeStudy(t *testing.T) { eachStore(t, testDeckTreeStudy) }

func testDeckTreeStudy(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	mk := func(name string, newPerDay, reviewsPerDay, cards int) contracts.Deck {
		t.Helper()
		d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: name, NewCardsPerDay: ptr(newPerDay), ReviewsPerDay: ptr(reviewsPerDay)})
		if err != nil {
			t.Fatal(err)
		}
		if cards > 0 {
			e.add(ctx, d.ID, manyCards(name, cards)...)
		}
		return d
	}
	// P: new 8; P::C1: new 3; P::C1::G: new 2; P::C2: new 4 but reviews 2
	// (a new card takes a review slot too). Another deck beside the tree.
	p := mk("P", 8, 100, 2)
	c1 := mk("P::C1", 3, 100, 10)
	g := mk("P::C1::G", 2, 100, 5)
	c2 := mk("P::C2", 4, 2, 10)
	mk("Q", 20, 100, 3)
	// Gathered deck by deck in the tree's order: P's 2 (6 left of 8),
	// C1's 3 (C1 used; G below it gets none), C2's 2 (its review limit).
	want := map[string]int{"P": 2, "P::C1": 3, "P::C2": 2}
	snap, err := e.svc.Study.Snapshot(ctx, p.ID)
	if err != nil || snap.NewToday != 7 || snap.DueToday != 0 || snap.NewAvailable != 27 {
		t.Errorf("snapshot of P: new today %d, due %d, new available %d, %v; want 7, 0, 27 (the tree's new cards)", snap.NewToday, snap.DueToday, snap.NewAvailable, err)
	}
	plan, err := e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{DeckID: p.ID, Days: 2})
	if err != nil || plan.Forecast[0].New != 7 || plan.Forecast[0].Due != 0 {
		t.Errorf("plan of P, day 0: %+v, %v; want 7 new", plan.Forecast, err)
	}
	// Later days simulate every deck of the tree, P's limit over them:
	// 2+3+2+4 a day allowed below, 8 by P. (The simulation shares the 8
	// among the decks at a fixed split, so P's 2 cards are gone after
	// day 0 and day 1 has 6; P alone could give none.)
	if err == nil && (plan.NewCardsRemaining != 27 || plan.NewCardsPerDay != 8 || plan.Forecast[1].New <= 2 || plan.Forecast[1].New > 8) {
		t.Errorf("plan of P: %d new cards remaining, %d a day, day 1 %+v; want 27, 8, and 3-8 new on day 1", plan.NewCardsRemaining, plan.NewCardsPerDay, plan.Forecast[1])
	}
	all, err := e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{Days: 2})
	if err != nil || all.Forecast[0].New != 7+3 {
		t.Errorf("plan of every deck, day 0: %+v, %v; want 10 new (P's tree 7, Q 3), each deck counted once", all.Forecast, err)
	}
	got := e.studyByDeck(ctx, e.start(ctx, p.ID, nil, nil))
	if !maps.Equal(got, want) {
		t.Errorf("session of P served %v; want %v", got, want)
	}
	if s := e.start(ctx, p.ID, nil, nil); s.Remaining != 0 {
		t.Errorf("a new session of P: %d cards; want 0 (P's new limit left 1, C1 and C2 used, G under the used C1)", s.Remaining)
	}
	// Studied directly, a child uses what its own limits leave: G's 2
	// (C1's and P's limits do not apply), C2 none (its review limit is
	// used), C1 none.
	for _, c := range []struct {
		d    contracts.Deck
		want int
	}{{g, 2}, {c2, 0}, {c1, 0}} {
		snap, err := e.svc.Study.Snapshot(ctx, c.d.ID)
		if err != nil || snap.NewToday != c.want {
			t.Errorf("snapshot of %s: %d new, %v; want %d", c.d.Name, snap.NewToday, err, c.want)
		}
		got := e.studyByDeck(ctx, e.start(ctx, c.d.ID, nil, nil))
		if n := got[c.d.Name]; n != c.want || len(got) > 1 {
			t.Errorf("session of %s served %v; want %d of its own", c.d.Name, got, c.want)
		}
	}

	// A later day, every card studied so far due: review limits P 6, C1
	// 2, G 1, C2 10 (its new limit 0). The tree's 2+3+2+2 = 9 reviews
	// give P 2, C1 with G 2 (G at most 1), C2 2: 6, P's limit, and no new
	// card (P's review limit is used).
	for _, u := range []struct {
		d          contracts.Deck
		newN, revN int
	}{{p, 8, 6}, {c1, 3, 2}, {g, 2, 1}, {c2, 0, 10}} {
		if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: u.d.ID, NewCardsPerDay: ptr(u.newN), ReviewsPerDay: ptr(u.revN)}); err != nil {
			t.Fatal(err)
		}
	}
	e.clock.Set(e.clock.Now().Add(400 * 24 * time.Hour))
	snap, err = e.svc.Study.Snapshot(ctx, p.ID)
	if err != nil || snap.DueToday != 6 || snap.NewToday != 0 {
		t.Errorf("day 2 snapshot of P: due %d, new %d, %v; want 6, 0", snap.DueToday, snap.NewToday, err)
	}
	plan, err = e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{DeckID: p.ID, Days: 2})
	if err != nil || plan.Forecast[0].Due+plan.Forecast[0].Learning != 6 || plan.Forecast[0].New != 0 {
		t.Errorf("day 2 plan of P, day 0: %+v, %v; want 6 due, 0 new", plan.Forecast, err)
	}
	got = e.studyByDeck(ctx, e.start(ctx, p.ID, nil, nil))
	if got["P"] != 2 || got["P::C1"]+got["P::C1::G"] != 2 || got["P::C1::G"] > 1 || got["P::C2"] != 2 || len(got) > 4 {
		t.Errorf("day 2 session of P served %v; want P 2, C1 and G 2 (G at most 1), C2 2", got)
	}
	// C2 studied after: its limit of 10 left 8, but it has no more due.
	if s := e.start(ctx, c2.ID, nil, nil); s.Remaining != 0 {
		t.Errorf("day 2 session of C2: %d cards; want 0", s.Remaining)
	}

	// A rating is checked against the tree's limits when it is given: a
	// session of R (new limit 1) shows R::A's first card; meanwhile R::B,
	// studied directly, uses R's one slot; rating the card of R's session
	// is then refused naming R, and records nothing.
	r := mk("R", 1, 100, 0)
	mk("R::A", 5, 100, 3)
	b := mk("R::B", 5, 100, 3)
	sr := e.start(ctx, r.ID, nil, nil)
	sb := e.start(ctx, b.ID, nil, nil)
	if sr.Remaining != 1 || sr.Current == nil || !strings.HasPrefix(sr.Current.Front, "R::A ") || sb.Current == nil {
		t.Fatalf("sessions of R and R::B: %+v, %+v; want R::A's first card and R::B's", sr, sb)
	}
	e.clock.Advance(time.Second)
	e.review(ctx, sb.ID, sb.Current.CardID, contracts.RatingGood)
	_, err = e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: sr.ID, CardID: sr.Current.CardID, Rating: contracts.RatingGood})
	if !contracts.IsKind(err, contracts.KindConflict) || !strings.Contains(err.Error(), `deck "R"`) {
		t.Errorf("rating R's card after R::B used R's slot: %v; want a conflict naming the deck R", err)
	}
	if c, err := e.svc.Cards.GetCard(ctx, sr.Current.CardID); err != nil || c.State.Phase != contracts.PhaseNew {
		t.Errorf("the refused card: %+v, %v; want it still new", c.State, err)
	}
}

// studyByDeck rates every card the session shows easy and counts them by
// deck, the deck named by the card's front ("<deck> <n>", manyCards).
func (e *env) studyByDeck(ctx context.Context, s contracts.StudySession) map[string]int {
	e.t.Helper()
	out := map[string]int{}
	n := 0
	for cur := s.Current; cur != nil; n++ {
		if n > 500 {
			e.t.Fatal("the session never ends")
		}
		out[cur.Front[:strings.LastIndex(cur.Front, " ")]]++
		e.clock.Advance(time.Second)
		cur = e.review(ctx, s.ID, cur.CardID, contracts.RatingEasy).Next
	}
	return out
}

// Issue 27 §4, counts roll up and imports keep the tree: a deck's counts
// (get_deck, list_decks) hold the decks below it; the plan of every deck
// counts each new card once; an Anki package's Parent::Child decks are
// imported as a tree with each deck's limits, and a session of the parent
// studies the children within them (the package written to a real .apkg
// and read back). SQLite and Postgres.
func TestDeckTreeCountsAndImport(t *testing.T) { eachStore(t, testDeckTreeCountsAndImport) }

func testDeckTreeCountsAndImport(t *testing.T, store string) {
	e, captured := newImportEnv(t, store)
	ctx := e.user("ada@example.com")
	set := func(newPerDay int) contracts.DeckSettings {
		s := contracts.DefaultDeckSettings()
		s.NewCardsPerDay = newPerDay
		return s
	}
	pkg := ports.AnkiPackage{
		Decks: []ports.AnkiDeck{{Key: 1, Name: "Lang", Settings: set(5)}, {Key: 2, Name: "Lang::Verbs", Settings: set(2)},
			{Key: 3, Name: "Lang::Nouns", Settings: set(3)}, {Key: 4, Name: "Langues", Settings: set(20)}},
		NoteTypes: []ports.AnkiNoteType{{Key: 10, Name: "Word", Fields: []string{"Word", "Meaning"},
			Templates: []ports.AnkiTemplate{{Name: "Card 1", Front: "{{Word}}", Back: "{{Meaning}}"}}}},
	}
	// Lang has 1 card, Verbs and Nouns 4 each, Langues (a name that only
	// starts the same) 2.
	for deck, n := range map[int64]int{1: 1, 2: 4, 3: 4, 4: 2} {
		for i := range n {
			key := deck*100 + int64(i)
			name := pkg.Decks[deck-1].Name
			pkg.Notes = append(pkg.Notes, ports.AnkiNote{Key: key, GUID: fmt.Sprintf("g-%d", key), TypeKey: 10, Fields: []string{fmt.Sprintf("%s %d", name, i), "m"}})
			pkg.Cards = append(pkg.Cards, ports.AnkiCard{Key: key, NoteKey: key, DeckKey: deck, Position: int(key), State: contracts.CardState{Phase: contracts.PhaseNew, Due: t0}})
		}
	}
	// Through a real .apkg: written as Anki packages are, read back.
	var apkg bytes.Buffer
	if err := (ankipkg.Writer{TempDir: t.TempDir()}).WritePackage(ctx, &apkg, pkg); err != nil {
		t.Fatal(err)
	}
	src, err := (ankipkg.Reader{TempDir: t.TempDir()}).OpenPackage(ctx, bytes.NewReader(apkg.Bytes()), int64(apkg.Len()))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := e.svc.Import.Apply(ctx, src, exchange.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	page, err := e.svc.Decks.ListDecks(ctx, contracts.ListDecksArgs{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]contracts.Deck{}
	for _, d := range page.Items {
		byName[d.Name] = d
	}
	for name, want := range map[string]int{"Lang": 9, "Lang::Verbs": 4, "Lang::Nouns": 4, "Langues": 2} {
		if c := byName[name].Counts; c.Total != want || c.New != want {
			t.Errorf("list_decks %s: %+v; want %d cards, all new (a deck's and those of the decks below it)", name, c, want)
		}
	}
	lang := byName["Lang"]
	if d, err := e.svc.Decks.GetDeck(ctx, lang.ID); err != nil || d.Counts.Total != 9 || d.Counts.New != 9 {
		t.Errorf("get_deck Lang: %+v, %v; want 9 cards", d.Counts, err)
	}
	if plan, err := e.svc.Stats.Plan(ctx, contracts.GetStudyPlanArgs{Days: 2}); err != nil || plan.NewCardsRemaining != 11 {
		t.Errorf("plan of every deck: %d new cards remaining, %v; want 11, each card once", plan.NewCardsRemaining, err)
	}
	// Lang 5: its own card, Nouns' 3 (its limit), then 1 of Verbs (Lang's last).
	want := map[string]int{"Lang": 1, "Lang::Nouns": 3, "Lang::Verbs": 1}
	if snap, err := e.svc.Study.Snapshot(ctx, lang.ID); err != nil || snap.NewToday != 5 {
		t.Errorf("snapshot of the imported Lang: %d new, %v; want 5", snap.NewToday, err)
	}
	if got := e.studyByDeck(ctx, e.start(ctx, lang.ID, nil, nil)); !maps.Equal(got, want) {
		t.Errorf("session of the imported Lang served %v; want %v", got, want)
	}
	// Exported, Lang takes the decks below it and their limits, not
	// Langues.
	out := e.exportPackage(ctx, lang.ID, captured)
	exported := map[string]int{}
	for _, d := range out.Decks {
		exported[d.Name] = d.Settings.NewCardsPerDay
	}
	if want := map[string]int{"Lang": 5, "Lang::Verbs": 2, "Lang::Nouns": 3}; !maps.Equal(exported, want) || len(out.Cards) != 9 {
		t.Errorf("export of Lang: decks %v, %d cards; want %v and 9 cards", exported, len(out.Cards), want)
	}
	// Verbs studied directly: its limit of 2 left 1.
	if got := e.studyByDeck(ctx, e.start(ctx, byName["Lang::Verbs"].ID, nil, nil)); got["Lang::Verbs"] != 1 || len(got) != 1 {
		t.Errorf("session of Lang::Verbs after Lang's: %v; want 1", got)
	}
}

// Two sessions of a parent showing cards of different children at once
// never study more than the parent's daily limit together: each rating
// takes the studied deck's lock before the card's own deck's (tree.go),
// so the parent's count is checked one rating at a time. The write quota
// is off (its counter row would order the reviews by chance), and
// several rounds give the race its chances. SQLite and Postgres.
func TestDeckTreeConcurrentSessionsKeepTheParentsLimit(t *testing.T) {
	eachStore(t, testDeckTreeConcurrentSessionsKeepTheParentsLimit)
}

func testDeckTreeConcurrentSessionsKeepTheParentsLimit(t *testing.T, store string) {
	e := newRaceEnv(t, store)
	for round := range 5 {
		ctx := e.user(fmt.Sprintf("round%d@example.com", round))
		mk := func(name string, newPerDay int) contracts.Deck {
			d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: name, NewCardsPerDay: ptr(newPerDay)})
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		p, c1, c2 := mk("P", 1), mk("P::C1", 5), mk("P::C2", 5)
		e.add(ctx, c1.ID, manyCards("C1", 3)...)
		e.add(ctx, c2.ID, manyCards("C2", 3)...)
		// The first session shows C1's first card; with C1's cards buried
		// a second draws C2's; unburied, both show their card.
		s1 := e.start(ctx, p.ID, nil, nil)
		in1, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: c1.ID})
		if err != nil || s1.Current == nil || !strings.HasPrefix(s1.Current.Front, "C1 ") {
			t.Fatalf("round %d: the first session shows %+v (%v); want C1's first card", round, s1.Current, err)
		}
		s2 := e.startAround(ctx, p.ID, cardIDs(in1.Items))
		if s2.Current == nil || !strings.HasPrefix(s2.Current.Front, "C2 ") {
			t.Fatalf("round %d: with C1 buried the second session shows %+v; want C2's first card", round, s2.Current)
		}
		e.stillShown(ctx, s1, s2)
		errs := e.rateAtOnce(ctx, s1, s2)
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !contracts.IsKind(err, contracts.KindConflict) || !strings.Contains(err.Error(), `deck "P"`):
				t.Errorf("round %d: the refused rating: %v; want a conflict naming the deck P", round, err)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %d of 2 concurrent ratings counted under P's limit of 1 (%v); want exactly 1", round, ok, errs)
		}
		if d, err := e.svc.Decks.GetDeck(ctx, p.ID); err != nil || d.Counts.New != 5 {
			t.Errorf("round %d: P's tree has %d new cards left (%v); want 5 (one studied)", round, d.Counts.New, err)
		}
	}
}

// cardIDs lists the cards' ids.
func cardIDs(cards []contracts.Card) []string {
	out := make([]string, len(cards))
	for i, c := range cards {
		out[i] = c.ID
	}
	return out
}

// The random new-card order over a deck tree (issue 27 §4 with §6):
// studying P in random order draws from every new card of the decks
// below it, in the day's order, within each deck's limits: every day the
// session serves exactly C1's 2 and C2's 3 (P's 5), the snapshot says so,
// and over four days C1's cards come from all of its 40, not from the
// first added. SQLite and Postgres, injected clock.
func TestDeckTreeRandomNewOrder(t *testing.T) { eachStore(t, testDeckTreeRandomNewOrder) }

func testDeckTreeRandomNewOrder(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	mk := func(name string, newPerDay, cards int) contracts.Deck {
		d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: name, NewCardsPerDay: ptr(newPerDay)})
		if err != nil {
			t.Fatal(err)
		}
		if cards > 0 {
			e.add(ctx, d.ID, manyCards(name, cards)...)
		}
		return d
	}
	p := mk("P", 5, 0)
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: p.ID, NewOrder: contracts.NewOrderRandom}); err != nil {
		t.Fatal(err)
	}
	mk("P::C1", 2, 40)
	mk("P::C2", 3, 20)
	late := 0 // C1's cards served from past its first 10 added
	for day := range 4 {
		if snap, err := e.svc.Study.Snapshot(ctx, p.ID); err != nil || snap.NewToday != 5 {
			t.Errorf("day %d: snapshot %d new, %v; want 5", day, snap.NewToday, err)
		}
		s := e.start(ctx, p.ID, nil, nil)
		n := 0
		got := map[string]int{}
		for cur := s.Current; cur != nil; n++ {
			if n > 50 {
				t.Fatal("the session never ends")
			}
			name, num, _ := strings.Cut(cur.Front, " ")
			got[name]++
			var i int
			if _, err := fmt.Sscan(num, &i); err == nil && name == "P::C1" && i >= 10 {
				late++
			}
			e.clock.Advance(time.Second)
			cur = e.review(ctx, s.ID, cur.CardID, contracts.RatingEasy).Next
		}
		if got["P::C1"] != 2 || got["P::C2"] != 3 || len(got) != 2 {
			t.Errorf("day %d: the session of P served %v; want C1 2, C2 3", day, got)
		}
		e.clock.Advance(24 * time.Hour)
	}
	t.Logf("%s: %d of C1's 8 cards served came from past its first 10", store, late)
	if late == 0 {
		t.Errorf("in four days no C1 card past its first 10 of 40 was drawn; the random order should draw from all")
	}
}
