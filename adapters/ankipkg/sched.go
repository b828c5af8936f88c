package ankipkg

import (
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

// card checks and maps one card row with its scheduling state: type →
// phase, due from a position, an epoch second or a day number since crt,
// FSRS memory state from the data column (or its last rating, from last,
// the card's reviews), suspension from the queue. A card in a filtered
// deck belongs to its original deck (odid, odue).
func (c *collection) card(x cardRow, last map[int64]time.Time) (ports.AnkiCard, error) {
	k := ports.AnkiCard{Key: x.key, NoteKey: x.nid, DeckKey: x.did, Ord: int(clamp64(x.ord, -1, 1001))}
	due := x.due
	if x.odid != 0 {
		k.DeckKey = x.odid
		if x.odue != 0 {
			due = x.odue
		}
	}
	if !c.decks[k.DeckKey] {
		if !c.decks[defaultDeckKey] {
			return k, invalid(nil, "card %d names deck %d, which the package lacks", k.Key, k.DeckKey)
		}
		k.DeckKey = defaultDeckKey // where Anki puts a card whose deck is gone
	}
	if x.ord < 0 || x.ord > 1000 {
		return k, invalid(nil, "card %d has template number %d", k.Key, x.ord)
	}
	if x.dataLen > int64(c.lim.FieldBytes) {
		return k, invalid(nil, "card %d has %s of data; the limit is %s", k.Key, size(x.dataLen), size(c.lim.FieldBytes))
	}
	k.Modified = time.Unix(clamp64(x.mod, 0, epochFloor*100), 0).UTC()
	k.Suspended = x.queue == -1
	k.State = c.cardState(k, x.typ, due, x.ivl, x.reps, x.lapses, x.left, x.data, last)
	if k.State.Phase == contracts.PhaseNew {
		k.Position = int(clamp64(due, 0, math.MaxInt32))
	}
	return k, nil
}

// memoryState is the FSRS part of a card's data column.
type memoryState struct {
	S   *float64 `json:"s"`
	D   *float64 `json:"d"`
	LRT *int64   `json:"lrt"` // last review, epoch seconds (Anki 25.02+)
}

// cardState is a card's scheduling state from its columns.
func (c *collection) cardState(k ports.AnkiCard, typ, due, ivl, reps, lapses, left int64, data string, last map[int64]time.Time) contracts.CardState {
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
		if t, ok := last[k.Key]; ok {
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
// back onto an FSRS difficulty 10–1. 2500, Anki's starting ease (and the
// writer's for an unknown difficulty), says nothing.
func difficultyOf(fac int64) float64 {
	if fac < 1300 || fac > 3000 || fac == 2500 {
		return 0
	}
	return round(10-float64(fac-1300)*9/1700, 2)
}
