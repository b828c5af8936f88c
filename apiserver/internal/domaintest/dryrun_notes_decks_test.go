package domain_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestDryRunMatchesRealCallNotes is the dry-run property for
// update_notes: random batches of note patches (field edits, a reverse
// card added or dropped, tag changes, edits that collide with another
// card of the deck, unknown fields, over-long values, empty patches,
// unknown and repeated ids) get from a dry run exactly the outcomes and
// counts the real call then has on the same state, and the dry run
// leaves notes and cards as they were.
func TestDryRunMatchesRealCallNotes(t *testing.T) { eachStore(t, testDryRunMatchesRealCallNotes) }

func testDryRunMatchesRealCallNotes(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "A")
	in := make([]contracts.NewNote, 24)
	for i := range in {
		in[i] = contracts.NewNote{NoteType: contracts.NoteTypeBasicOptReversed, Fields: map[string]string{
			"Front": fmt.Sprintf("front %d", i), "Back": fmt.Sprintf("back %d", i)}}
		if i%3 == 0 {
			in[i].Fields["Add Reverse"] = "y"
		}
	}
	added, err := e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: d.ID, Notes: in})
	if err != nil || added.Counts[string(contracts.OutcomeCreated)] != len(in) {
		t.Fatalf("AddNotes: %v %v", added.Counts, err)
	}
	var ids []string
	for _, it := range added.Items {
		ids = append(ids, it.ID)
	}
	rng := rand.New(rand.NewPCG(28, uint64(len(store))))
	pick := func(vs ...string) string { return vs[rng.IntN(len(vs))] }
	seen := map[string]int{}
	rounds := 30
	if testing.Short() {
		rounds = 10
	}
	for round := range rounds {
		patches := make([]contracts.NotePatch, 1+rng.IntN(10))
		for i := range patches {
			p := contracts.NotePatch{ID: ids[rng.IntN(len(ids))]}
			if rng.IntN(10) == 0 {
				p.ID = pick("0190d5a0-0000-7000-8000-000000000000", "not-an-id")
			}
			switch rng.IntN(7) {
			case 0:
				p.Fields = map[string]string{"Front": pick(fmt.Sprintf("new %d", rng.IntN(6)), "front 1", strings.Repeat("x", contracts.MaxCardSideLen+1))}
			case 1:
				p.Fields = map[string]string{"Back": fmt.Sprintf("other %d", rng.IntN(6))}
			case 2:
				p.Fields = map[string]string{"Add Reverse": pick("", "y")}
			case 3:
				p.Tags = ptr([]string{pick("x", "y", "chapter-1")})
			case 4:
				p.Fields = map[string]string{pick("Nope", "Front"): "z"}
			case 5:
				// nothing to change: invalid
			default:
				n := rng.IntN(len(in))
				p.Fields = map[string]string{"Front": fmt.Sprintf("front %d", n), "Back": fmt.Sprintf("back %d", n)}
			}
			patches[i] = p
		}
		before := e.notesState(ctx, ids)
		dry, dryErr := e.svc.Notes.UpdateNotes(ctx, contracts.UpdateNotesArgs{Updates: patches, DryRun: true})
		if !reflect.DeepEqual(e.notesState(ctx, ids), before) {
			t.Fatalf("round %d: the dry run changed notes or cards", round)
		}
		real, realErr := e.svc.Notes.UpdateNotes(ctx, contracts.UpdateNotesArgs{Updates: patches})
		if contracts.KindOf(dryErr) != contracts.KindOf(realErr) {
			t.Fatalf("round %d: dry run error %v, real call error %v", round, dryErr, realErr)
		}
		if dryErr != nil {
			continue
		}
		if !dry.DryRun || real.DryRun {
			t.Fatalf("round %d: DryRun flags %v / %v", round, dry.DryRun, real.DryRun)
		}
		// New cards' ids are minted afresh by each call; the rest must match.
		if !reflect.DeepEqual(withoutFreshIDs(dry.Items), withoutFreshIDs(real.Items)) || !reflect.DeepEqual(dry.Counts, real.Counts) {
			t.Fatalf("round %d: dry run\n%+v %v\nreal call\n%+v %v", round, dry.Items, dry.Counts, real.Items, real.Counts)
		}
		if n := real.Counts[string(contracts.OutcomeUpdated)]; len(dry.Changes) == 0 && n > 0 || len(dry.Changes) > contracts.MaxPreviewChanges {
			t.Fatalf("round %d: %d preview changes for %d updated notes", round, len(dry.Changes), n)
		}
		for k, n := range real.Counts {
			seen[k] += n
		}
	}
	for _, k := range []contracts.OutcomeStatus{contracts.OutcomeUpdated, contracts.OutcomeNotFound, contracts.OutcomeInvalid, contracts.OutcomeConflict} {
		if seen[string(k)] == 0 {
			t.Errorf("no %s outcome in %d rounds (%v): the batches do not cover it", k, rounds, seen)
		}
	}
	t.Logf("outcomes over %d rounds: %v", rounds, seen)
}

// withoutFreshIDs keeps of each outcome's card ids only those of cards
// that existed before the call: a card a note gains gets a new id on
// each call, dry or real.
func withoutFreshIDs(items []contracts.ItemOutcome) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = fmt.Sprintf("%d|%s|%s|%s|%s|%d", it.Index, it.ID, it.Status, it.Reason, it.ExistingID, len(it.CardIDs))
	}
	return out
}

// notesState is what an update_notes dry run must leave as it was:
// every note's fields, tags and version, and its cards.
func (e *env) notesState(ctx context.Context, ids []string) map[string]string {
	e.t.Helper()
	uid, err := contracts.UserID(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	rows, err := e.store.Notes().GetNotes(ctx, uid, ids)
	if err != nil {
		e.t.Fatal(err)
	}
	cards, err := e.store.Notes().CardsOfNotes(ctx, uid, ids)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rows {
		out[r.ID] = fmt.Sprintf("%q|%v|%d", r.Fields, r.Tags, r.Version)
	}
	for _, c := range cards {
		out[c.ID] = fmt.Sprintf("%s|%d|%s|%s|%v|%d", c.NoteID, c.Ord, c.Front, c.Back, c.Tags, c.Version)
	}
	return out
}

// TestDryRunMatchesRealCallDeleteDeck is the dry-run property for
// delete_deck: in random order, decks with cards, empty decks, a parent
// and its child, decks already deleted and unknown ids get from a dry
// run the very result (or error kind) the real call then gives, and the
// dry run leaves every deck and card in place.
func TestDryRunMatchesRealCallDeleteDeck(t *testing.T) {
	eachStore(t, testDryRunMatchesRealCallDeleteDeck)
}

func testDryRunMatchesRealCallDeleteDeck(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	rng := rand.New(rand.NewPCG(29, uint64(len(store))))
	var deckIDs, cardIDs []string
	for i, name := range []string{"A", "B", "C", "A::Child", "Empty", "D"} {
		d := e.deck(ctx, name)
		deckIDs = append(deckIDs, d.ID)
		cards := make([]contracts.NewCard, rng.IntN(6))
		if name == "Empty" {
			cards = nil
		}
		for j := range cards {
			cards[j] = card(fmt.Sprintf("front %d.%d", i, j), "back")
		}
		if len(cards) > 0 {
			for _, it := range e.add(ctx, d.ID, cards...).Items {
				cardIDs = append(cardIDs, it.ID)
			}
		}
	}
	targets := append(append([]string{}, deckIDs...), deckIDs[0], deckIDs[2], "0190d5a0-0000-7000-8000-000000000000", "not-an-id")
	rng.Shuffle(len(targets), func(i, j int) { targets[i], targets[j] = targets[j], targets[i] })
	deleted := 0
	for round, id := range targets {
		before := e.decksState(ctx, cardIDs)
		dry, dryErr := e.svc.Decks.DeleteDeck(ctx, contracts.DeleteDeckArgs{DeckID: id, DryRun: true})
		if !reflect.DeepEqual(e.decksState(ctx, cardIDs), before) {
			t.Fatalf("round %d: the dry run of deleting %s changed decks or cards", round, id)
		}
		real, realErr := e.svc.Decks.DeleteDeck(ctx, contracts.DeleteDeckArgs{DeckID: id})
		if contracts.KindOf(dryErr) != contracts.KindOf(realErr) || (dryErr == nil) != (realErr == nil) {
			t.Fatalf("round %d: dry run error %v, real call error %v", round, dryErr, realErr)
		}
		if dryErr != nil {
			continue
		}
		if !dry.DryRun || real.DryRun {
			t.Fatalf("round %d: DryRun flags %v / %v", round, dry.DryRun, real.DryRun)
		}
		dry.DryRun = false
		if dry != real {
			t.Fatalf("round %d: dry run %+v, real call %+v", round, dry, real)
		}
		if reflect.DeepEqual(e.decksState(ctx, cardIDs), before) {
			t.Fatalf("round %d: the real call deleted nothing", round)
		}
		deleted++
	}
	if deleted < 2 {
		t.Fatalf("%d decks deleted; the rounds do not cover deletion", deleted)
	}
}

// decksState is what a delete_deck dry run must leave as it was: the
// decks listed and the cards found.
func (e *env) decksState(ctx context.Context, cardIDs []string) string {
	e.t.Helper()
	uid, err := contracts.UserID(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	page, err := e.svc.Decks.ListDecks(ctx, contracts.ListDecksArgs{Limit: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	cards, err := e.store.Cards().GetCards(ctx, uid, cardIDs)
	if err != nil {
		e.t.Fatal(err)
	}
	var b strings.Builder
	for _, d := range page.Items {
		fmt.Fprintf(&b, "%s %s %d;", d.ID, d.Name, d.Counts.Total)
	}
	for _, c := range cards {
		fmt.Fprintf(&b, "%s %s;", c.ID, c.DeckID)
	}
	return b.String()
}
