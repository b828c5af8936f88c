package domain_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// TestFilteredDecks is issue 28 §4's done-when on both databases: a
// filtered deck studied with rescheduling off leaves every card's
// schedule exactly as it was; with rescheduling on the reviews count as
// at home (the schedule moves, the review is the home deck's); emptying,
// deleting the filtered deck and undoing its gathering each return every
// card home. The search syntax (deck:, is:due, is:new, prop:, rated:)
// selects what it says, and bad searches are refused with the word named.
func TestFilteredDecks(t *testing.T) { eachStore(t, testFilteredDecks) }

func testFilteredDecks(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	home := e.graduated(ctx, "Home", 6, contracts.CreateDeckArgs{})
	other := e.deck(ctx, "Other words")
	e.add(ctx, other.ID, card("neu 1", "x"), card("neu 2", "x"), card("neu 3", "x"))
	e.clock.Advance(3 * 24 * time.Hour) // the graduated cards are due
	uid := e.uid(ctx)
	all := func() map[string]ports.CardRow {
		t.Helper()
		out := map[string]ports.CardRow{}
		for _, d := range []string{home.ID, other.ID} {
			page, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: d, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range page.Items {
				out[c.ID] = ports.CardRow{}
			}
		}
		return out
	}
	ids := all()
	if len(ids) != 9 {
		t.Fatalf("%d cards at home, want 9", len(ids))
	}
	read := func() map[string]ports.CardRow {
		t.Helper()
		list := make([]string, 0, len(ids))
		for id := range ids {
			list = append(list, id)
		}
		rows, err := e.store.Cards().GetCards(ctx, uid, list)
		if err != nil || len(rows) != len(ids) {
			t.Fatalf("GetCards: %d rows, %v", len(rows), err)
		}
		out := map[string]ports.CardRow{}
		for _, r := range rows {
			out[r.ID] = r
		}
		return out
	}
	before := read()
	atHome := func(what string) {
		t.Helper()
		for id, c := range read() {
			if c.DeckID != before[id].DeckID || c.HomeDeckID != "" {
				t.Errorf("%s: card %s is in deck %s (home %q), want at home in %s", what, id, c.DeckID, c.HomeDeckID, before[id].DeckID)
			}
		}
	}
	filtered := func(args contracts.FilteredDeckArgs) contracts.FilteredDeck {
		t.Helper()
		f, err := e.svc.Filtered.FilteredDeck(ctx, args)
		if err != nil {
			t.Fatalf("filtered_deck %+v: %v", args, err)
		}
		return f
	}

	// Rescheduling off: every card, studied, keeps its schedule exactly.
	f := filtered(contracts.FilteredDeckArgs{Action: contracts.FilteredCreate, Name: "Cram all", Search: ptr("")})
	if f.Gathered != 9 || f.Cards != 9 || f.Reschedule || f.Order != contracts.FilteredOrderDue || f.Limit != contracts.DefaultFilteredCards {
		t.Fatalf("created %+v, want 9 cards gathered, no rescheduling, due order, limit %d", f, contracts.DefaultFilteredCards)
	}
	for id, c := range read() {
		if c.DeckID != f.DeckID || c.HomeDeckID != before[id].DeckID {
			t.Errorf("card %s: deck %s home %q; want in %s with home %s", id, c.DeckID, c.HomeDeckID, f.DeckID, before[id].DeckID)
		}
	}
	if s := e.start(ctx, home.ID, nil, nil); s.Remaining != 0 {
		t.Errorf("the home deck's session has %d cards while a filtered deck holds them, want 0", s.Remaining)
	}
	s := e.start(ctx, f.DeckID, nil, nil)
	if s.Remaining != 9 {
		t.Fatalf("the filtered deck's session has %d cards, want 9", s.Remaining)
	}
	if n := e.studyAll(ctx, s, contracts.RatingGood); n != 9 {
		t.Fatalf("rated %d cards, want 9", n)
	}
	got := read()
	for id, c := range got {
		if !reflect.DeepEqual(c.State, before[id].State) {
			t.Errorf("card %s studied with rescheduling off: schedule %+v, want exactly %+v", id, c.State, before[id].State)
		}
	}
	f = filtered(contracts.FilteredDeckArgs{Action: contracts.FilteredEmpty, DeckID: f.DeckID})
	if f.Returned != 9 || f.Cards != 0 {
		t.Errorf("emptied %+v, want 9 returned", f)
	}
	atHome("after emptying")
	for id, c := range read() {
		if !reflect.DeepEqual(c.State, before[id].State) {
			t.Errorf("card %s after emptying: schedule %+v, want %+v", id, c.State, before[id].State)
		}
	}

	// Rescheduling on: rebuilt for the due cards only, the ratings
	// schedule them as at home and the reviews are the home deck's.
	statsBefore, err := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{DeckID: home.ID})
	if err != nil {
		t.Fatal(err)
	}
	f = filtered(contracts.FilteredDeckArgs{Action: contracts.FilteredRebuild, DeckID: f.DeckID, Search: ptr("is:due prop:ivl>=1"), Reschedule: ptr(true)})
	if f.Gathered != 6 || !f.Reschedule || f.Search != "is:due prop:ivl>=1" {
		t.Fatalf("rebuilt %+v, want the 6 due cards, rescheduling", f)
	}
	s = e.start(ctx, f.DeckID, nil, nil)
	if s.Remaining != 6 {
		t.Fatalf("the rescheduling session has %d cards, want 6", s.Remaining)
	}
	at := e.clock.Now()
	if n := e.studyAll(ctx, s, contracts.RatingGood); n != 6 {
		t.Fatalf("rated %d, want 6", n)
	}
	for id, c := range read() {
		b := before[id]
		if b.DeckID != home.ID {
			continue
		}
		if c.State.Reps != b.State.Reps+1 || c.State.LastReview == nil || c.State.LastReview.Before(at) || !c.State.Due.After(b.State.Due) || c.Version <= b.Version {
			t.Errorf("card %s rated good with rescheduling on: %+v (was %+v), want a review counted", id, c.State, b.State)
		}
	}
	statsAfter, err := e.svc.Stats.Stats(ctx, contracts.GetStatsArgs{DeckID: home.ID})
	if err != nil {
		t.Fatal(err)
	}
	if statsAfter.TotalReviews != statsBefore.TotalReviews+6 {
		t.Errorf("the home deck's reviews went from %d to %d, want 6 more", statsBefore.TotalReviews, statsAfter.TotalReviews)
	}
	rescheduled := read()

	// Deleting the filtered deck sends its cards home, nothing trashed.
	if _, err := e.svc.Decks.DeleteDeck(ctx, contracts.DeleteDeckArgs{DeckID: f.DeckID}); err != nil {
		t.Fatal(err)
	}
	atHome("after deleting the filtered deck")
	for id, c := range read() {
		if !reflect.DeepEqual(c.State, rescheduled[id].State) {
			t.Errorf("card %s after the deletion: schedule %+v, want %+v", id, c.State, rescheduled[id].State)
		}
	}

	// Undoing a creation sends the cards home, then the deck (empty, as
	// created) to the trash (issue 26 §2.2); the search language.
	op := "op-filtered-1"
	g, err := e.svc.Filtered.FilteredDeck(contracts.WithOperationID(ctx, op), contracts.FilteredDeckArgs{Action: contracts.FilteredCreate, Name: "New words",
		Search: ptr("deck:Other_words is:new neu"), Order: contracts.FilteredOrderRandom, Limit: ptr(2)})
	if err != nil || g.Gathered != 2 {
		t.Fatalf("a random two of the new words: %+v, %v", g, err)
	}
	res, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{op}})
	if err != nil || res.Undone != 3 || res.Items[2].Kind != contracts.ChangeDeckAdd {
		t.Fatalf("undo of the creation: %+v, %v; want its 2 cards home, then the deck trashed", res, err)
	}
	atHome("after undoing the creation")
	if _, err := e.svc.Filtered.Filtered(ctx, g.DeckID); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("the filtered deck after undoing its creation: %v, want not found", err)
	}
	g = filtered(contracts.FilteredDeckArgs{Action: contracts.FilteredCreate, Name: "New words", Search: ptr("rated:1 tag:nothing")})
	if g.Gathered != 0 {
		t.Errorf("rated:1 tag:nothing gathered %d, want 0", g.Gathered)
	}
	g = filtered(contracts.FilteredDeckArgs{Action: contracts.FilteredRebuild, DeckID: g.DeckID, Search: ptr("rated:1 deck:Home prop:due=1"), Limit: ptr(100)})
	if g.Gathered != 6 {
		t.Errorf("rated today, due tomorrow (the deck's maximum interval is 1) gathered %d, want the 6 reviewed", g.Gathered)
	}
	for _, bad := range []string{"prop:foo>1", "prop:ivl>x", "rated:0", "deck:Nowhere", "is:sleeping", "prop:due!=1"} {
		_, err := e.svc.Filtered.FilteredDeck(ctx, contracts.FilteredDeckArgs{Action: contracts.FilteredRebuild, DeckID: g.DeckID, Search: ptr(bad)})
		wantKind(t, err, contracts.KindInvalid)
	}
	_, err = e.svc.Filtered.FilteredDeck(ctx, contracts.FilteredDeckArgs{Action: contracts.FilteredEmpty, DeckID: home.ID})
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Filtered.FilteredDeck(e.user("eve@example.com"), contracts.FilteredDeckArgs{Action: contracts.FilteredEmpty, DeckID: g.DeckID})
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Filtered.FilteredDeck(ctx, contracts.FilteredDeckArgs{Action: contracts.FilteredCreate, Name: "Home"})
	wantKind(t, err, contracts.KindConflict)
	list, err := e.svc.Filtered.FilteredDecks(ctx)
	if err != nil || len(list) != 1 || list[0].DeckID != g.DeckID || list[0].Cards != 6 {
		t.Errorf("FilteredDecks = %+v, %v; want the one deck with 6 cards", list, err)
	}
	if one, err := e.svc.Filtered.Filtered(ctx, g.DeckID); err != nil || one.Cards != 6 || one.Search != g.Search || one.Name != "New words" {
		t.Errorf("Filtered(%s) = %+v, %v; want the deck with its search and 6 cards", g.DeckID, one, err)
	}
	if _, err := e.svc.Filtered.Filtered(ctx, home.ID); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("Filtered of a plain deck: %v, want not found", err)
	}
	if _, err := e.svc.Filtered.Filtered(e.user("mallory@example.com"), g.DeckID); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("Filtered of another user's deck: %v, want not found", err)
	}

	// A quoted deck name keeps its spaces (the web's custom study form
	// writes deck:"Name"); a refused word is named as the search's.
	g = filtered(contracts.FilteredDeckArgs{Action: contracts.FilteredRebuild, DeckID: g.DeckID, Search: ptr(`deck:"Other words" is:new`)})
	if g.Gathered != 3 || g.Returned != 6 {
		t.Errorf(`deck:"Other words" is:new: %+v, want 3 gathered, 6 returned`, g)
	}
	_, err = e.svc.Filtered.FilteredDeck(ctx, contracts.FilteredDeckArgs{Action: contracts.FilteredRebuild, DeckID: g.DeckID, Search: ptr(`deck:"Other words" is:sleeping`)})
	if msg := contracts.MessageOf(err); !strings.HasPrefix(msg, "search word is:sleeping: ") {
		t.Errorf("a bad is: word: %q, want it named as the search's", msg)
	}
}

// TestFilteredDeckSnapshot, on both databases with the injected clock:
// the study snapshot of a filtered deck (what get_study_snapshot and the
// pages show) says what a session of it started then serves: every card
// it holds, outside the daily limits: 6 review cards due and 3 new,
// though the home decks and the filtered deck itself allow 1 new card and
// 2 reviews a day, its preview the session's first cards in order; the
// same after a rebuild that reschedules.
func TestFilteredDeckSnapshot(t *testing.T) { eachStore(t, testFilteredDeckSnapshot) }

func testFilteredDeckSnapshot(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	home := e.graduated(ctx, "Home", 6, contracts.CreateDeckArgs{})
	other, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Other words", NewCardsPerDay: ptr(1)})
	if err != nil {
		t.Fatal(err)
	}
	e.add(ctx, other.ID, card("neu 1", "x"), card("neu 2", "x"), card("neu 3", "x"))
	e.clock.Advance(3 * 24 * time.Hour) // the graduated cards are due
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: home.ID, NewCardsPerDay: ptr(1), ReviewsPerDay: ptr(2)}); err != nil {
		t.Fatal(err)
	}
	check := func(what string, f contracts.FilteredDeck, wantDue, wantNew int) {
		t.Helper()
		snap, err := e.svc.Study.Snapshot(ctx, f.DeckID)
		if err != nil {
			t.Fatal(err)
		}
		if snap.DueToday != wantDue || snap.DueNow != wantDue || snap.NewToday != wantNew {
			t.Errorf("%s: snapshot due today %d, due now %d, new %d; want %d, %d, %d", what, snap.DueToday, snap.DueNow, snap.NewToday, wantDue, wantDue, wantNew)
		}
		s := e.start(ctx, f.DeckID, nil, nil)
		if s.Remaining != snap.DueToday+snap.NewToday {
			t.Errorf("%s: the session has %d cards, the snapshot said %d due and %d new", what, s.Remaining, snap.DueToday, snap.NewToday)
		}
		var served []string
		fresh := 0
		for cur := s.Current; cur != nil; {
			if len(served) > 50 {
				t.Fatalf("%s: the session never ends", what)
			}
			served = append(served, cur.CardID)
			if cur.Phase == contracts.PhaseNew {
				fresh++
			}
			e.clock.Advance(time.Second)
			cur = e.review(ctx, s.ID, cur.CardID, contracts.RatingEasy).Next
		}
		if len(served)-fresh != snap.DueToday || fresh != snap.NewToday {
			t.Errorf("%s: the session served %d due and %d new cards, the snapshot said %d and %d", what, len(served)-fresh, fresh, snap.DueToday, snap.NewToday)
		}
		for i, p := range snap.Preview {
			if i >= len(served) || served[i] != p.CardID || p.Position != i {
				t.Errorf("%s: preview %d is %s (position %d), the session served %v", what, i, p.CardID, p.Position, served)
				break
			}
		}
		if len(snap.Preview) == 0 {
			t.Errorf("%s: an empty preview for a session of %d cards", what, len(served))
		}
	}
	f, err := e.svc.Filtered.FilteredDeck(ctx, contracts.FilteredDeckArgs{Action: contracts.FilteredCreate, Name: "Cram all", Search: ptr("")})
	if err != nil || f.Cards != 9 {
		t.Fatalf("filtered deck %+v, %v; want 9 cards", f, err)
	}
	// The filtered deck's own limits do not bound its session either.
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: f.DeckID, NewCardsPerDay: ptr(1), ReviewsPerDay: ptr(2)}); err != nil {
		t.Fatal(err)
	}
	check("cram", f, 6, 3)
	f, err = e.svc.Filtered.FilteredDeck(ctx, contracts.FilteredDeckArgs{Action: contracts.FilteredRebuild, DeckID: f.DeckID, Search: ptr(""), Reschedule: ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	// After the cram nothing moved: the same 9 cards, now rescheduled by
	// their ratings.
	check("rescheduling", f, 6, 3)
}
