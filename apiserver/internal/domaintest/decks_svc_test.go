package domain_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

func TestDecks(t *testing.T) { eachStore(t, testDecks) }

func testDecks(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")

	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "  German   verbs ", Description: " irregular ", NewCardsPerDay: ptr(5)})
	if err != nil {
		t.Fatal(err)
	}
	want := contracts.DefaultDeckSettings().WithDefaults()
	want.NewCardsPerDay, want.PresetID = 5, d.Settings.PresetID // a preset of its own
	if d.Settings.PresetID == "" || d.Name != "German verbs" || d.Description != "irregular" || !reflect.DeepEqual(d.Settings, want) || d.ID == "" || !d.CreatedAt.Equal(t0) {
		t.Errorf("created deck = %+v", d)
	}

	_, err = e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "German verbs"})
	wantKind(t, err, contracts.KindConflict)
	if msg := contracts.MessageOf(err); !strings.Contains(msg, "deckId "+d.ID) {
		t.Errorf("the conflict does not name the existing deck %s: %q", d.ID, msg)
	}

	bad := []struct {
		args contracts.CreateDeckArgs
		msg  string
	}{
		{contracts.CreateDeckArgs{Name: "  "}, "name must be 1-200 characters"},
		{contracts.CreateDeckArgs{Name: strings.Repeat("n", 201)}, "name must be 1-200 characters"},
		{contracts.CreateDeckArgs{Name: "x", DesiredRetention: ptr(0.5)}, "desiredRetention must be between 0.7 and 0.99"},
		{contracts.CreateDeckArgs{Name: "x", DesiredRetention: ptr(0.995)}, "desiredRetention must be between 0.7 and 0.99"},
		{contracts.CreateDeckArgs{Name: "x", NewCardsPerDay: ptr(-1)}, "newCardsPerDay must be 0-1000"},
		{contracts.CreateDeckArgs{Name: "x", ReviewsPerDay: ptr(10001)}, "reviewsPerDay must be 0-10000"},
		{contracts.CreateDeckArgs{Name: "x", MaximumIntervalDays: ptr(0)}, "maximumIntervalDays must be 1-36500"},
		{contracts.CreateDeckArgs{Name: "x", Description: strings.Repeat("d", 2001)}, "description is 2001 characters"},
	}
	for _, b := range bad {
		_, err := e.svc.Decks.CreateDeck(ctx, b.args)
		wantKind(t, err, contracts.KindInvalid)
		if !strings.Contains(err.Error(), b.msg) {
			t.Errorf("CreateDeck(%+v): %q, want %q", b.args, err, b.msg)
		}
	}
	for _, r := range []float64{0.7, 0.99} {
		if _, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: fmt.Sprint("r", r), DesiredRetention: ptr(r)}); err != nil {
			t.Errorf("retention %v rejected: %v", r, err)
		}
	}

	// Update only what is given; counts come back.
	e.add(ctx, d.ID, card("gehen", "to go"), card("sehen", "to see"))
	e.clock.Advance(1000)
	u, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, DesiredRetention: ptr(0.85)})
	if err != nil {
		t.Fatal(err)
	}
	if u.Name != "German verbs" || u.Settings.DesiredRetention != 0.85 || u.Settings.NewCardsPerDay != 5 {
		t.Errorf("updated deck = %+v", u)
	}
	got, err := e.svc.Decks.GetDeck(ctx, d.ID)
	if err != nil || got.Settings.DesiredRetention != 0.85 || got.Counts.Total != 2 || got.Counts.New != 2 {
		t.Errorf("GetDeck = %+v, %v", got, err)
	}
	_, err = e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, Name: ptr("r0.7")})
	wantKind(t, err, contracts.KindConflict)
	_, err = e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, ReviewsPerDay: ptr(-5)})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: "nope", Name: ptr("y")})
	wantKind(t, err, contracts.KindNotFound)

	// Delete reports the cards it removed.
	res, err := e.svc.Decks.DeleteDeck(ctx, contracts.DeleteDeckArgs{DeckID: d.ID})
	if err != nil || res != (contracts.DeleteResult{ID: d.ID, Deleted: true, CardsDeleted: 2}) {
		t.Errorf("DeleteDeck = %+v, %v", res, err)
	}
	_, err = e.svc.Decks.GetDeck(ctx, d.ID)
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Decks.DeleteDeck(ctx, contracts.DeleteDeckArgs{DeckID: d.ID})
	wantKind(t, err, contracts.KindNotFound)

	// No principal: unauthenticated.
	_, err = e.svc.Decks.ListDecks(context.Background(), contracts.ListDecksArgs{})
	wantKind(t, err, contracts.KindUnauthenticated)
}

func TestListDecksPaging(t *testing.T) { eachStore(t, testListDecksPaging) }

func testListDecksPaging(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	var ids []string
	for i := range 7 {
		ids = append(ids, e.deck(ctx, fmt.Sprintf("deck %d", i)).ID)
	}
	var seen []string
	cursor := ""
	pages := 0
	for {
		p, err := e.svc.Decks.ListDecks(ctx, contracts.ListDecksArgs{Cursor: cursor, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, d := range p.Items {
			seen = append(seen, d.ID)
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
	}
	if pages != 3 || strings.Join(seen, ",") != strings.Join(ids, ",") {
		t.Errorf("%d pages, decks %v; want 3 pages of %v in creation order", pages, seen, ids)
	}
	_, err := e.svc.Decks.ListDecks(ctx, contracts.ListDecksArgs{Cursor: "%%%"})
	wantKind(t, err, contracts.KindInvalid)
	if err.Error() != "cursor is not valid; omit it to start from the first page" {
		t.Errorf("bad cursor message %q", err)
	}
	_, err = e.svc.Decks.ListDecks(ctx, contracts.ListDecksArgs{Limit: 500})
	wantKind(t, err, contracts.KindInvalid)
	p, err := e.svc.Decks.ListDecks(ctx, contracts.ListDecksArgs{})
	if err != nil || len(p.Items) != 7 || p.NextCursor != "" {
		t.Errorf("default page: %d items, cursor %q, %v", len(p.Items), p.NextCursor, err)
	}
}
