package domain_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/ports"
)

// reviewProbe is another writer beside an import: it submits reviews as
// a user of its own, one after another, until stopped, and keeps when
// each ended and the longest one took.
type reviewProbe struct {
	mu      sync.Mutex
	ends    []time.Time
	longest time.Duration
	err     error
	stop    chan struct{}
	done    chan struct{}
}

// startProbe adds cards new cards to a deck of a new user and starts the
// probe on them, pausing pause between reviews.
func (e *env) startProbe(cards int, pause time.Duration) *reviewProbe {
	e.t.Helper()
	ctx := e.user("probe@example.com")
	d, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "probe", NewCardsPerDay: ptr(contracts.MaxSessionNewCards)})
	if err != nil {
		e.t.Fatal(err)
	}
	for i := 0; i < cards; i += contracts.MaxBulkItems {
		batch := make([]contracts.NewCard, min(contracts.MaxBulkItems, cards-i))
		for j := range batch {
			batch[j] = card("probe "+strconv.Itoa(i+j), "back")
		}
		e.add(ctx, d.ID, batch...)
	}
	p := &reviewProbe{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		var next *contracts.StudyCard
		var sessionID string
		for {
			select {
			case <-p.stop:
				return
			default:
			}
			if next == nil { // a new day and session: the deck's new cards are allowed again
				// Once every card was rated (a slow import outlasts 600
				// ratings), the days go on until reviews fall due.
				var s contracts.StudySession
				var err error
				for day := 0; day < 3650 && (err == nil && s.Current == nil); day++ {
					e.clock.Advance(24 * time.Hour)
					s, err = e.svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: d.ID, NewLimit: ptr(contracts.MaxSessionNewCards)})
				}
				if err != nil || s.Current == nil {
					p.fail(fmt.Errorf("probe session: %v (nothing to study: %v)", err, s.Current == nil))
					return
				}
				sessionID, next = s.ID, s.Current
			}
			start := time.Now()
			r, err := e.svc.Study.SubmitReview(ctx, contracts.SubmitReviewArgs{SessionID: sessionID, CardID: next.CardID, Rating: contracts.RatingEasy, DurationMs: 2000})
			if err != nil {
				p.fail(fmt.Errorf("probe review: %w", err))
				return
			}
			p.mu.Lock()
			p.ends = append(p.ends, time.Now())
			p.longest = max(p.longest, time.Since(start))
			p.mu.Unlock()
			next = r.Next
			time.Sleep(pause)
		}
	}()
	return p
}

func (p *reviewProbe) fail(err error) {
	p.mu.Lock()
	p.err = err
	p.mu.Unlock()
}

// finish stops the probe and returns the longest review, how many reviews
// ended inside [from, to], and the error that stopped it early.
func (p *reviewProbe) finish(from, to time.Time) (longest time.Duration, inside int, err error) {
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, at := range p.ends {
		if !at.Before(from) && !at.After(to) {
			inside++
		}
	}
	return p.longest, inside, p.err
}

// phases records when an import's progress messages first came.
type phases struct {
	mu sync.Mutex
	at map[string]time.Time
	on map[string]func()
}

func newPhases() *phases { return &phases{at: map[string]time.Time{}, on: map[string]func(){}} }

func (ph *phases) progress(_, _ int64, msg string) {
	ph.mu.Lock()
	_, seen := ph.at[msg]
	if !seen {
		ph.at[msg] = time.Now()
	}
	f := ph.on[msg]
	ph.mu.Unlock()
	if !seen && f != nil {
		f()
	}
}

func (ph *phases) when(msg string) time.Time {
	ph.mu.Lock()
	defer ph.mu.Unlock()
	return ph.at[msg]
}

// importedCounts counts what of an import a reader sees: the user's
// cards (by their decks' counts), reviews (all time) and the notes with
// the package's GUIDs (from a sample when the package has more than 500;
// pass packages whose note count is a multiple of the sample's step).
func (e *env) importedCounts(ctx context.Context, pkg ports.AnkiPackage) (cards, reviews, notes int, err error) {
	p, _ := contracts.PrincipalFrom(ctx)
	uid := p.UserID
	decks, err := e.store.Decks().ListDecks(ctx, uid, "", 1000, e.clock.Now())
	if err != nil {
		return 0, 0, 0, err
	}
	names := map[string]bool{}
	for _, d := range decks {
		names[d.Name] = true
	}
	for _, d := range decks {
		// A deck's counts hold the decks below it: count the decks below
		// no other.
		if i := strings.LastIndex(d.Name, contracts.DeckSeparator); i < 0 || !names[d.Name[:i]] {
			cards += d.Counts.Total
		}
	}
	days, err := e.store.Reviews().ReviewDays(ctx, uid, "", time.Unix(0, 0))
	if err != nil {
		return 0, 0, 0, err
	}
	for _, d := range days {
		reviews += d.Reviews
	}
	// Notes are read in one query (one snapshot): a sample of the
	// package's notes spread over all of it, scaled up.
	step := max(1, len(pkg.Notes)/500)
	var ids []string
	for i := 0; i < len(pkg.Notes); i += step {
		sum := sha256.Sum256([]byte(uid + "\x00" + pkg.Notes[i].GUID))
		ids = append(ids, "n"+hex.EncodeToString(sum[:16])) // as the importer names imported notes
	}
	rows, err := e.store.Notes().GetNotes(ctx, uid, ids[:min(len(ids), 500)])
	return cards, reviews, len(rows) * step, err
}

// stagesLeft returns the import stages not dropped yet.
func (e *env) stagesLeft(t *testing.T) []string {
	t.Helper()
	ids, err := e.store.ImportStages().StagesToDrop(context.Background(), "", e.clock.Now().Add(1000*time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestImportStaged checks issue 13 §6: an import stages its rows in
// short transactions and publishes them in one, so another user's
// reviews go on while it stages (and on Postgres while it publishes), a
// reader sees none of the import or all of it, and the staged rows are
// dropped afterwards.
func TestImportStaged(t *testing.T) { eachStore(t, testImportStaged) }

func testImportStaged(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	const notes, reviews = 3000, 12000
	pkg := benchPackage(notes, reviews, 0, 0)
	probe := e.startProbe(600, 2*time.Millisecond)

	stop := make(chan struct{})
	var readerErr error
	var reads, partial int
	readerDone := make(chan struct{})
	go func() { // a reader never sees part of the import
		defer close(readerDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			c, r, n, err := e.importedCounts(ctx, pkg)
			if err != nil {
				readerErr = err
				return
			}
			reads++
			if (c != 0 && c != notes) || (r != 0 && r != reviews) || (n != 0 && n != notes) {
				partial++
				readerErr = fmt.Errorf("a reader saw %d cards, %d reviews and %d notes of the import", c, r, n)
			}
		}
	}()

	ph := newPhases()
	rep, err := e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{Progress: ph.progress})
	close(stop)
	<-readerDone
	longest, during, perr := probe.finish(ph.when("staging notes and cards"), ph.when("publishing"))
	if err != nil {
		t.Fatal(err)
	}
	if perr != nil {
		t.Fatal(perr)
	}
	if readerErr != nil {
		t.Fatalf("%v (%d of %d reads)", readerErr, partial, reads)
	}
	if rep.NotesCreated != notes || rep.CardsCreated != notes || rep.Reviews != reviews {
		t.Fatalf("report %+v", rep)
	}
	c, r, n, err := e.importedCounts(ctx, pkg)
	if err != nil || c != notes || r != reviews || n != notes {
		t.Fatalf("after the import: %d cards, %d reviews, %d notes (%v)", c, r, n, err)
	}
	staging := ph.when("publishing").Sub(ph.when("staging notes and cards"))
	publish := ph.when("published").Sub(ph.when("publishing"))
	t.Logf("%s: staging %v, publishing %v; the probe's longest review %v, %d reviews while staging; %d reads",
		store, staging.Round(time.Millisecond), publish.Round(time.Millisecond), longest.Round(time.Millisecond), during, reads)
	if during == 0 {
		t.Fatalf("no review of another user ended while the import staged for %v", staging)
	}
	// On Postgres the publishing transaction holds no lock another user's
	// review needs; on SQLite (one writer at a time) that review waits at
	// most for it, never for the staging.
	if bound := publish + 2*time.Second; store == onSQLite && longest > bound {
		t.Fatalf("another user's review waited %v beside the import, more than the publishing transaction (%v)", longest, publish)
	}
	if store == onPostgres && longest > 5*time.Second {
		t.Fatalf("another user's review waited %v beside the import (publishing took %v)", longest, publish)
	}
	if left := e.stagesLeft(t); len(left) != 0 {
		t.Fatalf("stages left after the import: %v", left)
	}
}

// TestImportFailureLeavesNothing fails imports mid-way (canceled while
// staging; a deck taken before publishing) and checks that nothing of
// them is visible and their staged rows are gone; then the purge drops
// the stage of an import that died, and a job's next attempt the stage
// of its earlier one.
func TestImportFailureLeavesNothing(t *testing.T) { eachStore(t, testImportFailureLeavesNothing) }

func testImportFailureLeavesNothing(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	p, _ := contracts.PrincipalFrom(ctx)
	uid := p.UserID
	pkg := benchPackage(1500, 6000, 0, 0)
	nothing := func(when string) {
		t.Helper()
		c, r, n, err := e.importedCounts(ctx, pkg)
		if err != nil || c != 0 || r != 0 || n != 0 {
			t.Fatalf("%s: %d cards, %d reviews, %d notes visible (%v)", when, c, r, n, err)
		}
		if left := e.stagesLeft(t); len(left) != 0 {
			t.Fatalf("%s: stages left: %v", when, left)
		}
	}

	cctx, cancel := context.WithCancel(ctx)
	ph := newPhases()
	ph.on["staging the review log"] = cancel
	_, err := e.svc.Import.Apply(cctx, sourceOf(pkg), exchange.ImportOptions{Progress: ph.progress})
	if err == nil {
		t.Fatal("a canceled import succeeded")
	}
	nothing("canceled while staging")

	ph = newPhases()
	ph.on["publishing"] = func() { e.deck(ctx, "Big") }
	_, err = e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{Progress: ph.progress})
	wantKind(t, err, contracts.KindConflict)
	nothing("failed while publishing")

	// An import that died left a stage: the purge drops it once untouched
	// for an hour, and a job's next attempt drops its earlier attempts'.
	st := e.store.ImportStages()
	for i, jobID := range []string{"", "job-1"} {
		id := "stage-" + strconv.Itoa(i)
		if err := st.CreateStage(ctx, ports.ImportStage{ID: id, UserID: uid, JobID: jobID}, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		row := ports.CardRow{Hash: "h" + id, Version: 1, Card: contracts.Card{ID: "c" + id, DeckID: "nowhere", Front: "f", Back: "b",
			State: contracts.CardState{Phase: contracts.PhaseNew, Due: t0}, CreatedAt: t0, UpdatedAt: t0}}
		if err := st.StageCards(ctx, uid, id, []ports.CardRow{row}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := e.svc.Import.PurgeStages(ctx, 100); err != nil || n != 0 {
		t.Fatalf("purge of live stages: %d, %v", n, err)
	}
	e.clock.Advance(2 * time.Hour)
	_, err = e.svc.Import.Apply(ctx, sourceOf(pkg), exchange.ImportOptions{JobID: "job-1", Progress: func(_, _ int64, msg string) {
		if msg == "staging notes and cards" {
			if ids, _ := st.StagesToDrop(ctx, "job-1", time.Time{}, 10); len(ids) != 1 {
				t.Errorf("stages of job-1 while its next attempt stages: %v, want its own only", ids)
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := e.svc.Import.PurgeStages(ctx, 100); err != nil || n != 1 {
		t.Fatalf("purge of a stage untouched for two hours: %d, %v", n, err)
	}
	if left := e.stagesLeft(t); len(left) != 0 {
		t.Fatalf("stages left: %v", left)
	}
}
