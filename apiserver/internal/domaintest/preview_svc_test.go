package domain_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestPreviewRatings: what the study page shows under each rating button
// is what that rating then does, in every phase a card passes through,
// and previewing changes nothing.
func TestPreviewRatings(t *testing.T) { eachStore(t, testPreviewRatings) }

func testPreviewRatings(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Preview")
	e.add(ctx, d.ID, card("a", "1"), card("b", "2"), card("c", "3"), card("d", "4"))

	checked := map[contracts.Phase]map[contracts.Rating]int{}
	s := e.start(ctx, d.ID, nil, nil)
	for step := 0; step < 200; step++ {
		if s.Current == nil {
			if s.NextCardAt != nil && !s.Done {
				e.clock.Set(*s.NextCardAt)
			} else {
				e.clock.Advance(4 * 24 * time.Hour)
				s = e.start(ctx, d.ID, nil, nil)
				continue
			}
		} else {
			cur := *s.Current
			before, err := e.svc.Cards.GetCard(ctx, cur.CardID)
			if err != nil {
				t.Fatal(err)
			}
			prev, err := e.svc.Study.PreviewRatings(ctx, s.ID, cur.CardID)
			if err != nil {
				t.Fatalf("step %d: preview: %v", step, err)
			}
			if len(prev) != 4 {
				t.Fatalf("step %d: %d previews, want 4: %+v", step, len(prev), prev)
			}
			for i, p := range prev {
				if p.Rating != contracts.Ratings[i] || p.IntervalHuman == "" || p.NextDue.Before(e.clock.Now()) {
					t.Fatalf("step %d: preview %d = %+v", step, i, p)
				}
			}
			if again, err := e.svc.Study.PreviewRatings(ctx, s.ID, cur.CardID); err != nil || !reflect.DeepEqual(again, prev) {
				t.Fatalf("step %d: a second preview gave %+v, %v; the first %+v", step, again, err, prev)
			}
			if after, err := e.svc.Cards.GetCard(ctx, cur.CardID); err != nil || !reflect.DeepEqual(after, before) {
				t.Fatalf("step %d: previewing changed the card: %+v -> %+v (%v)", step, before, after, err)
			}
			if s2, err := e.svc.Study.GetSession(ctx, s.ID); err != nil || s2.Reviewed != s.Reviewed || s2.Current == nil || s2.Current.Position != cur.Position {
				t.Fatalf("step %d: previewing changed the session: %+v -> %+v (%v)", step, s, s2, err)
			}
			// Take the rating this phase has seen least, so that each
			// rating is taken in each phase.
			if checked[before.State.Phase] == nil {
				checked[before.State.Phase] = map[contracts.Rating]int{}
			}
			i := 0
			for j, r := range contracts.Ratings {
				if checked[before.State.Phase][r] < checked[before.State.Phase][contracts.Ratings[i]] {
					i = j
				}
			}
			r := contracts.Ratings[i]
			res := e.review(ctx, s.ID, cur.CardID, r)
			if !res.NextDue.Equal(prev[i].NextDue) || res.IntervalHuman != prev[i].IntervalHuman {
				t.Fatalf("step %d: %s on a %s card gave %s (due %v); the preview said %s (due %v)",
					step, r, before.State.Phase, res.IntervalHuman, res.NextDue, prev[i].IntervalHuman, prev[i].NextDue)
			}
			checked[before.State.Phase][r]++
			e.clock.Advance(time.Minute)
		}
		var err error
		if s, err = e.svc.Study.GetSession(ctx, s.ID); contracts.IsKind(err, contracts.KindNotFound) {
			e.clock.Advance(time.Hour)
			s = e.start(ctx, d.ID, nil, nil)
		} else if err != nil {
			t.Fatal(err)
		}
	}
	for _, ph := range []contracts.Phase{contracts.PhaseNew, contracts.PhaseLearning, contracts.PhaseReview, contracts.PhaseRelearning} {
		for _, r := range contracts.Ratings {
			if checked[ph][r] == 0 {
				t.Errorf("%s was never checked on a %s card (checked: %v)", r, ph, checked)
			}
		}
	}

	// A card that is not the one waiting, a stranger's session, a cram
	// session.
	s = e.start(ctx, d.ID, nil, nil)
	for s.Current == nil {
		e.clock.Advance(24 * time.Hour)
		s = e.start(ctx, d.ID, nil, nil)
	}
	_, err := e.svc.Study.PreviewRatings(ctx, s.ID, "nope")
	wantKind(t, err, contracts.KindConflict)
	_, err = e.svc.Study.PreviewRatings(e.user("eve@example.com"), s.ID, s.Current.CardID)
	wantKind(t, err, contracts.KindNotFound)
	cram, err := e.svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: d.ID, Cram: true})
	if err != nil || cram.Current == nil {
		t.Fatalf("cram session %+v, %v", cram, err)
	}
	if prev, err := e.svc.Study.PreviewRatings(ctx, cram.ID, cram.Current.CardID); err != nil || len(prev) != 0 {
		t.Errorf("a cram session previews %+v, %v; want none (its ratings keep the schedule)", prev, err)
	}
}
