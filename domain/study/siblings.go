package study

import (
	"context"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// Sibling burying (issue 27). The cards of one note give each other's
// answers away, so once one of them is studied in a learner's day, the
// others of the kinds the preset buries (new, review, interday learning)
// wait for the next day. Whether a card is buried is decided when it is
// about to be served, since sessions build their queues at start and
// several can be open: a session's queue leaves out the siblings of the
// cards studied today and of the cards it serves first, and a card about
// to be shown whose sibling was studied meanwhile (in another session)
// is buried until the next learner's day and skipped, using no slot of
// the daily limits.

// siblingGate decides which cards of a day's queue a note's earlier
// cards bury.
type siblingGate struct {
	opts contracts.StudyOptions // with defaults
	day  contracts.LearnerDay
	// claimed holds, by note, the cards studied today or queued first.
	claimed map[string][]string
	// loaded holds the notes whose cards studied today were read.
	loaded map[string]bool
	now    time.Time
}

// newSiblingGate returns a gate for the deck's options at now.
func newSiblingGate(set contracts.DeckSettings, day contracts.LearnerDay, now time.Time) *siblingGate {
	return &siblingGate{opts: set.StudyOptions.WithDefaults(), day: day, now: now, claimed: map[string][]string{}, loaded: map[string]bool{}}
}

// unburiedToday reports whether the learner unburied c today (unbury
// ends a burial at its time): it is served whatever its siblings.
func (g *siblingGate) unburiedToday(c ports.CardRow) bool {
	b := c.BuriedUntil
	return b != nil && !b.After(g.now) && b.After(g.day.Start(g.now))
}

// load reads which cards of the notes of cards, not read before, were
// studied since the start of the learner's day.
func (g *siblingGate) load(ctx context.Context, st ports.Stores, uid string, cards ...[]ports.CardRow) error {
	if !g.buriesAny() {
		return nil
	}
	var notes []string
	for _, n := range noteIDs(cards...) {
		if !g.loaded[n] {
			g.loaded[n] = true
			notes = append(notes, n)
		}
	}
	if len(notes) == 0 {
		return nil
	}
	studied, err := st.Reviews().StudiedSiblings(ctx, uid, notes, g.day.Start(g.now))
	if err != nil {
		return kernel.Fail(err)
	}
	for n, ids := range studied {
		g.claimed[n] = append(g.claimed[n], ids...)
	}
	return nil
}

// clone returns a copy of the gate that admits cards on its own.
func (g *siblingGate) clone() *siblingGate {
	c := *g
	c.claimed = make(map[string][]string, len(g.claimed))
	for n, ids := range g.claimed {
		c.claimed[n] = slices.Clone(ids)
	}
	return &c
}

// buriesAny reports whether the options bury any kind of card.
func (g *siblingGate) buriesAny() bool {
	return *g.opts.BuryNew || *g.opts.BuryReviews || *g.opts.BuryInterday
}

// buries reports whether the options bury a card like c when a sibling
// was studied: new and review cards as the options say, learning cards
// only when their step ends on a later learner's day than it began
// (interday learning; an intraday step is never buried, as in Anki).
func (g *siblingGate) buries(c ports.CardRow) bool {
	switch c.State.Phase {
	case contracts.PhaseNew:
		return *g.opts.BuryNew
	case contracts.PhaseReview:
		return *g.opts.BuryReviews
	}
	return *g.opts.BuryInterday && interday(c.State, g.day)
}

// interday reports whether a learning or relearning step ends on a later
// learner's day than the review that set it.
func interday(st contracts.CardState, day contracts.LearnerDay) bool {
	return st.LastReview != nil && day.Date(st.Due).After(day.Date(*st.LastReview))
}

// sibling reports whether a card of c's note other than c was studied
// today or admitted before it.
func (g *siblingGate) sibling(c ports.CardRow) bool {
	for _, id := range g.claimed[c.NoteID] {
		if id != c.ID {
			return true
		}
	}
	return false
}

// admit reports whether c may join today's queue: not when the options
// bury its kind and a sibling came first. An admitted card claims its
// note.
func (g *siblingGate) admit(c ports.CardRow) bool {
	if c.NoteID == "" {
		return true
	}
	if g.buries(c) && g.sibling(c) && !g.unburiedToday(c) {
		return false
	}
	g.claimed[c.NoteID] = append(g.claimed[c.NoteID], c.ID)
	return true
}

// filter returns the cards of list it admits, in order, at most limit
// (no bound when limit < 0).
func (g *siblingGate) filter(list []ports.CardRow, limit int) []ports.CardRow {
	out := make([]ports.CardRow, 0, len(list))
	for _, c := range list {
		if limit >= 0 && len(out) >= limit {
			break
		}
		if g.admit(c) {
			out = append(out, c)
		}
	}
	return out
}

// noteIDs returns the notes of the cards of the lists, each once.
func noteIDs(lists ...[]ports.CardRow) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, c := range l {
			if c.NoteID != "" && !seen[c.NoteID] {
				seen[c.NoteID] = true
				out = append(out, c.NoteID)
			}
		}
	}
	return out
}

// buryIfSibling buries card, about to be served in a normal session,
// until the next learner's day when its options bury its kind and
// another card of its note was studied today; it reports whether it did.
// Under an operation (a review serving its next card, a session's
// start) the burial is recorded with it: undoing the operation, as
// undo_changes does a review's, unburies the card.
func buryIfSibling(ctx context.Context, st ports.Stores, d *kernel.Deps, uid string, card ports.CardRow, set contracts.DeckSettings,
	day contracts.LearnerDay, now time.Time) (bool, error) {
	g := newSiblingGate(set, day, now)
	if card.NoteID == "" || !g.buries(card) || g.unburiedToday(card) {
		return false, nil
	}
	if err := g.load(ctx, st, uid, []ports.CardRow{card}); err != nil || !g.sibling(card) {
		return false, err
	}
	until := day.Next(now)
	if _, err := st.Cards().BuryCards(ctx, uid, []string{card.ID}, until); err != nil {
		return false, kernel.Fail(err)
	}
	if _, ok := contracts.OperationIDFrom(ctx); ok {
		var ch kernel.Changes // card.BuriedUntil is none or past: it was served
		AddBurial(&ch, card.ID, card.BuriedUntil, &until)
		return true, ch.Write(ctx, st, d)
	}
	return true, nil
}
