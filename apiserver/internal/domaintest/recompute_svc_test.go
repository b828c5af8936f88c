package domain_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/domain/study"
)

// TestMemoryFollowsWeights (issue 28 §1): after three months of real
// sessions, new weights set through update_deck queue a recompute_memory
// job; before it runs the stored states are those of the old weights,
// after it every reviewed card's stability and difficulty equal a fresh
// replay of its review log under the new weights (fsrs.Replay, which the
// FSRS harness checks against ts-fsrs and fsrs-rs), within 1e-4 relative,
// with due dates unchanged. A desired-retention change alone queues no job.
func TestMemoryFollowsWeights(t *testing.T) { eachStore(t, testMemoryFollowsWeights) }

func testMemoryFollowsWeights(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Year", NewCardsPerDay: ptr(10)})
	if err != nil {
		t.Fatal(err)
	}
	var cards []contracts.NewCard
	for i := range 30 {
		cards = append(cards, card("q"+string(rune('a'+i%26))+string(rune('a'+i/26)), "a"))
	}
	e.add(ctx, d.ID, cards...)
	ratings := []contracts.Rating{contracts.RatingGood, contracts.RatingGood, contracts.RatingAgain, contracts.RatingHard, contracts.RatingEasy, contracts.RatingGood}
	k := 0
	for range 90 {
		s := e.start(ctx, d.ID, nil, nil)
		for n := 0; n < 40 && s.Current != nil; n++ {
			e.clock.Advance(20 * time.Second)
			res := e.review(ctx, s.ID, s.Current.CardID, ratings[k%len(ratings)])
			k++
			if res.Next == nil {
				break
			}
			s.Current = res.Next
		}
		e.clock.Advance(24 * time.Hour)
	}
	runner := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "r1", Lease: time.Minute})
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, DesiredRetention: ptr(0.85)}); err != nil {
		t.Fatal(err)
	}
	if ran, err := runner.RunOnce(context.Background()); ran || err != nil {
		t.Errorf("a desired-retention change queued a job (%v)", err)
	}
	weights := append([]float64{}, contracts.DefaultWeights...)
	weights[0], weights[1], weights[2], weights[3] = 0.6, 1.8, 3.9, 12.5 // initial stabilities
	weights[4], weights[8] = 6.9, 1.5                                    // difficulty, growth
	const op = "01900000-0000-7000-8000-00000000a001"
	up, err := e.svc.Decks.UpdateDeck(contracts.WithOperationID(ctx, op), contracts.UpdateDeckArgs{DeckID: d.ID, Weights: weights})
	if err != nil {
		t.Fatal(err)
	}
	uid := mustUser(t, ctx)
	acct, err := e.svc.Settings.Settings(ctx)
	if err != nil {
		t.Fatal(err)
	}
	day := contracts.NewLearnerDay(acct)
	check := func(set contracts.DeckSettings, wantEqual bool) (compared int) {
		t.Helper()
		page, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: d.ID, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		differ := 0
		for _, c := range page.Items {
			// The card's log as the card info page reads it (newest first;
			// this test makes no manual entries), oldest first.
			logs, err := e.store.Reviews().CardReviews(context.Background(), uid, c.ID, 1000)
			if err != nil {
				t.Fatal(err)
			}
			slices.Reverse(logs)
			st, n, err := fsrs.Replay(fsrs.New(), set, day, study.ReplayEntries(logs))
			if err != nil || n == 0 {
				continue
			}
			compared++
			off := math.Max(rel(c.State.Stability, st.Stability), rel(c.State.Difficulty, st.Difficulty))
			if off > 1e-4 {
				differ++
				if wantEqual {
					t.Errorf("card %s: stored S %.6f D %.6f, replayed under the new weights S %.6f D %.6f", c.ID, c.State.Stability, c.State.Difficulty, st.Stability, st.Difficulty)
				}
			}
		}
		t.Logf("%s: %d cards compared, %d off by more than 1e-4 relative (before the job: %v)", store, compared, differ, !wantEqual)
		if !wantEqual && differ == 0 {
			t.Errorf("before the job, no stored state differs from the new weights' replay (of %d): the check could not fail", compared)
		}
		return compared
	}
	dueBefore := map[string]time.Time{}
	if page, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: d.ID, Limit: 100}); err == nil {
		for _, c := range page.Items {
			dueBefore[c.ID] = c.State.Due
		}
	}
	check(up.Settings, false)
	if ran, err := runner.RunOnce(context.Background()); !ran || err != nil {
		t.Fatalf("new weights queued no job: RunOnce = %v, %v", ran, err)
	}
	if ran, _ := runner.RunOnce(context.Background()); ran {
		t.Error("new weights queued more than one job")
	}
	if n := check(up.Settings, true); n < 20 {
		t.Errorf("only %d cards had a history to compare", n)
	}
	page, _ := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: d.ID, Limit: 100})
	for _, c := range page.Items {
		if !c.State.Due.Equal(dueBefore[c.ID]) {
			t.Errorf("card %s moved from %v to %v: recomputing keeps due dates", c.ID, dueBefore[c.ID], c.State.Due)
		}
	}
	// Undoing the change puts the old weights back, and the cards follow.
	e.clock.Advance(time.Minute)
	res, err := e.svc.Undo.UndoChanges(ctx, contracts.UndoChangesArgs{OperationIDs: []string{op}})
	if err != nil || res.Undone != 1 {
		t.Fatalf("undo of the weights: %+v, %v", res, err)
	}
	back, err := e.svc.Decks.GetDeck(ctx, d.ID)
	if err != nil || !slices.Equal(back.Settings.Weights, contracts.DefaultWeights) {
		t.Fatalf("after the undo the weights are %v (%v)", back.Settings.Weights, err)
	}
	check(back.Settings, false)
	if ran, err := runner.RunOnce(context.Background()); !ran || err != nil {
		t.Fatalf("the undo queued no recompute: RunOnce = %v, %v", ran, err)
	}
	check(back.Settings, true)
}

// rel is |a-b| relative to b.
func rel(a, b float64) float64 { return math.Abs(a-b) / math.Max(math.Abs(b), 1e-12) }
