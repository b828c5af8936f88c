package domain_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

func statuses(r contracts.BulkResult) string {
	var s []string
	for _, it := range r.Items {
		s = append(s, string(it.Status))
	}
	return strings.Join(s, ",")
}

func TestAddCardsOutcomes(t *testing.T) { eachStore(t, testAddCardsOutcomes) }

func testAddCardsOutcomes(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Go")
	first := e.add(ctx, d.ID, card("What is a goroutine?", "A lightweight thread", "Concurrency", "concurrency"))
	existing := first.Items[0].ID

	r, err := e.svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: d.ID, Cards: []contracts.NewCard{
		card("what is a  GOROUTINE? ", "a lightweight thread"), // duplicate of the stored card
		card("What is a channel?", "A typed conduit"),
		card("", "no front"),
		card("What is a channel?", "A typed conduit"), // duplicate inside the batch
		card("What is defer?", "Runs at return", "bad tag"),
		card("  What IS a channel?", "a typed   conduit"),    // batch duplicate, normalised
		card("What is a goroutine?", "A lightweight thread"), // the stored card again: its duplicate, not item 0's
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(r); got != "duplicate,created,invalid,duplicate,invalid,duplicate,duplicate" {
		t.Fatalf("statuses %s", got)
	}
	it := r.Items
	if it[0].ExistingID != existing || it[3].ExistingID != it[1].ID || it[5].ExistingID != it[1].ID || it[6].ExistingID != existing {
		t.Errorf("duplicate ids: %+v", it)
	}
	const stored = "a card with the same front and back is already in this deck"
	if it[0].Reason != stored || it[6].Reason != stored || it[0].ID != "" || it[6].ID != "" {
		t.Errorf("duplicates of the stored card: %+v / %+v", it[0], it[6])
	}
	if it[2].Reason != "front must not be empty" || !strings.Contains(it[4].Reason, `use "bad-tag" instead`) {
		t.Errorf("invalid reasons: %q / %q", it[2].Reason, it[4].Reason)
	}
	for i, o := range it {
		if o.Index != i {
			t.Errorf("item %d has index %d", i, o.Index)
		}
	}
	if r.DeckID != d.ID || r.Counts["created"] != 1 || r.Counts["duplicate"] != 4 || r.Counts["invalid"] != 2 || r.Replayed {
		t.Errorf("result = %+v", r)
	}
	c, err := e.svc.Cards.GetCard(ctx, existing)
	if err != nil || !slices.Equal(c.Tags, []string{"Concurrency"}) || c.State.Phase != contracts.PhaseNew || !c.State.Due.Equal(t0) {
		t.Errorf("stored card = %+v, %v", c, err)
	}
	got, _ := e.svc.Decks.GetDeck(ctx, d.ID)
	if got.Counts.Total != 2 {
		t.Errorf("deck has %d cards, want 2", got.Counts.Total)
	}

	// Whole-request failures.
	_, err = e.svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: d.ID})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: d.ID, Cards: make([]contracts.NewCard, 1001)})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: "missing", Cards: []contracts.NewCard{card("a", "b")}})
	wantKind(t, err, contracts.KindNotFound)
}

func TestAddCardsIdempotency(t *testing.T) { eachStore(t, testAddCardsIdempotency) }

func testAddCardsIdempotency(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Go")
	args := contracts.AddCardsArgs{DeckID: d.ID, IdempotencyKey: "batch-1", Cards: []contracts.NewCard{card("a", "1"), card("b", "2"), card("", "x")}}
	r1, err := e.svc.Cards.AddCards(ctx, args)
	if err != nil || r1.Replayed || statuses(r1) != "created,created,invalid" {
		t.Fatalf("first call: %+v, %v", r1, err)
	}
	r2, err := e.svc.Cards.AddCards(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Replayed || statuses(r2) != "created,created,invalid" || r2.Items[0].ID != r1.Items[0].ID || r2.Items[1].ID != r1.Items[1].ID {
		t.Errorf("replay = %+v, want the first result with replayed", r2)
	}
	got, _ := e.svc.Decks.GetDeck(ctx, d.ID)
	if got.Counts.Total != 2 {
		t.Errorf("replay inserted cards: deck has %d", got.Counts.Total)
	}
	changed := args
	changed.Cards = []contracts.NewCard{card("c", "3")}
	_, err = e.svc.Cards.AddCards(ctx, changed)
	wantKind(t, err, contracts.KindConflict)
	if !strings.Contains(err.Error(), "use a new key") {
		t.Errorf("conflict message %q", err)
	}
	// Keys are per user: another user may use the same key.
	other := e.user("bob@example.com")
	od := e.deck(other, "Bob's")
	r3, err := e.svc.Cards.AddCards(other, contracts.AddCardsArgs{DeckID: od.ID, IdempotencyKey: "batch-1", Cards: []contracts.NewCard{card("z", "9")}})
	if err != nil || r3.Replayed || statuses(r3) != "created" {
		t.Errorf("other user's same key: %+v, %v", r3, err)
	}
	// Without a key a retry reports duplicates instead of replaying.
	r4 := e.add(ctx, d.ID, card("a", "1"))
	if statuses(r4) != "duplicate" || r4.Items[0].ExistingID != r1.Items[0].ID {
		t.Errorf("retry without key = %+v", r4)
	}
}

func TestImportCards(t *testing.T) { eachStore(t, testImportCards) }

func testImportCards(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Import")

	csv := "front,back,tags\nhello,hallo,de\n\"a, b\",\"x \"\"y\"\"\",\nonly-one\nhello,hallo,dup\n"
	r, err := e.svc.Cards.ImportCards(ctx, contracts.ImportCardsArgs{DeckID: d.ID, Text: csv})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(r); got != "created,created,invalid,duplicate" {
		t.Fatalf("csv statuses %s (%+v)", got, r.Items)
	}
	if !strings.HasPrefix(r.Items[2].Reason, "line 4: ") {
		t.Errorf("invalid line reason %q", r.Items[2].Reason)
	}
	c, _ := e.svc.Cards.GetCard(ctx, r.Items[1].ID)
	if c.Front != "a, b" || c.Back != `x "y"` {
		t.Errorf("quoted csv card = %q / %q", c.Front, c.Back)
	}

	anki := "#separator:tab\n#html:true\n#tags column:3\nHund\tdog\tanimals de\nKatze\t\"cat\nmultiline\"\tanimals\n\tempty front\t\n"
	r, err = e.svc.Cards.ImportCards(ctx, contracts.ImportCardsArgs{DeckID: d.ID, Text: anki, IdempotencyKey: "anki-1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(r); got != "created,created,invalid" || r.Items[2].Reason != `line 7: the note makes no card: fill in "Front"` {
		t.Fatalf("anki: %s %+v", got, r.Items)
	}
	c, _ = e.svc.Cards.GetCard(ctx, r.Items[0].ID)
	if !slices.Equal(c.Tags, []string{"animals", "de"}) {
		t.Errorf("anki tags = %v", c.Tags)
	}
	again, err := e.svc.Cards.ImportCards(ctx, contracts.ImportCardsArgs{DeckID: d.ID, Text: anki, IdempotencyKey: "anki-1"})
	if err != nil || !again.Replayed || again.Items[0].ID != r.Items[0].ID {
		t.Errorf("import replay = %+v, %v", again, err)
	}

	tsv := "Question\tAnswer\nq1\ta1\nq2\ta2\n"
	r, err = e.svc.Cards.ImportCards(ctx, contracts.ImportCardsArgs{DeckID: d.ID, Text: tsv, Format: contracts.ImportTSV})
	if err != nil || statuses(r) != "created,created" {
		t.Errorf("tsv: %+v, %v", r, err)
	}

	_, err = e.svc.Cards.ImportCards(ctx, contracts.ImportCardsArgs{DeckID: d.ID, Text: "no separators here"})
	wantKind(t, err, contracts.KindInvalid)
	var big strings.Builder
	for i := range 1001 {
		fmt.Fprintf(&big, "f%d,b\n", i)
	}
	_, err = e.svc.Cards.ImportCards(ctx, contracts.ImportCardsArgs{DeckID: d.ID, Text: big.String()})
	wantKind(t, err, contracts.KindInvalid)
	if !strings.Contains(err.Error(), "1001 cards") {
		t.Errorf("too many: %q", err)
	}
	_, err = e.svc.Cards.ImportCards(ctx, contracts.ImportCardsArgs{DeckID: "missing", Text: "a,b"})
	wantKind(t, err, contracts.KindNotFound)
}

func TestUpdateAndDeleteCards(t *testing.T) { eachStore(t, testUpdateAndDeleteCards) }

func testUpdateAndDeleteCards(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	a := e.deck(ctx, "A")
	b := e.deck(ctx, "B")
	ra := e.add(ctx, a.ID, card("one", "1"), card("two", "2"), card("three", "3"))
	rb := e.add(ctx, b.ID, card("one", "1"))
	one, two, three := ra.Items[0].ID, ra.Items[1].ID, ra.Items[2].ID
	e.clock.Advance(time.Minute)

	r, err := e.svc.Cards.UpdateCards(ctx, contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{
		{ID: two, Front: ptr("TWO"), Tags: ptr([]string{"X", "x", "y"})}, // updated
		{ID: three, Suspended: ptr(true)},                                // updated
		{ID: one, DeckID: ptr(b.ID)},                                     // conflict: B has "one"/"1"
		{ID: two, Front: ptr("three"), Back: ptr("3")},                   // conflict: A has three
		{ID: "no-such-card", Front: ptr("x")},                            // not_found
		{ID: one},                                                        // invalid: nothing to change
		{ID: one, Back: ptr("  ")},                                       // invalid
		{ID: two, DeckID: ptr("no-such-deck")},                           // not_found
		{ID: three, DeckID: ptr(b.ID), Front: ptr("three moved")},        // updated (moved)
		{ID: two, Front: ptr("two again"), Back: ptr("2")},               // updated (same card, second edit)
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := "updated,updated,conflict,conflict,not_found,invalid,invalid,not_found,updated,updated"
	if got := statuses(r); got != want {
		t.Fatalf("statuses\n got  %s\n want %s\n%+v", got, want, r.Items)
	}
	if r.Items[2].ExistingID != rb.Items[0].ID || !strings.Contains(r.Items[2].Reason, "target deck") {
		t.Errorf("move conflict = %+v", r.Items[2])
	}
	c2, _ := e.svc.Cards.GetCard(ctx, two)
	if c2.Front != "two again" || !slices.Equal(c2.Tags, []string{"X", "y"}) || !c2.UpdatedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("card two = %+v", c2)
	}
	c3, _ := e.svc.Cards.GetCard(ctx, three)
	if c3.DeckID != b.ID || !c3.Suspended || c3.Front != "three moved" {
		t.Errorf("card three = %+v", c3)
	}
	// The hash follows the edit: "two again" is now a duplicate, "TWO" is free.
	dup := e.add(ctx, a.ID, card("Two  Again", "2"), card("TWO", "2"))
	if statuses(dup) != "duplicate,created" || dup.Items[0].ExistingID != two {
		t.Errorf("after edit: %+v", dup)
	}

	d, err := e.svc.Cards.DeleteCards(ctx, contracts.DeleteCardsArgs{CardIDs: []string{one, "ghost", two, one, "ghost"}})
	if err != nil || statuses(d) != "deleted,not_found,deleted,duplicate,duplicate" || d.Counts["deleted"] != 2 || d.Counts["duplicate"] != 2 ||
		!strings.Contains(d.Items[3].Reason, "item 0") || !strings.Contains(d.Items[4].Reason, "item 1") {
		t.Errorf("delete (the same ids twice) = %+v, %v", d, err)
	}
	_, err = e.svc.Cards.GetCard(ctx, one)
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Cards.UpdateCards(ctx, contracts.UpdateCardsArgs{})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Cards.DeleteCards(ctx, contracts.DeleteCardsArgs{})
	wantKind(t, err, contracts.KindInvalid)
}

func TestSearchCards(t *testing.T) { eachStore(t, testSearchCards) }

func testSearchCards(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	a := e.deck(ctx, "Animals")
	b := e.deck(ctx, "Food")
	var cards []contracts.NewCard
	for i := range 25 {
		cards = append(cards, card(fmt.Sprintf("animal %d", i), fmt.Sprintf("Tier %d", i), "animals"))
	}
	e.add(ctx, a.ID, cards...)
	e.add(ctx, a.ID, card("Hund", "dog", "animals", "mammal"), card("Forelle", "trout", "fish"))
	fr := e.add(ctx, b.ID, card("Brot", "bread", "food"), card("Hundekuchen", "dog biscuit", "food"))

	var all []string
	cursor := ""
	for {
		p, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: a.ID, Tags: []string{"Animals"}, Limit: 10, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Items {
			all = append(all, c.ID)
		}
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if len(all) != 26 || len(slices.Compact(slices.Clone(all))) != 26 {
		t.Errorf("paged search found %d cards (%d distinct), want 26", len(all), len(slices.Compact(slices.Clone(all))))
	}

	p, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Query: "dog"})
	if err != nil || len(p.Items) != 2 {
		t.Errorf("query dog across decks: %d items, %v", len(p.Items), err)
	}
	p, err = e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Query: "dog", DeckID: b.ID})
	if err != nil || len(p.Items) != 1 || p.Items[0].ID != fr.Items[1].ID {
		t.Errorf("query dog in Food: %+v, %v", p.Items, err)
	}
	p, err = e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Tags: []string{"mammal", "animals"}})
	if err != nil || len(p.Items) != 1 || p.Items[0].Front != "Hund" {
		t.Errorf("tags mammal+animals: %+v, %v", p.Items, err)
	}
	e.svc.Cards.UpdateCards(ctx, contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: fr.Items[0].ID, Suspended: ptr(true)}}})
	p, err = e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{State: "suspended"})
	if err != nil || len(p.Items) != 1 || p.Items[0].ID != fr.Items[0].ID {
		t.Errorf("suspended: %+v, %v", p.Items, err)
	}
	p, err = e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: b.ID, State: "new"})
	if err != nil || len(p.Items) != 1 {
		t.Errorf("new in Food (one suspended): %d, %v", len(p.Items), err)
	}
	p, err = e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Query: "Hun"})
	if err != nil || len(p.Items) != 2 {
		t.Errorf("prefix query Hun: %d, %v", len(p.Items), err)
	}

	_, err = e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{State: "dormant"})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Cursor: "@@"})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{Limit: 101})
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: "nope"})
	wantKind(t, err, contracts.KindNotFound)
}
