package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testPresetHistory: the history of a preset is the non-cram reviews of
// the cards now in decks using it, card by card in time order, paged by
// card; another preset's and another user's cards are left out.
func testPresetHistory(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	mkPreset := func(user string) string {
		id := f.id("pst")
		must(t, f.s.Presets().CreatePreset(f.ctx, user, contracts.Preset{ID: id, Name: id, CreatedAt: f.now, UpdatedAt: f.now}))
		return id
	}
	mkDeck := func(user, presetID string) contracts.Deck {
		set := contracts.DefaultDeckSettings()
		set.PresetID = presetID
		d := contracts.Deck{ID: f.id("dck"), Name: f.id("name"), Settings: set, CreatedAt: f.now, UpdatedAt: f.now}
		must(t, f.s.Decks().CreateDeck(f.ctx, user, d))
		return d
	}
	p, q := mkPreset(a), mkPreset(a)
	d1, d2, other := mkDeck(a, p), mkDeck(a, p), mkDeck(a, q)
	pb := mkPreset(b)
	db := mkDeck(b, pb)
	c1 := f.insert(a, f.card(d1.ID, "one", "x"))[0]
	c2 := f.insert(a, f.card(d2.ID, "two", "x"))[0]
	c3 := f.insert(a, f.card(other.ID, "three", "x"))[0]
	cb := f.insert(b, f.card(db.ID, "bob", "x"))[0]
	// c1: two reviews (written out of order), a cram rating, a manual entry.
	add := func(user string, c ports.CardRow, at time.Time, kind string, day int) {
		r := f.reviewLog(user, c, "", contracts.RatingGood, at, 0)
		r.Kind, r.Day = kind, day
		must(t, f.s.Reviews().AppendReview(f.ctx, r))
	}
	add(a, c1, f.now.Add(2*day), ports.ReviewKindReview, 20002)
	add(a, c1, f.now, ports.ReviewKindReview, 20000)
	add(a, c1, f.now.Add(3*day), ports.ReviewKindCram, 20003)
	add(a, c1, f.now.Add(4*day), ports.ReviewKindManual, 20004)
	add(a, c2, f.now.Add(time.Hour), ports.ReviewKindReview, 0)
	add(a, c3, f.now, ports.ReviewKindReview, 20000)
	add(b, cb, f.now, ports.ReviewKindReview, 20000)
	got, err := f.s.Reviews().PresetHistory(f.ctx, a, p, "", 10)
	must(t, err)
	var cards []string
	byCard := map[string][]ports.ReviewLog{}
	for _, r := range got {
		if len(cards) == 0 || cards[len(cards)-1] != r.CardID {
			cards = append(cards, r.CardID)
		}
		byCard[r.CardID] = append(byCard[r.CardID], r)
	}
	wantCards := []string{c1.ID, c2.ID}
	slices.Sort(wantCards)
	if !slices.Equal(cards, wantCards) || len(byCard[c1.ID]) != 3 || len(byCard[c2.ID]) != 1 {
		t.Fatalf("PresetHistory: cards %v with %d and %d logs; want %v with 3 and 1", cards, len(byCard[c1.ID]), len(byCard[c2.ID]), wantCards)
	}
	h := byCard[c1.ID]
	if !h[0].ReviewedAt.Equal(f.now) || h[0].Day != 20000 || h[1].Day != 20002 || h[2].Kind != ports.ReviewKindManual ||
		h[0].Rating != contracts.RatingGood || h[0].PrevPhase != contracts.PhaseNew || h[0].State.Phase != contracts.PhaseReview || h[0].DeckID != d1.ID {
		t.Errorf("card one's history = %+v", h)
	}
	if byCard[c2.ID][0].Day != 0 || byCard[c2.ID][0].Kind != ports.ReviewKindReview {
		t.Errorf("a log without a day: %+v", byCard[c2.ID][0])
	}
	// Paged by card.
	page, err := f.s.Reviews().PresetHistory(f.ctx, a, p, "", 1)
	must(t, err)
	rest, err := f.s.Reviews().PresetHistory(f.ctx, a, p, wantCards[0], 1)
	must(t, err)
	if len(page) == 0 || page[0].CardID != wantCards[0] || len(rest) == 0 || rest[0].CardID != wantCards[1] {
		t.Errorf("pages by card: %d logs of %v, then %d", len(page), wantCards[0], len(rest))
	}
	// Another user's preset, or theirs named by another user: nothing.
	for _, c := range []struct{ user, preset string }{{a, pb}, {b, p}} {
		if got, err := f.s.Reviews().PresetHistory(f.ctx, c.user, c.preset, "", 10); err != nil || len(got) != 0 {
			t.Errorf("PresetHistory(%s, %s) = %d logs, %v; want none", c.user, c.preset, len(got), err)
		}
	}
}
