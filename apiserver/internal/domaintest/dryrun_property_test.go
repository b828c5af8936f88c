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

// TestDryRunMatchesRealCall is a property test: for random batches of
// update_cards patches (edits, tag changes, suspensions, moves to a
// deck that exists or not, unknown and repeated ids, edits that collide
// with another card, empty and over-long sides), a dry run reports
// exactly the outcomes and counts the real call then has on the same
// state, and changes nothing (the state after it is the state before).
func TestDryRunMatchesRealCall(t *testing.T) { eachStore(t, testDryRunMatchesRealCall) }

func testDryRunMatchesRealCall(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	a, b := e.deck(ctx, "A"), e.deck(ctx, "B")
	var ids []string
	for _, d := range []contracts.Deck{a, b} {
		cards := make([]contracts.NewCard, 30)
		for i := range cards {
			cards[i] = card(fmt.Sprintf("front %d", i), fmt.Sprintf("back %d", i), "t")
		}
		for _, it := range e.add(ctx, d.ID, cards...).Items {
			ids = append(ids, it.ID)
		}
	}
	rng := rand.New(rand.NewPCG(26, uint64(len(store))))
	pick := func(vs ...string) string { return vs[rng.IntN(len(vs))] }
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	seen := map[string]int{}
	for round := range rounds {
		n := 1 + rng.IntN(25)
		patches := make([]contracts.CardPatch, n)
		for i := range patches {
			p := contracts.CardPatch{ID: ids[rng.IntN(len(ids))]}
			if rng.IntN(10) == 0 {
				p.ID = pick("0190d5a0-0000-7000-8000-000000000000", "not-an-id")
			}
			switch rng.IntN(8) {
			case 0:
				p.Front = ptr(pick("front 1", "front 2", fmt.Sprintf("new %d", rng.IntN(5)), " ", strings.Repeat("x", contracts.MaxCardSideLen+1)))
			case 1:
				p.Back = ptr(pick("back 1", "back 2", fmt.Sprintf("other %d", rng.IntN(5))))
			case 2:
				p.Tags = ptr([]string{pick("x", "y", "t")})
			case 3:
				p.Suspended = ptr(rng.IntN(2) == 0)
			case 4:
				p.DeckID = ptr(pick(a.ID, b.ID, "0190d5a0-0000-7000-8000-00000000dead"))
			case 5:
				p.Front, p.Back = ptr(fmt.Sprintf("front %d", rng.IntN(30))), ptr(fmt.Sprintf("back %d", rng.IntN(30)))
			case 6:
				// nothing to change
			default:
				p.Back, p.Suspended, p.DeckID = ptr(fmt.Sprintf("moved %d", rng.IntN(3))), ptr(false), ptr(pick(a.ID, b.ID))
			}
			patches[i] = p
		}
		stateBefore := e.cardsState(ctx, ids)
		dry, dryErr := e.svc.Cards.UpdateCards(ctx, contracts.UpdateCardsArgs{Updates: patches, DryRun: true})
		if after := e.cardsState(ctx, ids); !reflect.DeepEqual(after, stateBefore) {
			t.Fatalf("round %d: the dry run changed cards", round)
		}
		real, realErr := e.svc.Cards.UpdateCards(ctx, contracts.UpdateCardsArgs{Updates: patches})
		if (dryErr == nil) != (realErr == nil) || contracts.KindOf(dryErr) != contracts.KindOf(realErr) {
			t.Fatalf("round %d: dry run error %v, real call error %v", round, dryErr, realErr)
		}
		if !dry.DryRun || real.DryRun {
			t.Fatalf("round %d: DryRun flags %v / %v", round, dry.DryRun, real.DryRun)
		}
		if !reflect.DeepEqual(dry.Items, real.Items) || !reflect.DeepEqual(dry.Counts, real.Counts) {
			t.Fatalf("round %d: dry run\n%+v %v\nreal call\n%+v %v", round, dry.Items, dry.Counts, real.Items, real.Counts)
		}
		for k, n := range real.Counts {
			seen[k] += n
		}
		if want := min(real.Counts[string(contracts.OutcomeUpdated)], contracts.MaxPreviewChanges); len(dry.Changes) != want {
			t.Fatalf("round %d: %d preview changes for %d updates", round, len(dry.Changes), real.Counts[string(contracts.OutcomeUpdated)])
		}
	}
	// The batches reached every kind of outcome.
	for _, k := range []contracts.OutcomeStatus{contracts.OutcomeUpdated, contracts.OutcomeNotFound, contracts.OutcomeInvalid, contracts.OutcomeConflict} {
		if seen[string(k)] == 0 {
			t.Errorf("no %s outcome in %d rounds (%v): the batches do not cover it", k, rounds, seen)
		}
	}
	t.Logf("outcomes over %d rounds: %v", rounds, seen)
}

// cardsState is what a dry run must leave as it was: every card's
// content, deck, suspension and version.
func (e *env) cardsState(ctx context.Context, ids []string) map[string]string {
	e.t.Helper()
	uid, err := contracts.UserID(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	rows, err := e.store.Cards().GetCards(ctx, uid, ids)
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range rows {
		out[r.ID] = fmt.Sprintf("%s|%s|%v|%s|%v|%d", r.Front, r.Back, r.Tags, r.DeckID, r.Suspended, r.Version)
	}
	return out
}

// TestDryRunMatchesRealCallDeletesAndReschedules is the same property for
// delete_cards and reschedule_cards: random id lists (repeats, unknown
// ids, cards already deleted, new cards that cannot get a due date), a
// dry run first, then the real call on the same state.
func TestDryRunMatchesRealCallDeletesAndReschedules(t *testing.T) {
	eachStore(t, testDryRunMatchesRealCallDeletesAndReschedules)
}

func testDryRunMatchesRealCallDeletesAndReschedules(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "A")
	cards := make([]contracts.NewCard, 80)
	for i := range cards {
		cards[i] = card(fmt.Sprintf("front %d", i), fmt.Sprintf("back %d", i))
	}
	var ids []string
	for _, it := range e.add(ctx, d.ID, cards...).Items {
		ids = append(ids, it.ID)
	}
	rng := rand.New(rand.NewPCG(27, uint64(len(store))))
	randomIDs := func() []string {
		out := make([]string, 1+rng.IntN(12))
		for i := range out {
			out[i] = ids[rng.IntN(len(ids))]
			if rng.IntN(12) == 0 {
				out[i] = "0190d5a0-0000-7000-8000-000000000000"
			}
		}
		return out
	}
	same := func(round int, what string, dry, real contracts.BulkResult, dryErr, realErr error) {
		t.Helper()
		if contracts.KindOf(dryErr) != contracts.KindOf(realErr) || !dry.DryRun && dryErr == nil {
			t.Fatalf("round %d %s: dry run %v (dryRun=%v), real call %v", round, what, dryErr, dry.DryRun, realErr)
		}
		if !reflect.DeepEqual(dry.Items, real.Items) || !reflect.DeepEqual(dry.Counts, real.Counts) {
			t.Fatalf("round %d %s: dry run\n%+v\nreal call\n%+v", round, what, dry.Items, real.Items)
		}
	}
	for round := range 20 {
		batch := randomIDs()
		if rng.IntN(2) == 0 {
			before := e.cardsState(ctx, ids)
			dry, dryErr := e.svc.Cards.DeleteCards(ctx, contracts.DeleteCardsArgs{CardIDs: batch, DryRun: true})
			if !reflect.DeepEqual(e.cardsState(ctx, ids), before) {
				t.Fatalf("round %d: a delete_cards dry run deleted cards", round)
			}
			real, realErr := e.svc.Cards.DeleteCards(ctx, contracts.DeleteCardsArgs{CardIDs: batch})
			same(round, "delete_cards", dry, real, dryErr, realErr)
			continue
		}
		args := contracts.RescheduleCardsArgs{CardIDs: batch, Reset: rng.IntN(3) == 0}
		if !args.Reset {
			args.Days = []int{rng.IntN(5), 5 + rng.IntN(5)}
		}
		before := e.cardsState(ctx, ids)
		dryArgs := args
		dryArgs.DryRun = true
		dry, dryErr := e.svc.Study.RescheduleCards(ctx, dryArgs)
		if !reflect.DeepEqual(e.cardsState(ctx, ids), before) {
			t.Fatalf("round %d: a reschedule_cards dry run changed cards", round)
		}
		real, realErr := e.svc.Study.RescheduleCards(ctx, args)
		same(round, "reschedule_cards", dry, real, dryErr, realErr)
	}
}
