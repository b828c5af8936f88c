package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testFiltered checks the filtered-deck store (issue 28 §4): the saved
// search, the candidates a query selects and their order, gathering cards
// away from home and sending them back, and that deleting either deck
// leaves no card stranded.
func testFiltered(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	home, other := f.deck(a, "Home"), f.deck(a, "Other")
	fd := f.deck(a, "Filtered")
	now := f.now
	due := f.reviewCard(home.ID, "due", now.Add(-day))
	due.State.Lapses, due.State.ScheduledDays = 4, 20
	later := f.reviewCard(home.ID, "later", now.Add(5*day))
	later.State.ScheduledDays = 2
	fresh := f.card(home.ID, "fresh", "x", "verbs")
	susp := f.reviewCard(home.ID, "suspended", now.Add(-day))
	susp.Suspended = true
	away := f.reviewCard(other.ID, "other deck", now.Add(-2*day))
	f.insert(a, due, later, fresh, susp, away)
	theirs := f.insert(b, f.reviewCard(f.deck(b, "Theirs").ID, "theirs", now.Add(-day)))[0]
	f.review(a, later, "", contracts.RatingGood, now.Add(-time.Hour), 1000)

	_, err := f.s.Filtered().Filtered(f.ctx, a, fd.ID)
	wantKind(t, err, contracts.KindNotFound, "Filtered of a plain deck")
	wantKind(t, f.s.Filtered().SaveFiltered(f.ctx, a, ports.FilteredDeckRow{DeckID: "dck-missing", Search: "x", Limit: 1, Order: "due", BuiltAt: now}),
		contracts.KindNotFound, "SaveFiltered of a missing deck")
	wantKind(t, f.s.Filtered().SaveFiltered(f.ctx, b, ports.FilteredDeckRow{DeckID: fd.ID, Search: "x", Limit: 1, Order: "due", BuiltAt: now}),
		contracts.KindNotFound, "SaveFiltered of another user's deck")
	row := ports.FilteredDeckRow{DeckID: fd.ID, Search: "is:due", Limit: 10, Order: contracts.FilteredOrderDue, BuiltAt: now}
	must(t, f.s.Filtered().SaveFiltered(f.ctx, a, row))
	row.Reschedule, row.Limit = true, 20
	must(t, f.s.Filtered().SaveFiltered(f.ctx, a, row))
	got, err := f.s.Filtered().Filtered(f.ctx, a, fd.ID)
	must(t, err)
	if got != row {
		t.Errorf("Filtered = %+v, want %+v", got, row)
	}
	if list, err := f.s.Filtered().ListFiltered(f.ctx, a); err != nil || len(list) != 1 || list[0] != row {
		t.Errorf("ListFiltered = %+v, %v; want the one row", list, err)
	}
	if list, err := f.s.Filtered().ListFiltered(f.ctx, b); err != nil || len(list) != 0 {
		t.Errorf("another user's ListFiltered = %+v, %v; want none", list, err)
	}

	ids := func(rows []ports.CardRow) []string {
		out := []string{}
		for _, r := range rows {
			out = append(out, r.ID)
		}
		return out
	}
	cand := func(q ports.FilteredQuery) []string {
		t.Helper()
		q.Now = now
		if q.Limit == 0 {
			q.Limit = 100
		}
		if q.Order == "" {
			q.Order = contracts.FilteredOrderDue
		}
		rows, err := f.s.Filtered().Candidates(f.ctx, a, q)
		must(t, err)
		return ids(rows)
	}
	dueBy := now
	if got, want := cand(ports.FilteredQuery{}), []string{away.ID, due.ID, fresh.ID, later.ID}; !slices.Equal(got, want) {
		t.Errorf("every candidate by due = %v, want %v (not the suspended card, not another user's)", got, want)
	}
	if got, want := cand(ports.FilteredQuery{Filter: contracts.CardFilter{DueBy: &dueBy}}), []string{away.ID, due.ID}; !slices.Equal(got, want) {
		t.Errorf("due candidates = %v, want %v", got, want)
	}
	if got, want := cand(ports.FilteredQuery{Filter: contracts.CardFilter{DeckID: home.ID, Tags: []string{"verbs"}}}), []string{fresh.ID}; !slices.Equal(got, want) {
		t.Errorf("tagged candidates of the deck = %v, want %v", got, want)
	}
	if got, want := cand(ports.FilteredQuery{Filter: contracts.CardFilter{Query: "later"}}), []string{later.ID}; !slices.Equal(got, want) {
		t.Errorf("candidates matching a word = %v, want %v", got, want)
	}
	since := now.Add(-day)
	if got, want := cand(ports.FilteredQuery{RatedSince: &since}), []string{later.ID}; !slices.Equal(got, want) {
		t.Errorf("rated candidates = %v, want %v", got, want)
	}
	if got, want := cand(ports.FilteredQuery{Props: []ports.PropFilter{{Column: "lapses", Op: ">", Value: 3}}}), []string{due.ID}; !slices.Equal(got, want) {
		t.Errorf("prop:lapses>3 = %v, want %v", got, want)
	}
	if got, want := cand(ports.FilteredQuery{Props: []ports.PropFilter{{Column: "scheduled_days", Op: ">=", Value: 3}}}), []string{away.ID, due.ID}; !slices.Equal(got, want) {
		t.Errorf("prop:ivl>=3 = %v, want %v", got, want)
	}
	if got, want := cand(ports.FilteredQuery{Props: []ports.PropFilter{{Column: "due", Op: "<=", Value: float64(now.Add(day).UnixMilli())}}}), []string{away.ID, due.ID}; !slices.Equal(got, want) {
		t.Errorf("a due bound = %v, want %v (review cards only)", got, want)
	}
	if got, want := cand(ports.FilteredQuery{Order: contracts.FilteredOrderLapses, Limit: 1}), []string{due.ID}; !slices.Equal(got, want) {
		t.Errorf("the most lapsed candidate = %v, want %v", got, want)
	}
	if got, want := cand(ports.FilteredQuery{Order: contracts.FilteredOrderInterval, Limit: 1}), []string{fresh.ID}; !slices.Equal(got, want) {
		t.Errorf("the shortest interval = %v, want %v", got, want)
	}
	_, err = f.s.Filtered().Candidates(f.ctx, a, ports.FilteredQuery{Props: []ports.PropFilter{{Column: "front; --", Op: "="}}, Limit: 1, Order: "due", Now: now})
	wantKind(t, err, contracts.KindInvalid, "a property outside PropColumns")

	at := now.Add(time.Minute)
	moved, err := f.s.Filtered().Gather(f.ctx, a, fd.ID, []string{due.ID, away.ID, fresh.ID, theirs.ID, "crd-missing"}, at)
	must(t, err)
	sameSet(t, moved, []string{due.ID, away.ID, fresh.ID}, "Gather moves the user's cards at home")
	c := f.get(a, due.ID)
	if c.DeckID != fd.ID || c.HomeDeckID != home.ID || c.Version != 2 || !c.UpdatedAt.Equal(ms(at)) || !sameSchedule(c.State, due.State) {
		t.Errorf("a gathered card reads deck %s home %s version %d state %+v; want %s, %s, 2, the state kept", c.DeckID, c.HomeDeckID, c.Version, c.State, fd.ID, home.ID)
	}
	if c := f.get(b, theirs.ID); c.HomeDeckID != "" {
		t.Errorf("another user's card was gathered")
	}
	if again, err := f.s.Filtered().Gather(f.ctx, a, fd.ID, []string{due.ID}, at); err != nil || len(again) != 0 {
		t.Errorf("gathering a gathered card again = %v, %v; want nothing", again, err)
	}
	if got := cand(ports.FilteredQuery{}); !slices.Equal(got, []string{later.ID}) {
		t.Errorf("candidates while a filtered deck holds cards = %v, want only %s", got, later.ID)
	}
	back, err := f.s.Filtered().ReturnHome(f.ctx, a, fd.ID, at)
	must(t, err)
	if len(back) != 3 {
		t.Errorf("ReturnHome = %v, want 3 cards", back)
	}
	for _, want := range []ports.CardRow{due, away, fresh} {
		if c := f.get(a, want.ID); c.Version != back[want.ID] {
			t.Errorf("ReturnHome gave card %s version %d, it is at %d", want.ID, back[want.ID], c.Version)
		}
		if c := f.get(a, want.ID); c.DeckID != want.DeckID || c.HomeDeckID != "" || !sameSchedule(c.State, want.State) {
			t.Errorf("card %s after ReturnHome: deck %s home %q; want %s at home, state kept", want.ID, c.DeckID, c.HomeDeckID, want.DeckID)
		}
	}

	// Deleting the filtered deck sends its cards home; deleting a home
	// deck takes its cards a filtered deck holds with it.
	_, err = f.s.Filtered().Gather(f.ctx, a, fd.ID, []string{due.ID, away.ID}, at)
	must(t, err)
	if n, err := f.s.Decks().TrashDeck(f.ctx, a, other.ID, at); err != nil || n != 1 {
		t.Errorf("TrashDeck of a home deck = %d, %v; want its 1 card, the one away", n, err)
	}
	if !f.getOrNone(a, away.ID) {
		t.Errorf("a card of a trashed home deck stayed in the filtered deck")
	}
	if _, err := f.s.Decks().TrashDeck(f.ctx, a, fd.ID, at); err != nil {
		t.Fatal(err)
	}
	if c := f.get(a, due.ID); c.DeckID != home.ID || c.HomeDeckID != "" {
		t.Errorf("a card of a trashed filtered deck: deck %s home %q; want home %s", c.DeckID, c.HomeDeckID, home.ID)
	}
	if _, err := f.s.Filtered().Filtered(f.ctx, a, fd.ID); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("the search of a trashed filtered deck reads %v; want not found", err)
	}

	// A card moved out of a filtered deck by an edit is at home where it goes.
	fd2 := f.deck(a, "Filtered two")
	must(t, f.s.Filtered().SaveFiltered(f.ctx, a, ports.FilteredDeckRow{DeckID: fd2.ID, Search: "", Limit: 5, Order: "due", BuiltAt: now}))
	_, err = f.s.Filtered().Gather(f.ctx, a, fd2.ID, []string{fresh.ID, due.ID, later.ID}, at)
	must(t, err)
	c = f.get(a, fresh.ID)
	c.Front = "fresh, edited"
	must(t, f.s.Cards().UpdateCard(f.ctx, a, c))
	if c := f.get(a, fresh.ID); c.DeckID != fd2.ID || c.HomeDeckID != home.ID {
		t.Errorf("an edit in place lost the card's home: deck %s home %q", c.DeckID, c.HomeDeckID)
	}
	// Its review log stays with the home deck (a review in a filtered
	// deck is the home deck's): an edit in place moves none.
	c = f.get(a, later.ID)
	c.Tags = []string{"edited"}
	must(t, f.s.Cards().UpdateCard(f.ctx, a, c))
	if logs, err := f.s.Reviews().CardReviews(f.ctx, a, later.ID, 10); err != nil || len(logs) != 1 || logs[0].DeckID != home.ID {
		t.Errorf("the review of a card edited in a filtered deck: %+v, %v; want one, in the home deck %s", logs, err, home.ID)
	}
	c = f.get(a, due.ID)
	c.DeckID = home.ID
	must(t, f.s.Cards().UpdateCard(f.ctx, a, c))
	if c := f.get(a, due.ID); c.DeckID != home.ID || c.HomeDeckID != "" {
		t.Errorf("a card moved home by an edit: deck %s home %q; want at home", c.DeckID, c.HomeDeckID)
	}
}

// sameSchedule reports whether two states are the same schedule, times
// compared as instants.
func sameSchedule(x, y contracts.CardState) bool {
	lx, ly := x.LastReview, y.LastReview
	x.LastReview, y.LastReview = nil, nil
	x.Due, y.Due = x.Due.UTC(), y.Due.UTC()
	return x == y && (lx == nil) == (ly == nil) && (lx == nil || lx.Equal(*ly))
}
