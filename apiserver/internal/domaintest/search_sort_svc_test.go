package domain_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestSearchSortedPages: the card browser's orders page through every
// card once, in the order's value (ties by id, across page boundaries),
// lowest or highest first; an unknown order or a forged cursor is
// refused (issue 31 §10).
func TestSearchSortedPages(t *testing.T) { eachStore(t, testSearchSortedPages) }

func testSearchSortedPages(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Sorted", NewCardsPerDay: ptr(6)})
	if err != nil {
		t.Fatal(err)
	}
	// Three batches a minute apart (the added times tie within a batch),
	// then six cards studied with different ratings (intervals, due
	// times and difficulties differ; one lapses).
	for b := range 3 {
		e.add(ctx, d.ID, manyCards(fmt.Sprintf("batch %d", b), 10)...)
		e.clock.Advance(time.Minute)
	}
	s := e.start(ctx, d.ID, nil, nil)
	for _, r := range []contracts.Rating{contracts.RatingEasy, contracts.RatingGood, contracts.RatingHard, contracts.RatingEasy, contracts.RatingAgain, contracts.RatingEasy} {
		cur, err := e.svc.Study.GetSession(ctx, s.ID)
		if err != nil || cur.Current == nil {
			t.Fatalf("session: %+v, %v", cur, err)
		}
		e.review(ctx, s.ID, cur.Current.CardID, r)
		e.clock.Advance(10 * time.Second)
	}
	for _, o := range contracts.CardSorts {
		for _, desc := range []bool{false, true} {
			var got []contracts.Card
			cursor := ""
			for range 10 {
				page, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: d.ID, Sort: o, Descending: desc, Limit: 7, Cursor: cursor})
				if err != nil {
					t.Fatalf("%s desc=%v: %v", o, desc, err)
				}
				got = append(got, page.Items...)
				if cursor = page.NextCursor; cursor == "" {
					break
				}
			}
			seen := map[string]bool{}
			for i, c := range got {
				if seen[c.ID] {
					t.Errorf("%s desc=%v: card %s listed twice", o, desc, c.ID)
				}
				seen[c.ID] = true
				if i == 0 {
					continue
				}
				prev, v := got[i-1].SortValue(o), c.SortValue(o)
				if desc {
					prev, v = -prev, -v
				}
				if v < prev || (v == prev && c.ID < got[i-1].ID) {
					t.Errorf("%s desc=%v: card %d (%v, %s) comes after (%v, %s)", o, desc, i, c.SortValue(o), c.ID, got[i-1].SortValue(o), got[i-1].ID)
				}
			}
			if len(seen) != 30 {
				t.Errorf("%s desc=%v: paging reached %d of 30 cards", o, desc, len(seen))
			}
		}
	}
	// The studied cards differ: sorting by interval, highest first, puts
	// an easy card's days before the new cards' zero.
	top, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: d.ID, Sort: contracts.SortInterval, Descending: true, Limit: 1})
	if err != nil || len(top.Items) != 1 || top.Items[0].State.ScheduledDays < 1 {
		t.Errorf("the longest interval: %+v, %v", top.Items, err)
	}
	// Words and a state filter the sorted list as they filter the plain one.
	// ("batch 1" matches batch 1's ten and "batch 0 1", "batch 2 1".)
	words, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Query: "batch 1", Sort: contracts.SortAdded, Limit: 100})
	plain, _ := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Query: "batch 1", Limit: 100})
	same := len(words.Items) == len(plain.Items)
	for _, c := range plain.Items {
		same = same && slices.ContainsFunc(words.Items, func(w contracts.Card) bool { return w.ID == c.ID })
	}
	if err != nil || len(words.Items) != 12 || !same {
		t.Errorf("batch 1 by added: %d cards, %v; want the 12 the plain search finds", len(words.Items), err)
	}
	fresh, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Query: "is:new", Sort: contracts.SortDue, Limit: 100})
	if err != nil || len(fresh.Items) != 24 {
		t.Errorf("is:new by due: %d cards, %v; want 24", len(fresh.Items), err)
	}
	_, err = e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Sort: "ease"})
	wantKind(t, err, contracts.KindInvalid)
	for _, bad := range []string{"eA", "bm90LWEtbnVtYmVyfGFi", "MXw"} { // not base64 of "key|id": junk, "not-a-number|ab", "1|"
		_, err = e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Sort: contracts.SortDue, Cursor: bad})
		wantKind(t, err, contracts.KindInvalid)
	}
}
