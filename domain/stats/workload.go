package stats

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/study"
	"github.com/takhtabush/takhtabush/ports"
)

// workload is what the study plan simulates: one input per deck, each
// under the deck's own preset and daily limits. The account's workload is
// the sum of its decks' simulations.
type workload struct {
	decks   []SimInput
	acctNew int // the account-wide new-card cap, or a deck tree's deck's when lower; 0 when none
	day     contracts.LearnerDay
	// userID, sums (the hash of each deck's cards, cardsSum) and sims
	// remember each deck's simulations; with a nil sims nothing is.
	userID string
	sums   []uint64
	sims   *simCache
}

// workload gathers the simulation inputs of a deck, or of every deck of
// the user when deckID is "".
func (s *StatsService) workload(ctx context.Context, uid, deckID string, now time.Time) (workload, error) {
	acct, day, err := kernel.AccountSettings(ctx, s.Store, uid)
	if err != nil {
		return workload{}, err
	}
	w := workload{acctNew: acct.NewCardsPerDay, day: day, userID: uid, sims: s.sims}
	if deckID != "" {
		// The deck with the decks below it (a session of it studies
		// them): each deck simulated under its own settings, and the
		// deck's new-card limit over all of them, as an account cap is.
		tree, err := study.DeckTree(ctx, s.Store, uid, deckID)
		if err != nil {
			return workload{}, err
		}
		var byDeck map[string][]contracts.CardState
		if len(tree) > 1 {
			if byDeck, err = s.Store.Cards().ScheduledStatesByDeck(ctx, uid); err != nil {
				return workload{}, kernel.Fail(err)
			}
			if root := tree[0].Settings.NewCardsPerDay; w.acctNew <= 0 || root < w.acctNew {
				w.acctNew = root
			}
		}
		for _, d := range tree {
			states := byDeck[d.ID]
			if byDeck == nil {
				if states, err = s.Store.Cards().ScheduledStates(ctx, uid, d.ID); err != nil {
					return workload{}, kernel.Fail(err)
				}
			}
			phases, err := s.Store.Cards().CountPhases(ctx, uid, d.ID)
			if err != nil {
				return workload{}, kernel.Fail(err)
			}
			in := simInput(d, states, phases.New, acct, day, now)
			if len(tree) > 1 && tree[0].Settings.NewCardsPerDay <= 0 {
				in.NewPerDay = 0 // the deck's limit of 0 holds below it
			}
			w.add(in)
		}
		return w, nil
	}
	decks, err := study.AllDecks(ctx, s.Store, uid, now) // with their counts of new cards
	if err != nil {
		return workload{}, err
	}
	states, err := s.Store.Cards().ScheduledStatesByDeck(ctx, uid)
	if err != nil {
		return workload{}, kernel.Fail(err)
	}
	own := study.OwnNewCards(decks) // a deck's counts hold the decks below it
	for _, d := range decks {
		w.add(simInput(d, states[d.ID], own[d.ID], acct, day, now))
	}
	return w, nil
}

// add adds a deck's simulation input.
func (w *workload) add(in SimInput) {
	w.decks = append(w.decks, in)
	if w.sims != nil {
		w.sums = append(w.sums, cardsSum(in.Cards))
	}
}

// newCards is the number of new cards waiting in the decks.
func (w workload) newCards() int {
	n := 0
	for _, in := range w.decks {
		n += in.NewCards
	}
	return n
}

// mostNew is the most new cards a day the decks (and the account-wide cap)
// allow.
func (w workload) mostNew() int {
	n := 0
	for _, in := range w.decks {
		n += in.NewPerDay
	}
	if w.acctNew > 0 {
		n = min(n, w.acctNew)
	}
	return n
}

// split shares n new cards a day among the decks: one to each deck in
// turn, in deck order, each up to what it allows.
func (w workload) split(n int) []int {
	out := make([]int, len(w.decks))
	for n > 0 {
		gave := false
		for i, in := range w.decks {
			if n > 0 && out[i] < in.NewPerDay {
				out[i]++
				n--
				gave = true
			}
		}
		if !gave {
			break
		}
	}
	return out
}

// simulate simulates every deck for days with n new cards a day split
// among them, and sums the days. The budget is shared in proportion to
// each deck's cost, so every deck gets about the same number of runs
// (coarseBudget rounds the shares, so that they stay put when another
// deck changes a little). A deck simulated with the same input before is
// not simulated again (simCache).
func (w workload) simulate(n, days, budget int, sched ports.Scheduler) ([]SimDay, error) {
	alloc := w.split(n)
	ins := make([]SimInput, len(w.decks))
	total := 0
	for i, in := range w.decks {
		in.NewPerDay, in.Days = alloc[i], days
		ins[i] = in
		total += simCost(in, 1)
	}
	out := make([]SimDay, days)
	for i, in := range ins {
		in.Budget = coarseBudget(budget * simCost(in, 1) / max(total, 1))
		var sum uint64
		if w.sims != nil {
			sum = w.sums[i]
		}
		sim, err := w.sims.simulate(w.userID, sum, in, sched)
		if err != nil {
			return nil, err
		}
		for d, v := range sim {
			out[d].Reviews += v.Reviews
			out[d].Due += v.Due
			out[d].Lapses += v.Lapses
			out[d].New += v.New
			out[d].Relearning += v.Relearning
		}
	}
	return out, nil
}
