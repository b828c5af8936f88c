package storetest

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

func testInsertAndGetCards(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Cards")
	plain := f.card(d.ID, "hola", "hello", "spanish", "greeting")
	plain.Version = 42 // InsertCards sets version 1 whatever it is given
	untagged := f.card(d.ID, "adiós", "goodbye")
	reviewed := f.reviewCard(d.ID, "gato", f.now.Add(36*time.Hour+123*time.Millisecond))
	reviewed.Tags = []string{"animals"}
	reviewed.Suspended = true
	reviewed.State.Step = 2
	reviewed.State.Lapses = 1
	must(t, f.s.Cards().InsertCards(f.ctx, a, []ports.CardRow{plain, untagged, reviewed}))

	for _, want := range []ports.CardRow{plain, untagged, reviewed} {
		want.Version = 1
		sameCard(t, f.get(a, want.ID), want, "GetCards after InsertCards of "+want.Front)
	}
	got, err := f.s.Cards().GetCards(f.ctx, a, []string{reviewed.ID, "crd-missing", plain.ID, plain.ID})
	must(t, err)
	sameSet(t, ids(got), []string{plain.ID, reviewed.ID}, "GetCards skips missing ids")
	got, err = f.s.Cards().GetCards(f.ctx, b, []string{plain.ID, reviewed.ID})
	must(t, err)
	if len(got) != 0 {
		t.Errorf("GetCards as another user returned %d cards", len(got))
	}
	got, err = f.s.Cards().GetCards(f.ctx, a, nil)
	must(t, err)
	if len(got) != 0 {
		t.Errorf("GetCards of no ids returned %d cards", len(got))
	}
	must(t, f.s.Cards().InsertCards(f.ctx, a, nil))
}

func testInsertCardsConflict(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "One")
	e := f.deck(a, "Two")
	first := f.insert(a, f.card(d.ID, "front", "back"))[0]

	// A batch with one duplicate of a stored hash inserts nothing.
	fresh := f.card(d.ID, "fresh", "card")
	dup := f.card(d.ID, "front", "back")
	err := f.s.Cards().InsertCards(f.ctx, a, []ports.CardRow{fresh, dup})
	wantKind(t, err, contracts.KindConflict, "InsertCards with a hash already in the deck")
	if got, _ := f.s.Cards().GetCards(f.ctx, a, []string{fresh.ID, dup.ID}); len(got) != 0 {
		t.Errorf("a failed InsertCards left %d cards behind", len(got))
	}
	// A large batch with the duplicate at the end inserts nothing either.
	var many []ports.CardRow
	for i := range 1600 { // more than one multi-row INSERT
		many = append(many, f.card(d.ID, "bulk", string(rune('a'+i%26))+itoa(i)))
	}
	many = append(many, f.card(d.ID, "front", "back"))
	wantKind(t, f.s.Cards().InsertCards(f.ctx, a, many), contracts.KindConflict, "InsertCards of 1600 cards and one duplicate")
	if n, _ := f.s.Cards().CountPhases(f.ctx, a, d.ID); n.New != 1 {
		t.Errorf("a failed bulk InsertCards left %d new cards, want only the first one", n.New)
	}
	// Duplicates within one batch conflict too.
	twin1, twin2 := f.card(d.ID, "twin", "x"), f.card(d.ID, "twin", "x")
	wantKind(t, f.s.Cards().InsertCards(f.ctx, a, []ports.CardRow{twin1, twin2}), contracts.KindConflict, "InsertCards with the same hash twice")

	// The same hash in another deck is fine.
	other := f.card(e.ID, "front", "back")
	must(t, f.s.Cards().InsertCards(f.ctx, a, []ports.CardRow{other}))

	// Another user's deck is not found, and nothing is written there.
	sneaky := f.card(d.ID, "sneaky", "card")
	wantKind(t, f.s.Cards().InsertCards(f.ctx, b, []ports.CardRow{sneaky}), contracts.KindNotFound, "InsertCards into another user's deck")
	missing := f.card("dck-missing", "lost", "card")
	wantKind(t, f.s.Cards().InsertCards(f.ctx, a, []ports.CardRow{missing}), contracts.KindNotFound, "InsertCards into a missing deck")
	if got, _ := f.s.Cards().GetCards(f.ctx, a, []string{sneaky.ID, missing.ID}); len(got) != 0 {
		t.Errorf("InsertCards into a foreign or missing deck stored %d cards", len(got))
	}
	if got, _ := f.s.Cards().GetCards(f.ctx, b, []string{sneaky.ID}); len(got) != 0 {
		t.Errorf("InsertCards into a foreign deck stored the card for its caller")
	}
	sameCard(t, f.get(a, first.ID), first, "the first card is untouched")
}

func testHashesInDeck(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Hashed")
	e := f.deck(a, "Other")
	c1, c2 := f.card(d.ID, "one", "1"), f.card(d.ID, "two", "2")
	c3 := f.card(e.ID, "three", "3")
	f.insert(a, c1, c2, c3)
	got, err := f.s.Cards().HashesInDeck(f.ctx, a, d.ID, []string{c1.Hash, c2.Hash, c3.Hash, "h:absent"})
	must(t, err)
	if len(got) != 2 || got[c1.Hash] != c1.ID || got[c2.Hash] != c2.ID {
		t.Errorf("HashesInDeck = %v, want {%s:%s %s:%s}", got, c1.Hash, c1.ID, c2.Hash, c2.ID)
	}
	got, err = f.s.Cards().HashesInDeck(f.ctx, b, d.ID, []string{c1.Hash})
	must(t, err)
	if len(got) != 0 {
		t.Errorf("HashesInDeck as another user = %v, want empty", got)
	}
	got, err = f.s.Cards().HashesInDeck(f.ctx, a, d.ID, nil)
	must(t, err)
	if len(got) != 0 {
		t.Errorf("HashesInDeck of no hashes = %v, want empty", got)
	}
}

func testUpdateCard(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Edits")
	c := f.insert(a, f.reviewCard(d.ID, "original", f.now))[0]
	other := f.insert(a, f.card(d.ID, "taken", "x"))[0]

	upd := c
	upd.Front, upd.Back, upd.Tags, upd.Suspended, upd.Hash = "edited", "new back", []string{"t1"}, true, "h:edited"
	upd.UpdatedAt = f.now.Add(time.Minute)
	must(t, f.s.Cards().UpdateCard(f.ctx, a, upd))
	want := upd
	want.Version = 2
	sameCard(t, f.get(a, c.ID), want, "card after UpdateCard (state untouched, version bumped)")

	wantKind(t, f.s.Cards().UpdateCard(f.ctx, a, upd), contracts.KindConflict, "UpdateCard with a stale version")
	hijack := want
	hijack.Front = "hijacked"
	wantKind(t, f.s.Cards().UpdateCard(f.ctx, b, hijack), contracts.KindNotFound, "UpdateCard of another user's card")
	sameCard(t, f.get(a, c.ID), want, "card after another user's UpdateCard")
	missing := want
	missing.ID = "crd-missing"
	wantKind(t, f.s.Cards().UpdateCard(f.ctx, a, missing), contracts.KindNotFound, "UpdateCard of a missing card")

	clash := want
	clash.Hash = other.Hash
	wantKind(t, f.s.Cards().UpdateCard(f.ctx, a, clash), contracts.KindConflict, "UpdateCard to a hash taken in the deck")
	sameCard(t, f.get(a, c.ID), want, "card after a failed UpdateCard")
}

func testMoveCard(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	from, to := f.deck(a, "From"), f.deck(a, "To")
	theirs := f.deck(b, "Theirs")
	c := f.insert(a, f.reviewCard(from.ID, "mover", f.now))[0]
	f.insert(a, f.card(to.ID, "occupied", "x"))
	f.review(a, c, "", contracts.RatingGood, f.now, 0)

	moved := c
	moved.DeckID = to.ID
	must(t, f.s.Cards().UpdateCard(f.ctx, a, moved))
	got := f.get(a, c.ID)
	if got.DeckID != to.ID || got.Version != 2 {
		t.Errorf("moved card has deck %s version %d, want %s version 2", got.DeckID, got.Version, to.ID)
	}
	if n, _ := f.s.Cards().CountPhases(f.ctx, a, to.ID); n.Review != 1 {
		t.Errorf("target deck counts %d review cards after the move, want 1", n.Review)
	}
	// Its reviews follow it.
	days, err := f.s.Reviews().ReviewDays(f.ctx, a, to.ID, f.now.Add(-day))
	must(t, err)
	if len(days) != 1 || days[0].Reviews != 1 {
		t.Errorf("target deck's ReviewDays after the move = %+v, want one review", days)
	}
	days, err = f.s.Reviews().ReviewDays(f.ctx, a, from.ID, f.now.Add(-day))
	must(t, err)
	if len(days) != 0 {
		t.Errorf("source deck's ReviewDays after the move = %+v, want none", days)
	}

	clash := got
	clash.DeckID, clash.Hash = from.ID, c.Hash
	must(t, f.s.Cards().InsertCards(f.ctx, a, []ports.CardRow{f.withHash(f.card(from.ID, "same", "hash"), c.Hash)}))
	wantKind(t, f.s.Cards().UpdateCard(f.ctx, a, clash), contracts.KindConflict, "moving a card to a deck holding its hash")

	away := got
	away.DeckID = theirs.ID
	wantKind(t, f.s.Cards().UpdateCard(f.ctx, a, away), contracts.KindNotFound, "moving a card to another user's deck")
	away.DeckID = "dck-missing"
	wantKind(t, f.s.Cards().UpdateCard(f.ctx, a, away), contracts.KindNotFound, "moving a card to a missing deck")
	if got := f.get(a, c.ID); got.DeckID != to.ID || got.Version != 2 {
		t.Errorf("failed moves changed the card: deck %s version %d", got.DeckID, got.Version)
	}
}

// withHash returns c with another hash.
func (f *fixture) withHash(c ports.CardRow, hash string) ports.CardRow {
	c.Hash = hash
	return c
}

func testUpdateState(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "States")
	c := f.insert(a, f.card(d.ID, "learn me", "x"))[0]
	last := f.now
	st := contracts.CardState{Phase: contracts.PhaseLearning, Due: f.now.Add(10 * time.Minute), Stability: 0.4, Difficulty: 6.1,
		ScheduledDays: 0, Reps: 1, Lapses: 0, Step: 1, LastReview: &last}
	later := f.now.Add(time.Second)
	must(t, f.s.Cards().UpdateState(f.ctx, a, c.ID, 1, st, later))
	want := c
	want.State, want.Version, want.UpdatedAt = st, 2, later
	sameCard(t, f.get(a, c.ID), want, "card after UpdateState")

	wantKind(t, f.s.Cards().UpdateState(f.ctx, a, c.ID, 1, st, later), contracts.KindConflict, "UpdateState with a stale version")
	wantKind(t, f.s.Cards().UpdateState(f.ctx, b, c.ID, 2, contracts.CardState{Phase: contracts.PhaseReview, Due: f.now}, later),
		contracts.KindNotFound, "UpdateState of another user's card")
	wantKind(t, f.s.Cards().UpdateState(f.ctx, a, "crd-missing", 1, st, later), contracts.KindNotFound, "UpdateState of a missing card")
	sameCard(t, f.get(a, c.ID), want, "card after failed UpdateStates")
}

func testDeleteCards(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Deletions")
	cs := f.insert(a, f.reviewCard(d.ID, "one", f.now), f.reviewCard(d.ID, "two", f.now), f.reviewCard(d.ID, "three", f.now))
	sess := ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: d.ID, StartedAt: f.now, ExpiresAt: f.now.Add(day)}
	must(t, f.s.Sessions().CreateSession(f.ctx, sess, ids(cs)))
	f.review(a, cs[0], "", contracts.RatingGood, f.now, 0)
	f.review(a, cs[1], "", contracts.RatingGood, f.now, 0)

	got, err := f.s.Cards().TrashCards(f.ctx, b, ids(cs), f.now)
	must(t, err)
	if len(got) != 0 {
		t.Errorf("another user's DeleteCards deleted %v", got)
	}
	got, err = f.s.Cards().TrashCards(f.ctx, a, []string{cs[0].ID, "crd-missing", cs[2].ID}, f.now)
	must(t, err)
	sameSet(t, got, []string{cs[0].ID, cs[2].ID}, "DeleteCards returns the ids it deleted")
	left, err := f.s.Cards().GetCards(f.ctx, a, ids(cs))
	must(t, err)
	sameIDs(t, ids(left), []string{cs[1].ID}, "cards left")
	days, err := f.s.Reviews().ReviewDays(f.ctx, a, "", f.now.Add(-day))
	must(t, err)
	if len(days) != 1 || days[0].Reviews != 1 {
		t.Errorf("ReviewDays after DeleteCards = %+v, want the remaining card's one review", days)
	}
	_, remaining, err := f.s.Sessions().Progress(f.ctx, a, sess.ID)
	must(t, err)
	if remaining != 1 {
		t.Errorf("session has %d pending items after two of its three cards were deleted, want 1", remaining)
	}
	got, err = f.s.Cards().TrashCards(f.ctx, a, []string{cs[0].ID}, f.now)
	must(t, err)
	if len(got) != 0 {
		t.Errorf("deleting a deleted card reported %v", got)
	}
}
