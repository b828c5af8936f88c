package ankipkg

import (
	"context"
	"encoding/json"
	"math"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// epochFloor tells an epoch second (a learning card's due) from a day
// number: no collection is 2.7 million years old.
const epochFloor = 1_000_000_000

// maxDays bounds day numbers and intervals read from a package (a
// hostile one could name a year outside time.Time's range).
const maxDays = 100 * 366

// readCards reads every card with its scheduling state: type → phase,
// due from a position, an epoch second or a day number since crt,
// FSRS memory state from the data column, suspension from the queue.
// A card in a filtered deck belongs to its original deck (odid, odue).
func (c *collection) readCards(ctx context.Context) error {
	rows, err := c.db.QueryContext(ctx, `SELECT id, nid, did, ord, mod, type, queue, due, ivl, reps, lapses, left, odue, odid, data FROM cards ORDER BY id`)
	if err != nil {
		return invalid(err, "its collection has no cards table")
	}
	defer rows.Close()
	notes := make(map[int64]bool, len(c.pkg.Notes))
	for _, n := range c.pkg.Notes {
		notes[n.Key] = true
	}
	for rows.Next() {
		var k ports.AnkiCard
		var mod, typ, queue, due, ivl, reps, lapses, left, odue, odid int64
		var data string
		if err := rows.Scan(&k.Key, &k.NoteKey, &k.DeckKey, &k.Ord, &mod, &typ, &queue, &due, &ivl, &reps, &lapses, &left, &odue, &odid, &data); err != nil {
			return invalid(err, "a card row is damaged")
		}
		if odid != 0 {
			k.DeckKey = odid
			if odue != 0 {
				due = odue
			}
		}
		if !notes[k.NoteKey] {
			return invalid(nil, "card %d names note %d, which the package lacks", k.Key, k.NoteKey)
		}
		if !c.decks[k.DeckKey] {
			if !c.decks[defaultDeckKey] {
				return invalid(nil, "card %d names deck %d, which the package lacks", k.Key, k.DeckKey)
			}
			k.DeckKey = defaultDeckKey // where Anki puts a card whose deck is gone
		}
		if k.Ord < 0 || k.Ord > 1000 {
			return invalid(nil, "card %d has template number %d", k.Key, k.Ord)
		}
		if len(data) > c.lim.FieldBytes {
			return invalid(nil, "card %d has %s of data; the limit is %s", k.Key, size(len(data)), size(c.lim.FieldBytes))
		}
		k.Modified = time.Unix(clamp64(mod, 0, epochFloor*100), 0).UTC()
		k.Suspended = queue == -1
		k.State = c.cardState(k, typ, due, ivl, reps, lapses, left, data)
		if k.State.Phase == contracts.PhaseNew {
			k.Position = int(clamp64(due, 0, math.MaxInt32))
		}
		c.pkg.Cards = append(c.pkg.Cards, k)
	}
	if err := rows.Err(); err != nil {
		return invalid(err, "the cards table is damaged")
	}
	return nil
}

// memoryState is the FSRS part of a card's data column.
type memoryState struct {
	S   *float64 `json:"s"`
	D   *float64 `json:"d"`
	LRT *int64   `json:"lrt"` // last review, epoch seconds (Anki 25.02+)
}

// cardState is a card's scheduling state from its columns.
func (c *collection) cardState(k ports.AnkiCard, typ, due, ivl, reps, lapses, left int64, data string) contracts.CardState {
	st := contracts.CardState{Reps: clampInt(reps, 0, math.MaxInt32), Lapses: clampInt(lapses, 0, math.MaxInt32)}
	switch typ {
	case 1:
		st.Phase = contracts.PhaseLearning
	case 2:
		st.Phase = contracts.PhaseReview
	case 3:
		st.Phase = contracts.PhaseRelearning
	default:
		return contracts.CardState{Phase: contracts.PhaseNew}
	}
	if st.Phase != contracts.PhaseLearning {
		st.ScheduledDays = clampInt(ivl, 0, maxDays)
	}
	if st.Phase == contracts.PhaseReview || due < epochFloor {
		st.Due = c.day(due)
	} else {
		st.Due = time.Unix(due, 0).UTC()
	}
	if st.Phase != contracts.PhaseReview {
		s := c.steps[k.DeckKey][0]
		if st.Phase == contracts.PhaseRelearning {
			s = c.steps[k.DeckKey][1]
		}
		st.Step = clampInt(int64(len(s))-left%1000, 0, int64(len(s)))
	}
	var m memoryState
	if data != "" && json.Unmarshal([]byte(data), &m) == nil {
		if m.S != nil && *m.S > 0 && *m.S < 1e9 {
			st.Stability = *m.S
		}
		if m.D != nil && *m.D >= 1 && *m.D <= 10 {
			st.Difficulty = *m.D
		}
		if m.LRT != nil && *m.LRT > 0 && *m.LRT < epochFloor*100 {
			t := time.Unix(*m.LRT, 0).UTC()
			st.LastReview = &t
		}
	}
	if st.LastReview == nil {
		if t, ok := c.last[k.Key]; ok {
			st.LastReview = &t
		}
	}
	return st
}

// day is the start of day n of the collection (days since crt).
func (c *collection) day(n int64) time.Time {
	return c.crt.Add(time.Duration(clamp64(n, -maxDays, maxDays)) * 24 * time.Hour)
}

func clamp64(v, lo, hi int64) int64 { return min(max(v, lo), hi) }

// readRevlog reads the review log: ease → rating, type → kind and the
// phase before, ivl → the state after (days, or negative seconds for a
// learning step).
func (c *collection) readRevlog(ctx context.Context) error {
	rows, err := c.db.QueryContext(ctx, `SELECT id, cid, ease, ivl, lastIvl, factor, time, type FROM revlog ORDER BY id`)
	if err != nil {
		return invalid(err, "its collection has no revlog table")
	}
	defer rows.Close()
	seen := map[int64]bool{}
	for rows.Next() {
		var id, cid, ease, ivl, lastIvl, fac, took, typ int64
		if err := rows.Scan(&id, &cid, &ease, &ivl, &lastIvl, &fac, &took, &typ); err != nil {
			return invalid(err, "a review-log row is damaged")
		}
		r := reviewOf(id, cid, ease, ivl, lastIvl, fac, took, typ, !seen[cid])
		seen[cid] = true
		if r.Kind != ports.ReviewKindManual && r.State.LastReview != nil {
			c.last[cid] = *r.State.LastReview
		}
		c.pkg.Reviews = append(c.pkg.Reviews, r)
	}
	if err := rows.Err(); err != nil {
		return invalid(err, "the revlog table is damaged")
	}
	return nil
}

var ratings = [...]contracts.Rating{"", contracts.RatingAgain, contracts.RatingHard, contracts.RatingGood, contracts.RatingEasy}

// reviewOf maps one revlog row. Types: 0 learn, 1 review, 2 relearn,
// 3 filtered (cram), 4 manual, 5 rescheduled; ease 1–4, 0 for manual.
func reviewOf(id, cid, ease, ivl, lastIvl, fac, took, typ int64, first bool) ports.AnkiReview {
	at := time.UnixMilli(clamp64(id, 0, epochFloor*100_000)).UTC()
	r := ports.AnkiReview{Key: id, CardKey: cid, DurationMs: clampInt(took, 0, math.MaxInt32), PrevInterval: clampInt(lastIvl, 0, maxDays)}
	earlier := contracts.PhaseLearning
	if first {
		earlier = contracts.PhaseNew
	}
	switch typ {
	case 0:
		r.PrevPhase = earlier
	case 1:
		r.PrevPhase = contracts.PhaseReview
	case 2:
		r.PrevPhase = contracts.PhaseRelearning
	default:
		r.PrevPhase = earlier
		if lastIvl > 0 {
			r.PrevPhase = contracts.PhaseReview
		}
	}
	if typ >= 4 || ease < 1 || ease > 4 {
		r.Kind, r.Rating = ports.ReviewKindManual, "manual"
		r.State.Phase = contracts.PhaseNew
		if ivl > 0 {
			r.State.Phase, r.State.ScheduledDays = contracts.PhaseReview, clampInt(ivl, 0, maxDays)
		}
		return r
	}
	r.Rating = ratings[ease]
	if typ == 3 {
		r.Kind = ports.ReviewKindCram
	}
	r.State.LastReview = &at
	r.State.Difficulty = difficultyOf(fac)
	switch {
	case ivl > 0:
		r.State.Phase = contracts.PhaseReview
		r.State.ScheduledDays = clampInt(ivl, 0, maxDays)
		r.State.Due = at.Add(time.Duration(r.State.ScheduledDays) * 24 * time.Hour)
	default:
		r.State.Phase = contracts.PhaseLearning
		if r.PrevPhase == contracts.PhaseRelearning || (r.PrevPhase == contracts.PhaseReview && r.Rating == contracts.RatingAgain) {
			r.State.Phase = contracts.PhaseRelearning
		}
		r.State.Due = at.Add(time.Duration(clamp64(-ivl, 0, maxDays*86400)) * time.Second)
	}
	return r
}

// difficultyOf inverts the writer's factor: the ease (permille) 1300–3000
// back onto an FSRS difficulty 10–1.
func difficultyOf(fac int64) float64 {
	if fac < 1300 || fac > 3000 {
		return 0
	}
	return round(10-float64(fac-1300)*9/1700, 2)
}
