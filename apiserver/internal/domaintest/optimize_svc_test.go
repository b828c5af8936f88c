package domain_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/learnersim"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/background"
	"github.com/takhtabush/takhtabush/domain/fsrs"
	"github.com/takhtabush/takhtabush/ports"
)

// simulatedHistory writes the review log of a simulated learner (package
// learnersim) who studied the cards for days days up to t0, and returns
// how many ratings the optimiser should read.
func simulatedHistory(t *testing.T, e *env, ctx context.Context, deck contracts.Deck, cardIDs []string, days int, seed uint64) int {
	t.Helper()
	logs, want, err := learnersim.Log(learnersim.Config{UserID: mustUser(t, ctx), Deck: deck, CardIDs: cardIDs, Days: days, End: t0, Seed: seed,
		NewID: domain.RandomIDs{}.NewID, Day: contracts.NewLearnerDay(contracts.DefaultAccountSettings())}, fsrs.New())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.InTx(context.Background(), func(tx ports.Stores) error {
		for _, l := range logs {
			if err := tx.Reviews().AppendReview(context.Background(), l); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return want
}

// runJob runs the queued jobs and returns the job when it has ended.
func runJob(t *testing.T, e *env, ctx context.Context, job contracts.Job) contracts.Job {
	t.Helper()
	runner := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "opt", Lease: time.Minute})
	if ran, err := runner.RunOnce(context.Background()); !ran || err != nil {
		t.Fatalf("RunOnce = %v, %v", ran, err)
	}
	got, err := e.svc.Jobs.GetJob(ctx, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func report(t *testing.T, job contracts.Job) contracts.OptimizeReport {
	t.Helper()
	if job.Status != contracts.JobSucceeded {
		t.Fatalf("job %s: %s (%s)", job.ID, job.Status, job.Error)
	}
	var rep contracts.OptimizeReport
	if err := json.Unmarshal(job.Result, &rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// optimize_parameters fits a preset's weights to a simulated learner's
// reviews (a hundred and twenty days, two hundred cards), applies them
// because they predict the held-out cards better, and get_deck shows
// them with the time; another preset keeps its weights.
func TestOptimizeParameters(t *testing.T) { eachStore(t, testOptimizeParameters) }

func testOptimizeParameters(t *testing.T, store string) {
	e := newEnvIDs(t, store, fsrs.New(), &countedIDs{}) // the held-out cards are the same every run
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Learner")
	other := e.deck(ctx, "Other")
	cards := ids(e.add(ctx, d.ID, manyCards("learner", 200)...))
	want := simulatedHistory(t, e, ctx, d, cards, 120, 1)

	job, err := e.svc.Decks.OptimizeParameters(ctx, contracts.OptimizeParametersArgs{DeckID: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	if job.Kind != contracts.JobKindOptimizeParameters || job.Status != contracts.JobQueued {
		t.Fatalf("submitted = %+v", job)
	}
	done := runJob(t, e, ctx, job)
	rep := report(t, done)
	t.Logf("%d cards, %d reviews (%d train / %d held-out cards); before %+v after %+v; %s", rep.Cards, rep.Reviews, rep.TrainCards, rep.HeldOutCards, *rep.Before, *rep.After, rep.Reason)
	if rep.Cards != 200 || rep.Reviews != want || rep.TrainCards+rep.HeldOutCards != 200 || rep.HeldOutCards < 20 {
		t.Errorf("history read: %d cards, %d reviews, %d+%d; want 200 cards, %d reviews", rep.Cards, rep.Reviews, rep.TrainCards, rep.HeldOutCards, want)
	}
	if !rep.Applied || rep.After.LogLoss >= rep.Before.LogLoss || !strings.HasPrefix(rep.Reason, "The fitted weights predict the held-out reviews better") {
		t.Fatalf("not applied: %+v", rep)
	}
	if err := contracts.CheckWeights(rep.Weights); err != nil || !slices.Equal(rep.PreviousWeights, contracts.DefaultWeights) {
		t.Errorf("fitted %v (%v), previous %v", rep.Weights, err, rep.PreviousWeights)
	}
	if done.Progress.Done == 0 || done.Progress.Total == 0 {
		t.Errorf("final progress %+v; want the fit's steps", done.Progress)
	}
	got, err := e.svc.Decks.GetDeck(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Settings.Weights, rep.Weights) || got.Settings.WeightsOptimizedAt == nil || !got.Settings.WeightsOptimizedAt.Equal(t0) {
		t.Errorf("get_deck after the job: weights %v optimised at %v; want %v at %v", got.Settings.Weights, got.Settings.WeightsOptimizedAt, rep.Weights, t0)
	}
	if o, _ := e.svc.Decks.GetDeck(ctx, other.ID); !slices.Equal(o.Settings.Weights, contracts.DefaultWeights) || o.Settings.WeightsOptimizedAt != nil {
		t.Errorf("another preset changed: %v %v", o.Settings.Weights, o.Settings.WeightsOptimizedAt)
	}
	// Saving the same weights keeps the time; other weights clear it.
	if u, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, Weights: rep.Weights, DesiredRetention: ptr(0.85)}); err != nil || u.Settings.WeightsOptimizedAt == nil {
		t.Errorf("saving the optimised weights again: %v, %v; want the time kept", u.Settings.WeightsOptimizedAt, err)
	}
	if u, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, Weights: contracts.DefaultWeights}); err != nil || u.Settings.WeightsOptimizedAt != nil {
		t.Errorf("weights set by hand: optimised at %v, %v; want none", u.Settings.WeightsOptimizedAt, err)
	}

	// The preset can be named by id; another user's is not found.
	if _, err := e.svc.Decks.OptimizeParameters(ctx, contracts.OptimizeParametersArgs{PresetID: got.Settings.PresetID}); err != nil {
		t.Errorf("by presetId: %v", err)
	}
	bob := e.user("bob@example.com")
	e.deck(bob, "Bob's")
	_, err = e.svc.Decks.OptimizeParameters(bob, contracts.OptimizeParametersArgs{PresetID: got.Settings.PresetID})
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Decks.OptimizeParameters(bob, contracts.OptimizeParametersArgs{DeckID: d.ID})
	wantKind(t, err, contracts.KindNotFound)
	// Ada has two presets: one must be named.
	_, err = e.svc.Decks.OptimizeParameters(ctx, contracts.OptimizeParametersArgs{})
	wantKind(t, err, contracts.KindInvalid)
	// Bob has one, and no reviews: a clear result, nothing applied.
	bj, err := e.svc.Decks.OptimizeParameters(bob, contracts.OptimizeParametersArgs{})
	if err != nil {
		t.Fatal(err)
	}
	runner := e.svc.Jobs.Runner(background.RunnerConfig{Owner: "opt", Lease: time.Minute})
	for ran := true; ran; {
		if ran, err = runner.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	bj, _ = e.svc.Jobs.GetJob(bob, bj.ID)
	if br := report(t, bj); br.Applied || br.Cards != 0 || !strings.Contains(br.Reason, "Too few reviews") {
		t.Errorf("no reviews: %+v", br)
	}
}

// A learner with few reviews gets a clear result and keeps the weights; a
// job canceled before it runs changes nothing.
func TestOptimizeParametersTooFew(t *testing.T) { eachStore(t, testOptimizeParametersTooFew) }

func testOptimizeParametersTooFew(t *testing.T, store string) {
	e := newEnvIDs(t, store, fsrs.New(), &countedIDs{}) // the held-out cards are the same every run
	ctx := e.user("ada@example.com")
	d := e.deck(ctx, "Small")
	want := simulatedHistory(t, e, ctx, d, ids(e.add(ctx, d.ID, manyCards("small", 12)...)), 30, 2)
	job, err := e.svc.Decks.OptimizeParameters(ctx, contracts.OptimizeParametersArgs{})
	if err != nil {
		t.Fatal(err)
	}
	rep := report(t, runJob(t, e, ctx, job))
	if rep.Applied || rep.Reviews != want || rep.Weights != nil || !strings.Contains(rep.Reason, "Too few reviews") || !strings.Contains(rep.Reason, "at least 300") {
		t.Errorf("few reviews: %+v", rep)
	}
	job, err = e.svc.Decks.OptimizeParameters(ctx, contracts.OptimizeParametersArgs{DeckID: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := e.svc.Jobs.CancelJob(ctx, job.ID); err != nil || got.Status != contracts.JobCanceled {
		t.Errorf("canceled queued job: %+v, %v", got, err)
	}
	if got, _ := e.svc.Decks.GetDeck(ctx, d.ID); !slices.Equal(got.Settings.Weights, contracts.DefaultWeights) {
		t.Errorf("weights changed: %v", got.Settings.Weights)
	}
}
