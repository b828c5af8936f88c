package domain_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/study"
)

// leechCase is a card one lapse from a leech (threshold 2, suspend), in
// a deck of its own: the first card of a two-card note, or a card
// without a note (alone).
type leechCase struct {
	e            *env
	ctx          context.Context
	deck         string
	card, other  string // the studied card and its sibling
	note         string
	beforeLeech  contracts.Card // the card before the rating that makes it a leech
	leechSession string
}

// newLeechCase learns the card and lapses it once (no leech yet).
func newLeechCase(t *testing.T, e *env, email string, alone bool) *leechCase {
	t.Helper()
	ctx := e.user(email)
	d := e.deck(ctx, "Hard")
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, LeechThreshold: ptr(2),
		LeechAction: contracts.LeechActionSuspend, BuryReviews: ptr(false)}); err != nil {
		t.Fatal(err)
	}
	lc := &leechCase{e: e, ctx: ctx, deck: d.ID}
	if alone {
		lc.card = ids(e.add(ctx, d.ID, card("schwer", "hard", "verbs")))[0]
	} else {
		notes := e.notes(ctx, d.ID, reversed("schwer", "hard"))
		lc.card, lc.other = notes[0][0], notes[0][1]
		lc.note = mustNoteOf(t, e, ctx, lc.card)
	}
	e.studyThrough(ctx, e.start(ctx, d.ID, ptr(1), nil), always(contracts.RatingEasy))
	s, r := lc.lapse(t, ctx)
	if r.Leech {
		t.Fatalf("a leech at the first lapse: %+v", r)
	}
	e.studyThrough(ctx, contracts.StudySession{ID: s, Current: r.Next, NextCardAt: r.NextCardAt}, always(contracts.RatingGood))
	return lc
}

// lapse rates the card again when it is next due, through ctx (which may
// carry an operation id), and returns the session and the result.
func (lc *leechCase) lapse(t *testing.T, ctx context.Context) (string, contracts.ReviewResult) {
	t.Helper()
	card := lc.get(t, lc.card)
	lc.e.clock.Set(card.State.Due.Add(time.Hour))
	s := lc.e.start(lc.ctx, lc.deck, ptr(0), nil)
	if s.Current == nil || s.Current.CardID != lc.card {
		t.Fatalf("the hard card is not served: %+v", s.Current)
	}
	lc.beforeLeech, lc.leechSession = lc.get(t, lc.card), s.ID
	return s.ID, lc.e.review(ctx, s.ID, lc.card, contracts.RatingAgain)
}

func (lc *leechCase) get(t *testing.T, id string) contracts.Card {
	t.Helper()
	c, err := lc.e.svc.Cards.GetCard(lc.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// leeched checks the leech marking is there (on: tag on the note and its
// cards, the card suspended) or gone, and the card's lapses.
func (lc *leechCase) leeched(t *testing.T, when string, on bool, lapses int) {
	t.Helper()
	if lc.note != "" {
		n, err := lc.e.svc.Notes.GetNote(lc.ctx, lc.note)
		if err != nil {
			t.Fatal(err)
		}
		if got := slices.Contains(n.Tags, contracts.LeechTag); got != on {
			t.Errorf("%s: note tags %v, leech tag %v", when, n.Tags, on)
		}
	}
	for _, id := range []string{lc.card, lc.other} {
		if id == "" {
			continue
		}
		if c := lc.get(t, id); slices.Contains(c.Tags, contracts.LeechTag) != on {
			t.Errorf("%s: card %s tags %v, leech tag %v", when, id, c.Tags, on)
		}
	}
	c := lc.get(t, lc.card)
	if c.Suspended != on || c.State.Lapses != lapses {
		t.Errorf("%s: card suspended %v at %d lapses, want %v at %d", when, c.Suspended, c.State.Lapses, on, lapses)
	}
}

// undo runs undo_changes over one operation and checks every item's status.
func (lc *leechCase) undo(t *testing.T, op string, want string) contracts.UndoChangesResult {
	t.Helper()
	lc.e.clock.Advance(time.Minute)
	u, err := lc.e.svc.Undo.UndoChanges(lc.ctx, contracts.UndoChangesArgs{OperationIDs: []string{op}})
	if err != nil {
		t.Fatalf("undo %s: %v", op, err)
	}
	kinds := map[contracts.ChangeKind]bool{}
	for _, it := range u.Items {
		kinds[it.Kind] = true
		if it.Status != want || (want == contracts.UndoSkipped) != (it.Reason != "") {
			t.Errorf("undo %s: item %+v, want %s", op, it, want)
		}
	}
	review := kinds[contracts.ChangeReview] || kinds[contracts.ChangeReviewUndo] // the review, or applying it again
	n := 2                                                                       // the review and the card's suspension (a card alone: and tags)
	if lc.note != "" {
		n++ // the note's tags
	}
	if len(u.Items) != n || !review || !kinds[contracts.ChangeCardUpdate] || kinds[contracts.ChangeNoteUpdate] != (lc.note != "") {
		t.Errorf("undo %s: items %+v, want the review, the card's suspension (and tags) and the note's tags", op, u.Items)
	}
	return u
}

// TestLeechUndo (issue 26 §2.2): a rating that makes a card a leech
// (suspend action) through an operation records what the leech marking
// changed, so undo_changes of that operation takes back the whole review
// as Anki does: the schedule, the leech tag on the note and its cards,
// the suspension; the undo of that undo applies the review and the
// marking again, and undoing that takes both back once more. The same
// for a card without a note (its own tags).
func TestLeechUndo(t *testing.T) {
	eachStore(t, func(t *testing.T, store string) {
		t.Run("note", func(t *testing.T) { testLeechUndo(t, newEnv(t, store), false) })
		t.Run("alone", func(t *testing.T) { testLeechUndo(t, newEnv(t, store), true) })
	})
}

func testLeechUndo(t *testing.T, e *env, alone bool) {
	lc := newLeechCase(t, e, "ada@example.com", alone)
	_, r := lc.lapse(t, contracts.WithOperationID(lc.ctx, "op-leech"))
	if !r.Leech {
		t.Fatalf("the second lapse made no leech: %+v", r)
	}
	before, after := lc.beforeLeech, lc.get(t, lc.card)
	lc.leeched(t, "after the rating", true, 2)

	u := lc.undo(t, "op-leech", contracts.UndoUndone)
	lc.leeched(t, "after the undo", false, 1)
	if c := lc.get(t, lc.card); !study.SameSchedule(c.State, before.State) {
		t.Errorf("after the undo the schedule is %+v, want %+v", c.State, before.State)
	}
	redo := lc.undo(t, u.OperationID, contracts.UndoUndone)
	lc.leeched(t, "after the undo's undo", true, 2)
	if c := lc.get(t, lc.card); !study.SameSchedule(c.State, after.State) {
		t.Errorf("after the undo's undo the schedule is %+v, want %+v", c.State, after.State)
	}
	lc.undo(t, redo.OperationID, contracts.UndoUndone)
	lc.leeched(t, "after the third undo", false, 1)
	if c := lc.get(t, lc.card); !study.SameSchedule(c.State, before.State) {
		t.Errorf("after the third undo the schedule is %+v, want %+v", c.State, before.State)
	}
	// The card is studied again: it is due, not suspended.
	if s := e.start(lc.ctx, lc.deck, ptr(0), nil); s.Current == nil || s.Current.CardID != lc.card {
		t.Errorf("after the undo the card is not served: %+v", s.Current)
	}
}

// TestLeechUndoAfterTagEdit: when the note's tags were edited after the
// rating, undo_changes leaves the leech marking (and the review, whose
// card changed since) as they are and says why, rather than overwriting
// the edit.
func TestLeechUndoAfterTagEdit(t *testing.T) { eachStore(t, testLeechUndoAfterTagEdit) }

func testLeechUndoAfterTagEdit(t *testing.T, store string) {
	e := newEnv(t, store)
	lc := newLeechCase(t, e, "ada@example.com", false)
	if _, r := lc.lapse(t, contracts.WithOperationID(lc.ctx, "op-leech")); !r.Leech {
		t.Fatalf("the second lapse made no leech: %+v", r)
	}
	edited := []string{contracts.LeechTag, "verbs"}
	res, err := e.svc.Notes.UpdateNotes(lc.ctx, contracts.UpdateNotesArgs{Updates: []contracts.NotePatch{{ID: lc.note, Tags: &edited}}})
	if err != nil || res.Items[0].Status != contracts.OutcomeUpdated {
		t.Fatalf("edit the note's tags: %+v, %v", res, err)
	}
	u := lc.undo(t, "op-leech", contracts.UndoSkipped)
	if u.Undone != 0 || u.OperationID != "" {
		t.Errorf("undo after the edit: %+v, want nothing undone", u)
	}
	lc.leeched(t, "after the undo", true, 2)
	if n, err := e.svc.Notes.GetNote(lc.ctx, lc.note); err != nil || !slices.Equal(n.Tags, edited) {
		t.Errorf("the edited tags became %v (%v), want %v", n.Tags, err, edited)
	}
}

// TestLeechStudyPageUndo: the study page's undo of the rating that made
// the card a leech takes the marking back too, through the same records,
// and marks them undone: undo_changes then has nothing left to take back.
func TestLeechStudyPageUndo(t *testing.T) { eachStore(t, testLeechStudyPageUndo) }

func testLeechStudyPageUndo(t *testing.T, store string) {
	e := newEnv(t, store)
	lc := newLeechCase(t, e, "ada@example.com", false)
	if _, r := lc.lapse(t, contracts.WithOperationID(lc.ctx, "op-leech")); !r.Leech {
		t.Fatalf("the second lapse made no leech: %+v", r)
	}
	before := lc.beforeLeech
	e.clock.Advance(10 * time.Second)
	res, err := e.svc.Study.UndoLastReview(contracts.WithOperationID(lc.ctx, "op-page-undo"), lc.leechSession)
	if err != nil || res.CardID != lc.card {
		t.Fatalf("undo the rating: %+v, %v", res, err)
	}
	lc.leeched(t, "after the page's undo", false, 1)
	if c := lc.get(t, lc.card); !study.SameSchedule(c.State, before.State) {
		t.Errorf("after the undo the schedule is %+v, want %+v", c.State, before.State)
	}
	u, err := e.svc.Undo.UndoChanges(lc.ctx, contracts.UndoChangesArgs{OperationIDs: []string{"op-leech"}})
	if err != nil || len(u.Items) != 0 {
		t.Errorf("undo_changes after the page's undo: %+v, %v; want nothing left", u, err)
	}
}
