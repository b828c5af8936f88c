package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// workers is how many goroutines the concurrency tests run at once.
const workers = 8

// race runs fn in n goroutines released together and returns their errors.
func race(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = fn(i)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// oneWinner fails the test unless exactly one error is nil and every other
// is of kind loser.
func oneWinner(t *testing.T, errs []error, loser contracts.ErrorKind, what string) int {
	t.Helper()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("%s: goroutines %d and %d both succeeded", what, winner, i)
		case err == nil:
			winner = i
		case contracts.KindOf(err) != loser:
			t.Errorf("%s: goroutine %d failed with %v (kind %s), want %s", what, i, err, contracts.KindOf(err), loser)
		}
	}
	if winner < 0 {
		t.Errorf("%s: no goroutine succeeded: %v", what, errs)
	}
	return winner
}

// reviewTx is the review write pattern: complete the item, store the new
// state if the version still matches, append the log.
func (f *fixture) reviewTx(userID, sessionID string, pos int, c ports.CardRow, rating contracts.Rating, at time.Time) error {
	return f.s.InTx(f.ctx, func(tx ports.Stores) error {
		if err := tx.Sessions().CompleteItem(f.ctx, userID, sessionID, pos, at); err != nil {
			return err
		}
		r := f.reviewLog(userID, c, sessionID, rating, at, 1500)
		if err := tx.Cards().UpdateState(f.ctx, userID, c.ID, c.Version, r.State, at); err != nil {
			return err
		}
		return tx.Reviews().AppendReview(f.ctx, r)
	})
}

func testConcurrentReviewsOfOneItem(t *testing.T, f *fixture) {
	a := f.user()
	d := f.deck(a, "Race")
	c := f.insert(a, f.reviewCard(d.ID, "contended", f.now))[0]
	sess := ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: d.ID, StartedAt: f.now, ExpiresAt: f.now.Add(day)}
	must(t, f.s.Sessions().CreateSession(f.ctx, sess, []string{c.ID}))

	errs := race(workers, func(i int) error {
		return f.reviewTx(a, sess.ID, 0, c, contracts.Ratings[i%4], f.now.Add(time.Duration(i)*time.Second))
	})
	oneWinner(t, errs, contracts.KindConflict, "concurrent reviews of one session item")
	f.checkOneReview(t, a, c)
	if r, rem, err := f.s.Sessions().Progress(f.ctx, a, sess.ID); err != nil || r != 1 || rem != 0 {
		t.Errorf("Progress after the race = %d, %d, %v; want 1, 0", r, rem, err)
	}
}

// checkOneReview fails the test unless the card has exactly one review
// logged and its version moved exactly once.
func (f *fixture) checkOneReview(t *testing.T, userID string, c ports.CardRow) {
	t.Helper()
	days, err := f.s.Reviews().ReviewDays(f.ctx, userID, "", f.now.Add(-day))
	must(t, err)
	total := 0
	for _, d := range days {
		total += d.Reviews
	}
	if total != 1 {
		t.Errorf("%d review logs after the race, want exactly 1", total)
	}
	if got := f.get(userID, c.ID); got.Version != c.Version+1 || got.State.Reps != c.State.Reps+1 {
		t.Errorf("card after the race: version %d reps %d, want version %d reps %d", got.Version, got.State.Reps, c.Version+1, c.State.Reps+1)
	}
}

func testConcurrentStateUpdates(t *testing.T, f *fixture) {
	a := f.user()
	d := f.deck(a, "Race")
	c := f.insert(a, f.reviewCard(d.ID, "contended", f.now))[0]
	// One session per goroutine, so only the card's version decides.
	var sessions []string
	for range workers {
		s := ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: d.ID, StartedAt: f.now, ExpiresAt: f.now.Add(day)}
		must(t, f.s.Sessions().CreateSession(f.ctx, s, []string{c.ID}))
		sessions = append(sessions, s.ID)
	}
	errs := race(workers, func(i int) error {
		return f.reviewTx(a, sessions[i], 0, c, contracts.RatingGood, f.now.Add(time.Duration(i)*time.Second))
	})
	winner := oneWinner(t, errs, contracts.KindConflict, "concurrent state updates of one card version")
	f.checkOneReview(t, a, c)
	// The losers' item completions were rolled back with their transactions.
	for i, s := range sessions {
		r, rem, err := f.s.Sessions().Progress(f.ctx, a, s)
		must(t, err)
		if want := map[bool]int{true: 1, false: 0}[i == winner]; r != want || rem != 1-want {
			t.Errorf("session %d: Progress = %d, %d; want %d, %d", i, r, rem, want, 1-want)
		}
	}
}

func testConcurrentClaims(t *testing.T, f *fixture) {
	a := f.user()
	results := make([][]byte, workers)
	fps := make([]string, workers)
	claimed := make([]bool, workers)
	errs := race(workers, func(i int) error {
		return f.s.InTx(f.ctx, func(tx ports.Stores) error {
			fp, res, found, err := tx.Idempotency().ClaimKey(f.ctx, a, "add_cards", "same-key", "fp-"+itoa(i), f.now)
			if err != nil {
				return err
			}
			if found {
				fps[i], results[i] = fp, res
				return nil
			}
			claimed[i] = true
			// The batch itself, then its result.
			if err := tx.Audit().AppendAudit(f.ctx, f.event(a, "add_cards", "key", f.now)); err != nil {
				return err
			}
			return tx.Idempotency().SaveResult(f.ctx, a, "add_cards", "same-key", []byte(`{"winner":`+itoa(i)+`}`))
		})
	})
	winner := -1
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v (kind %s)", i, err, contracts.KindOf(err))
		}
		if claimed[i] {
			if winner >= 0 {
				t.Errorf("goroutines %d and %d both claimed the key", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatal("no goroutine claimed the key")
	}
	for i := range workers {
		if i == winner || errs[i] != nil {
			continue
		}
		if fps[i] != "fp-"+itoa(winner) || !jsonEqual(results[i], []byte(`{"winner":`+itoa(winner)+`}`)) {
			t.Errorf("goroutine %d saw fingerprint %q result %s, want the winner's", i, fps[i], results[i])
		}
	}
	if ev, _ := f.s.Audit().ListAudit(f.ctx, a, contracts.AuditFilter{}, "", 100); len(ev) != 1 {
		t.Errorf("the batch ran %d times, want once", len(ev))
	}
}

func testConcurrentWebSessionDeletes(t *testing.T, f *fixture) {
	a := f.user()
	link := ports.WebSessionRow{Hash: []byte("one-time"), UserID: a, Kind: "login_link", CreatedAt: f.now, ExpiresAt: f.now.Add(time.Hour)}
	must(t, f.s.WebSessions().CreateWebSession(f.ctx, link))
	spent := make([]bool, workers)
	errs := race(workers, func(i int) error {
		var err error
		spent[i], err = f.s.WebSessions().DeleteWebSession(f.ctx, "login_link", link.Hash)
		return err
	})
	n := 0
	for i, err := range errs {
		must(t, err)
		if spent[i] {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d concurrent DeleteWebSession calls reported true, want exactly 1", n)
	}
}

// testConcurrentWriters runs writers in transactions and outside them at
// once: none may fail (an embedded database must queue, not report busy).
func testConcurrentWriters(t *testing.T, f *fixture) {
	a := f.user()
	key := ports.APIKeyRow{UserID: a, Hash: []byte("h"), APIKeyView: contracts.APIKeyView{ID: f.id("key"), Name: "k", Hint: "hhhhhh", CreatedAt: f.now}}
	must(t, f.s.Keys().CreateKey(f.ctx, key))
	const rounds, perDeck = 6, 25
	errs := race(workers, func(i int) error {
		for r := range rounds {
			d := contracts.Deck{ID: f.id("dck"), Name: "w" + itoa(i) + "-" + itoa(r), Settings: contracts.DefaultDeckSettings(), CreatedAt: f.now, UpdatedAt: f.now}
			var cards []ports.CardRow
			for k := range perDeck {
				cards = append(cards, f.card(d.ID, "card "+itoa(k), "x"))
			}
			err := f.s.InTx(f.ctx, func(tx ports.Stores) error {
				if err := tx.Decks().CreateDeck(f.ctx, a, d); err != nil {
					return err
				}
				if err := tx.Cards().InsertCards(f.ctx, a, cards); err != nil {
					return err
				}
				return tx.Audit().AppendAudit(f.ctx, f.event(a, "add_cards", key.ID, f.now))
			})
			if err != nil {
				return err
			}
			if err := f.s.Keys().TouchKey(f.ctx, key.ID, f.now.Add(time.Duration(r)*time.Second)); err != nil {
				return err
			}
			if err := f.s.Audit().AppendAudit(f.ctx, f.event(a, "touch", key.ID, f.now)); err != nil {
				return err
			}
		}
		return nil
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v (kind %s)", i, err, contracts.KindOf(err))
		}
	}
	pc, err := f.s.Cards().CountPhases(f.ctx, a, "")
	must(t, err)
	if pc.New != workers*rounds*perDeck {
		t.Errorf("%d cards stored, want %d", pc.New, workers*rounds*perDeck)
	}
	ev, err := f.s.Audit().ListAudit(f.ctx, a, contracts.AuditFilter{}, "", 1000)
	must(t, err)
	if len(ev) != 2*workers*rounds {
		t.Errorf("%d audit events stored, want %d", len(ev), 2*workers*rounds)
	}
}
