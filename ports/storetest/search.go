package storetest

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// itoa formats an int.
func itoa(i int) string { return strconv.Itoa(i) }

// search runs a search, failing the test on an error.
func (f *fixture) search(userID string, flt contracts.CardFilter) []string {
	f.t.Helper()
	got, err := f.s.Cards().Search(f.ctx, userID, flt, "", 100, f.now)
	must(f.t, err)
	return ids(got)
}

// searchPages follows Search's pages of size cards for userID to the
// end and returns the ids in order, failing when a page is over size or
// the paging runs past maxPages.
func (f *fixture) searchPages(t *testing.T, userID string, flt contracts.CardFilter, size, maxPages int) []string {
	t.Helper()
	var got []string
	after := ""
	for pages := 0; ; pages++ {
		if pages > maxPages {
			t.Fatal("Search paging does not end")
		}
		res, err := f.s.Cards().Search(f.ctx, userID, flt, after, size, f.now)
		must(t, err)
		if len(res) > size {
			t.Fatalf("Search returned %d cards, limit %d", len(res), size)
		}
		if len(res) == 0 {
			return got
		}
		got = append(got, ids(res)...)
		after = res[len(res)-1].ID
	}
}

func testSearch(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Search")
	fox := f.card(d.ID, "The quick brown fox", "jumps over the lazy dog", "animals", "english")
	quick := f.card(d.ID, "Quick thinking", "a fast mind", "psychology")
	bread := f.card(d.ID, "Brown bread", "a baked loaf", "food")
	zorro := f.card(d.ID, "El zorro marrón", "the brown fox, in Spanish", "spanish", "animals")
	f.insert(a, fox, quick, bread, zorro)
	bd := f.deck(b, "Search")
	f.insert(b, f.card(bd.ID, "quick brown fox", "theirs", "animals"))

	cases := []struct {
		query string
		want  []string
	}{
		{"quick", []string{fox.ID, quick.ID}},
		{"QUICK", []string{fox.ID, quick.ID}},
		{"quick brown", []string{fox.ID}},                      // every word must appear
		{"brown quick", []string{fox.ID}},                      // in any order
		{"qui", []string{fox.ID, quick.ID}},                    // the last word is a prefix
		{"brown qui", []string{fox.ID}},                        // ... combined with whole words
		{"qui brown", nil},                                     // only the last word is a prefix
		{"brow", []string{fox.ID, bread.ID, zorro.ID}},         // front and back
		{"loaf", []string{bread.ID}},                           // the back alone
		{"animals", []string{fox.ID, zorro.ID}},                // tags are searchable text
		{"fox!", []string{fox.ID, zorro.ID}},                   // punctuation is ignored
		{"  lazy   dog  ", []string{fox.ID}},                   // so is extra space
		{"marrón", []string{zorro.ID}},                         // non-ASCII words
		{"elephant", nil},                                      // no match
		{"", []string{fox.ID, quick.ID, bread.ID, zorro.ID}},   // empty matches all
		{"?!", []string{fox.ID, quick.ID, bread.ID, zorro.ID}}, // so does a query without words
	}
	for _, c := range cases {
		sameIDs(t, f.search(a, contracts.CardFilter{Query: c.query}), sorted(c.want), "Search "+strconv.Quote(c.query))
	}
	sameIDs(t, f.search(b, contracts.CardFilter{Query: "fox", DeckID: d.ID}), nil, "Search of another user's deck")

	// The index follows edits and deletions.
	upd := fox
	upd.Version = 1
	upd.Front, upd.Hash = "The slow grey wolf", "h:wolf"
	must(t, f.s.Cards().UpdateCard(f.ctx, a, upd))
	sameIDs(t, f.search(a, contracts.CardFilter{Query: "quick"}), []string{quick.ID}, "Search for an edited-away word")
	sameIDs(t, f.search(a, contracts.CardFilter{Query: "wolf"}), []string{fox.ID}, "Search for an edited-in word")
	sameIDs(t, f.search(a, contracts.CardFilter{Query: "lazy"}), []string{fox.ID}, "Search for an unchanged word of an edited card")
	// A schedule change does not disturb the index.
	must(t, f.s.Cards().UpdateState(f.ctx, a, fox.ID, 2, contracts.CardState{Phase: contracts.PhaseLearning, Due: f.now}, f.now))
	sameIDs(t, f.search(a, contracts.CardFilter{Query: "wolf"}), []string{fox.ID}, "Search after UpdateState")
	_, err := f.s.Cards().TrashCards(f.ctx, a, []string{fox.ID}, f.now)
	must(t, err)
	sameIDs(t, f.search(a, contracts.CardFilter{Query: "wolf"}), nil, "Search for a deleted card")
	sameIDs(t, f.search(a, contracts.CardFilter{Query: "animals"}), []string{zorro.ID}, "Search after a deletion")
}

func testSearchFilters(t *testing.T, f *fixture) {
	a := f.user()
	d, e := f.deck(a, "Main"), f.deck(a, "Side")
	newCard := f.card(d.ID, "alpha new", "x", "greek", "letters")
	suspNew := f.card(d.ID, "alpha suspended", "x", "greek")
	suspNew.Suspended = true
	overdue := f.reviewCard(d.ID, "alpha overdue", f.now.Add(-day))
	overdue.Tags = []string{"greek", "letters"}
	future := f.reviewCard(d.ID, "alpha future", f.now.Add(2*day))
	learning := f.reviewCard(d.ID, "alpha learning", f.now.Add(-time.Minute))
	learning.State.Phase = contracts.PhaseLearning
	relearning := f.reviewCard(d.ID, "alpha relearning", f.now.Add(time.Hour))
	relearning.State.Phase = contracts.PhaseRelearning
	suspDue := f.reviewCard(d.ID, "alpha suspended due", f.now.Add(-day))
	suspDue.Suspended = true
	side := f.reviewCard(e.ID, "alpha side", f.now.Add(-day))
	side.Tags = []string{"greek"}
	f.insert(a, newCard, suspNew, overdue, future, learning, relearning, suspDue, side)
	now, soon := f.now, f.now.Add(90*time.Minute)

	cases := []struct {
		name string
		flt  contracts.CardFilter
		want []string
	}{
		{"deck", contracts.CardFilter{DeckID: e.ID}, []string{side.ID}},
		{"deck and words", contracts.CardFilter{DeckID: d.ID, Query: "alpha due"}, []string{suspDue.ID}},
		{"one tag", contracts.CardFilter{Tags: []string{"greek"}}, []string{newCard.ID, suspNew.ID, overdue.ID, side.ID}},
		{"every tag", contracts.CardFilter{Tags: []string{"greek", "letters"}}, []string{newCard.ID, overdue.ID}},
		{"unknown tag", contracts.CardFilter{Tags: []string{"latin"}}, nil},
		{"tag in another case", contracts.CardFilter{Tags: []string{"Greek", "LETTERS"}}, []string{newCard.ID, overdue.ID}},
		{"tag and deck", contracts.CardFilter{Tags: []string{"greek"}, DeckID: d.ID}, []string{newCard.ID, suspNew.ID, overdue.ID}},
		{"state new", contracts.CardFilter{State: "new"}, []string{newCard.ID}},
		{"state learning", contracts.CardFilter{State: "learning"}, []string{learning.ID}},
		{"state relearning", contracts.CardFilter{State: "relearning"}, []string{relearning.ID}},
		{"state review", contracts.CardFilter{State: "review"}, []string{overdue.ID, future.ID, side.ID}},
		{"state suspended", contracts.CardFilter{State: "suspended"}, []string{suspNew.ID, suspDue.ID}},
		{"due now", contracts.CardFilter{DueBy: &now}, []string{overdue.ID, learning.ID, side.ID}},
		{"due soon in deck", contracts.CardFilter{DueBy: &soon, DeckID: d.ID}, []string{overdue.ID, learning.ID, relearning.ID}},
		{"due and state", contracts.CardFilter{DueBy: &now, State: "review"}, []string{overdue.ID, side.ID}},
		{"words, tag, state, deck", contracts.CardFilter{Query: "alp", Tags: []string{"letters"}, State: "review", DeckID: d.ID}, []string{overdue.ID}},
	}
	for _, c := range cases {
		sameIDs(t, f.search(a, c.flt), sorted(c.want), "Search by "+c.name)
	}
	_, err := f.s.Cards().Search(f.ctx, a, contracts.CardFilter{State: "bogus"}, "", 10, f.now)
	wantKind(t, err, contracts.KindInvalid, "Search with an unknown state")
}

func testSearchPaging(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d, e := f.deck(a, "Paged"), f.deck(a, "Other")
	var match []ports.CardRow
	var all []string
	for i := range 23 {
		c := f.card(d.ID, "vocabulary word "+itoa(i), "meaning "+itoa(i))
		if i%2 == 1 {
			c.DeckID = e.ID // interleave the decks' ids
		}
		match = append(match, c)
		all = append(all, c.ID)
	}
	f.insert(a, match...)
	f.insert(a, f.card(d.ID, "unrelated", "x"))
	bd := f.deck(b, "Theirs")
	f.insert(b, f.card(bd.ID, "vocabulary word", "theirs"))

	page := func(flt contracts.CardFilter, size int) []string {
		return f.searchPages(t, a, flt, size, 50)
	}
	sameIDs(t, page(contracts.CardFilter{Query: "vocabulary"}, 5), sorted(all), "Search pages of a word query")
	var inDeck []string
	for i, id := range all {
		if i%2 == 0 {
			inDeck = append(inDeck, id)
		}
	}
	sameIDs(t, page(contracts.CardFilter{Query: "vocab", DeckID: d.ID}, 4), sorted(inDeck), "Search pages of a prefix query in a deck")
	sameIDs(t, page(contracts.CardFilter{}, 7), sorted(append(all, f.search(a, contracts.CardFilter{Query: "unrelated"})...)), "Search pages of everything")
}

// testSearchWindows pages text searches over more cards than a page's
// window (a store may look for a page among the next cards by id before
// reading every match) with words on most cards, on few, and with
// filters, the cards stored in an order unlike their ids' (inserted in
// reverse, then a few more interleaved): every page is exact whatever
// the store's internal order.
func testSearchWindows(t *testing.T, f *fixture) {
	a := f.user()
	d, e := f.deck(a, "Window"), f.deck(a, "Window side")
	const n = 90
	cards := make([]ports.CardRow, n)
	for i := range cards {
		front, deck := "plain card "+itoa(i), d.ID
		if i%3 == 0 {
			deck = e.ID
		}
		if i%2 == 0 {
			front += " commonword"
		}
		c := f.card(deck, front, "back "+itoa(i))
		if i%4 == 0 {
			c = f.reviewCard(deck, front, f.now.Add(day))
		}
		if i == 7 || i == 83 {
			c.Back += " sparseword"
		}
		cards[i] = c
	}
	var dense, sparse, denseInE, denseReview []string
	for _, c := range cards {
		text := c.Front + " " + c.Back
		if strings.Contains(text, "commonword") {
			dense = append(dense, c.ID)
			if c.DeckID == e.ID {
				denseInE = append(denseInE, c.ID)
			}
			if c.State.Phase == contracts.PhaseReview {
				denseReview = append(denseReview, c.ID)
			}
		}
		if strings.Contains(text, "sparseword") {
			sparse = append(sparse, c.ID)
		}
	}
	rev := slices.Clone(cards[:n-10])
	slices.Reverse(rev)
	f.insert(a, rev...)
	for _, c := range cards[n-10:] {
		f.insert(a, c)
	}
	page := func(flt contracts.CardFilter, size int) []string {
		return f.searchPages(t, a, flt, size, 2*n)
	}
	for _, size := range []int{1, 2, 5} {
		sameIDs(t, page(contracts.CardFilter{Query: "commonword"}, size), sorted(dense), "Search pages of a common word, size "+itoa(size))
		sameIDs(t, page(contracts.CardFilter{Query: "common"}, size), sorted(dense), "Search pages of a common prefix, size "+itoa(size))
		sameIDs(t, page(contracts.CardFilter{Query: "sparseword"}, size), sorted(sparse), "Search pages of a rare word, size "+itoa(size))
		sameIDs(t, page(contracts.CardFilter{Query: "commonw", DeckID: e.ID}, size), sorted(denseInE), "Search pages of a common word in a deck, size "+itoa(size))
		sameIDs(t, page(contracts.CardFilter{Query: "commonword", State: "review"}, size), sorted(denseReview), "Search pages of a common word in a state, size "+itoa(size))
	}
	sameIDs(t, page(contracts.CardFilter{Query: "plain sparse"}, 1), sorted(sparse), "Search pages of a common and a rare word")
	if got := f.search(a, contracts.CardFilter{Query: "commonword"}); len(got) != len(dense) || len(dense) < n/3 {
		t.Fatalf("Search of a common word found %d of %d", len(got), len(dense))
	}
}
