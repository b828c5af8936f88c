package domain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestDryRunMatchesRealCallUndo is the dry-run property for undo_changes,
// reviews included: over a random history of update_cards calls, study
// reviews (each its own operation), later edits and undos, an undo of a
// random pick of operations (agents' calls, earlier undos: a redo, by
// operation ids or by everything since a time, with or without
// study:write), past one transaction's 100 records (now and then a bulk
// edit of 100 cards of another deck and one studied card), reports in
// its dry run exactly the items and counts the real undo then has on the same state, and the dry run changes nothing
// (cards, schedules, the review log).
func TestDryRunMatchesRealCallUndo(t *testing.T) { eachStore(t, testDryRunMatchesRealCallUndo) }

func testDryRunMatchesRealCallUndo(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	p, _ := contracts.PrincipalFrom(ctx)
	noStudy := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: p.UserID, CredentialKind: p.CredentialKind,
		CredentialID: p.CredentialID, Scopes: []contracts.Scope{contracts.ScopeDecksRead, contracts.ScopeDecksWrite}})
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Undo property", NewCardsPerDay: ptr(contracts.MaxSessionNewCards)})
	if err != nil {
		t.Fatal(err)
	}
	cards := make([]contracts.NewCard, 30)
	for i := range cards {
		cards[i] = card(fmt.Sprintf("front %d", i), fmt.Sprintf("back %d", i), "t")
	}
	var ids []string
	for _, it := range e.add(ctx, d.ID, cards...).Items {
		ids = append(ids, it.ID)
	}
	other := e.deck(ctx, "Bulk")
	bulkCards := make([]contracts.NewCard, 100)
	for i := range bulkCards {
		bulkCards[i] = card(fmt.Sprintf("bulk %d", i), "bulk")
	}
	var bulk []string
	for _, it := range e.add(ctx, other.ID, bulkCards...).Items {
		bulk = append(bulk, it.ID)
	}
	uid := p.UserID
	state := func() string {
		t.Helper()
		rows, err := e.store.Cards().GetCards(ctx, uid, append(slices.Clone(ids), bulk...))
		if err != nil {
			t.Fatal(err)
		}
		logs, err := e.store.Reviews().ListReviews(ctx, uid, "", 10000)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal([]any{rows, logs})
		return string(b)
	}

	rng := rand.New(rand.NewPCG(2626, uint64(len(store))))
	var ops []string      // every operation so far, undos included
	var undos []string    // the undos' operations: undoing one redoes
	var marks []time.Time // times to undo everything since
	var session string    // the study session reviews go to
	var next *contracts.StudyCard
	rounds := 60
	if testing.Short() {
		rounds = 20
	}
	seen := map[string]int{}
	newOp := func() (context.Context, string) {
		op := fmt.Sprintf("op-%03d", len(ops))
		ops = append(ops, op)
		return contracts.WithOperationID(ctx, op), op
	}
	for round := range rounds {
		e.clock.Advance(time.Duration(1+rng.IntN(90)) * time.Second)
		if rng.IntN(6) == 0 {
			marks = append(marks, e.clock.Now())
		}
		switch rng.IntN(4) {
		case 0: // an agent's update_cards
			octx, _ := newOp()
			patches := make([]contracts.CardPatch, 1+rng.IntN(5))
			for i := range patches {
				patches[i] = contracts.CardPatch{ID: ids[rng.IntN(len(ids))], Back: ptr(fmt.Sprintf("back r%d-%d", round, i))}
				if rng.IntN(3) == 0 {
					patches[i].Tags = ptr([]string{fmt.Sprintf("r%d", round)})
				}
			}
			if rng.IntN(6) == 0 { // a bulk edit: an undo of it spans chunks
				patches = patches[:1]
				for i, id := range bulk {
					patches = append(patches, contracts.CardPatch{ID: id, Back: ptr(fmt.Sprintf("bulk r%d-%d", round, i))})
				}
				patches[0], patches[100] = patches[100], patches[0] // the studied card last
			}
			if _, err := e.svc.Cards.UpdateCards(octx, contracts.UpdateCardsArgs{Updates: patches}); err != nil {
				t.Fatalf("round %d: update_cards: %v", round, err)
			}
		case 1, 2: // a review, its own operation
			if next == nil {
				s := e.start(ctx, d.ID, nil, nil)
				session, next = s.ID, s.Current
				if next == nil && s.NextCardAt != nil {
					e.clock.Set(*s.NextCardAt)
					s = e.start(ctx, d.ID, nil, nil)
					session, next = s.ID, s.Current
				}
			}
			if next == nil {
				continue
			}
			octx, _ := newOp()
			rating := contracts.Ratings[rng.IntN(len(contracts.Ratings))]
			res, err := e.svc.Study.SubmitReview(octx, contracts.SubmitReviewArgs{SessionID: session, CardID: next.CardID, Position: &next.Position, Rating: rating, DurationMs: 2000})
			if err != nil {
				// The card was undone or edited under the session: a fresh session.
				next = nil
				continue
			}
			next = res.Next
		default: // an undo: dry run, then the real call
			var args contracts.UndoChangesArgs
			if len(marks) > 0 && rng.IntN(4) == 0 {
				since, err := contracts.ParseDateOrTime(marks[rng.IntN(len(marks))].Format(time.RFC3339Nano))
				if err != nil {
					t.Fatal(err)
				}
				args.Since = &since
			} else if len(ops) > 0 {
				for range 1 + rng.IntN(3) {
					args.OperationIDs = append(args.OperationIDs, ops[rng.IntN(len(ops))])
				}
				if len(undos) > 0 && rng.IntN(3) == 0 { // a redo of the last undo
					args.OperationIDs = []string{undos[len(undos)-1]}
				}
			} else {
				continue
			}
			uctx, uop := newOp()
			undos = append(undos, uop)
			if rng.IntN(5) == 0 {
				uctx = contracts.WithOperationID(noStudy, ops[len(ops)-1])
			}
			before := state()
			args.DryRun = true
			dry, dryErr := e.svc.Undo.UndoChanges(uctx, args)
			if after := state(); after != before {
				t.Fatalf("round %d: the undo's dry run changed the account", round)
			}
			args.DryRun = false
			real, realErr := e.svc.Undo.UndoChanges(uctx, args)
			if (dryErr == nil) != (realErr == nil) || contracts.KindOf(dryErr) != contracts.KindOf(realErr) {
				t.Fatalf("round %d: dry run error %v, real call error %v", round, dryErr, realErr)
			}
			if !dry.DryRun || real.DryRun || dry.OperationID != "" {
				t.Fatalf("round %d: dry run %+v / real %+v", round, dry, real)
			}
			if !reflect.DeepEqual(dry.Items, real.Items) || dry.Undone != real.Undone || dry.Skipped != real.Skipped || dry.NextCursor != real.NextCursor {
				t.Fatalf("round %d: undo %+v\ndry run\n%+v\nreal call\n%+v", round, args, dry, real)
			}
			for _, it := range real.Items {
				seen[string(it.Kind)+" "+it.Status]++
			}
			next = nil // the session's cards may have moved under it
		}
	}
	// The full run's history reaches every kind of item (the seed is
	// chosen so); -short's 20 rounds check the property on fewer.
	for _, k := range []string{"card.update undone", "card.update skipped", "review undone", "review skipped", "review.undo undone"} {
		if seen[k] == 0 && !testing.Short() {
			t.Errorf("no %q item in %d rounds (%v): the history does not cover it", k, rounds, seen)
		}
	}
	t.Logf("undo items over %d rounds: %v", rounds, seen)
}
