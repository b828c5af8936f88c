// Package fsrsopt fits the FSRS-6 weights to one learner's review history
// and scores weights against it. It is pure: no storage, no clock; the
// caller hands it each card's reviews, with the days counted in the
// learner's days as the scheduler (domain/fsrs) counts them.
//
// The model is the scheduler's (go-fsrs v4, FSRS-6 with short-term
// stability): a card's first rating sets its initial stability
// (max(w[rating-1], 0.1)) and difficulty; each later review moves them,
// with the same-day formula (w17-w19) when no day has passed since the
// previous review and the recall or forgetting formula otherwise; recall
// after t days is (1 + factor·t/S)^(-w20). As in the reference optimisers
// (fsrs-rs, fsrs-optimizer), a prediction is scored at every review after
// the card's first that comes at least a day after the previous review (a
// "long-term review"): the label is pass (hard, good, easy) or fail
// (again). Same-day reviews move the memory state but are not predicted.
//
// Fit follows the reference (fsrs-rs): it drops the reference's outlier
// cards, pretrains the initial stabilities w0-w3 from the first long-term
// review of each card, grouped by the card's first rating, then fits all
// 21 weights by maximum likelihood (binary cross-entropy of the predicted
// recall against pass/fail, recency-weighted, with the reference's L2 pull
// towards the pretrained start) within the reference's parameter clamps.
// Unlike the reference's five epochs of mini-batches, it takes full-batch
// Adam steps with exact gradients until the objective stops improving.
package fsrsopt

import (
	"cmp"
	"hash/fnv"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// NumWeights is the number of FSRS-6 weights.
const NumWeights = 21

// MinReviews is the fewest scored reviews (long-term reviews: a review at
// least a day after the card's previous one) Fit accepts.
const MinReviews = 300

// Review is one rating of a card.
type Review struct {
	// Rating is again, hard, good or easy.
	Rating contracts.Rating
	// Day is the learner's day of the review as a day number (for example
	// days since 1970-01-01 in the learner's calendar with their rollover
	// hour): the elapsed days between two reviews are the difference of
	// their Days, as the scheduler counts them.
	Day int
	// At is when the review happened. It orders reviews across cards for
	// the recency weights (later reviews weigh more); when two are equal,
	// Day then the histories' order decide.
	At time.Time
}

// History is one card's reviews, oldest first, from the review that
// first showed it as a new card (after a reset to new, from the first
// review since). Cram and manual entries do not belong in it.
type History struct {
	// Card identifies the card; Split assigns cards by it.
	Card string
	// Reviews are the card's ratings in the order they happened.
	Reviews []Review
}

// Metrics scores weights against histories.
type Metrics struct {
	// LogLoss is the recency-weighted mean binary cross-entropy of the
	// predicted recall against pass/fail over the scored reviews (the
	// reference's definition).
	LogLoss float64 `json:"logLoss"`
	// RMSEBins is the reference's calibration error: the scored reviews
	// are binned by elapsed days, number of long-term reviews and lapses
	// (see rmseBin); it is the root of the weight-averaged squared
	// difference between each bin's mean prediction and its recall rate.
	RMSEBins float64 `json:"rmseBins"`
	// Reviews is the number of scored reviews.
	Reviews int `json:"reviews"`
}

// Split divides histories into a training set and a held-out set by card:
// a card is held out when a hash of its Card (FNV-1a, 64 bits, then the
// splitmix64 finaliser so that similar names spread) falls in the first
// heldOut fraction, so the same card always lands on the same side.
// heldOut is clamped to 0-1.
func Split(histories []History, heldOut float64) (train, test []History) {
	heldOut = min(max(heldOut, 0), 1)
	for _, h := range histories {
		f := fnv.New64a()
		f.Write([]byte(h.Card))
		if float64(mix(f.Sum64())>>11)/float64(1<<53) < heldOut {
			test = append(test, h)
		} else {
			train = append(train, h)
		}
	}
	return train, test
}

// seq is one card's reviews as the model reads them.
type seq struct {
	rating []int8    // 1 again - 4 easy
	delta  []int32   // days since the previous review (0 for the first)
	weight []float64 // recency weight of a scored review, 0 otherwise
	// dropped is set on an outlier card (see outliers): it is neither
	// scored nor used for pretraining.
	dropped bool
}

// dataset is the histories prepared for the model.
type dataset struct {
	seqs   []seq
	scored int     // scored reviews
	wsum   float64 // sum of their weights
	passes int     // scored reviews that passed
}

var ratingNum = map[contracts.Rating]int8{
	contracts.RatingAgain: 1, contracts.RatingHard: 2, contracts.RatingGood: 3, contracts.RatingEasy: 4,
}

// prepare checks the histories and weighs the scored reviews with the
// reference's recency weights: the k-th of n weighs 0.25 + 0.75·(k/(n-1))³.
// With reference set, the reference's outliers are dropped and the
// reviews put in its order (see order); otherwise all are kept, in time
// order.
func prepare(histories []History, reference bool) (*dataset, error) {
	ds := &dataset{seqs: make([]seq, len(histories))}
	for c, h := range histories {
		n := len(h.Reviews)
		s := seq{rating: make([]int8, n), delta: make([]int32, n), weight: make([]float64, n)}
		for i, r := range h.Reviews {
			g, ok := ratingNum[r.Rating]
			if !ok {
				return nil, contracts.Errorf(contracts.KindInvalid, "card %q review %d: rating must be again, hard, good or easy; got %q", h.Card, i, r.Rating)
			}
			s.rating[i] = g
			if i == 0 {
				continue
			}
			d := r.Day - h.Reviews[i-1].Day
			if d < 0 {
				return nil, contracts.Errorf(contracts.KindInvalid, "card %q review %d: day %d is before the previous review's day %d; reviews must be oldest first", h.Card, i, r.Day, h.Reviews[i-1].Day)
			}
			s.delta[i] = int32(min(d, 1<<30))
		}
		ds.seqs[c] = s
	}
	refs := order(histories, ds.seqs, reference)
	ds.scored = len(refs)
	den := max(float64(len(refs)-1), 1)
	for k, o := range refs {
		x := float64(k) / den
		w := 0.25 + 0.75*x*x*x
		ds.seqs[o.card].weight[o.pos] = w
		ds.wsum += w
		if ds.seqs[o.card].rating[o.pos] > 1 {
			ds.passes++
		}
	}
	return ds, nil
}

// ref is a scored review: a card and a position in its reviews.
type ref struct {
	card, pos int
	at        time.Time
	day       int
}

// byTime orders scored reviews by time, then day.
func byTime(a, b ref) int {
	return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.day, b.day))
}

// order returns the scored reviews in time order, or with reference set
// marks the reference's outlier cards dropped and returns the scored
// reviews of the others in the reference's order: first each
// card's first long-term review, grouped by first rating (again first),
// then by the group's size (smallest first) and elapsed days, each group
// in time order; then all the other scored reviews in time order. (The
// reference's optimiser and evaluation both put the reviews of its
// pretraining set first, so its recency weights treat them as oldest.)
func order(histories []History, seqs []seq, reference bool) []ref {
	groups := map[int]int{}
	if reference {
		groups = outliers(seqs)
	}
	var first, rest []ref
	for c := range seqs {
		q := &seqs[c]
		if q.dropped {
			continue
		}
		f := firstLongTermOf(q)
		for i := 1; i < len(q.rating); i++ {
			if q.delta[i] == 0 {
				continue
			}
			r := ref{card: c, pos: i, at: histories[c].Reviews[i].At, day: histories[c].Reviews[i].Day}
			if reference && i == f {
				first = append(first, r)
			} else {
				rest = append(rest, r)
			}
		}
	}
	slices.SortStableFunc(first, func(a, b ref) int {
		return cmp.Or(cmp.Compare(groups[a.card], groups[b.card]), byTime(a, b))
	})
	slices.SortStableFunc(rest, byTime)
	return append(first, rest...)
}

// firstLongTermOf returns the position of a card's first review a day or
// more after the previous one, or 0 when there is none.
func firstLongTermOf(q *seq) int {
	for j := 1; j < len(q.rating); j++ {
		if q.delta[j] > 0 {
			return j
		}
	}
	return 0
}

// outliers marks dropped the cards the reference leaves out of training
// and evaluation, and returns the rank of each kept card's group. Cards
// are grouped by their first rating and the elapsed days of their first
// long-term review; within each first rating, the smallest groups (fewest
// cards first, then fewest days) are dropped until at least
// max(20, total/20) cards are, and every later group is dropped too when
// it has fewer than 6 cards or its days exceed 100 (365 for a first easy).
func outliers(seqs []seq) map[int]int {
	type group struct {
		delta int32
		cards []int
	}
	byRating := map[int8]map[int32][]int{}
	for c := range seqs {
		q := &seqs[c]
		j := firstLongTermOf(q)
		if j == 0 {
			continue
		}
		g0 := q.rating[0]
		if byRating[g0] == nil {
			byRating[g0] = map[int32][]int{}
		}
		byRating[g0][q.delta[j]] = append(byRating[g0][q.delta[j]], c)
	}
	rank := map[int]int{}
	kept := 0
	for g0 := int8(1); g0 <= 4; g0++ {
		byDelta := byRating[g0]
		groups := make([]group, 0, len(byDelta))
		total := 0
		for d, cards := range byDelta {
			groups = append(groups, group{d, cards})
			total += len(cards)
		}
		slices.SortFunc(groups, func(a, b group) int {
			if c := cmp.Compare(len(a.cards), len(b.cards)); c != 0 {
				return c
			}
			return cmp.Compare(a.delta, b.delta)
		})
		limit := int32(100)
		if g0 == 4 {
			limit = 365
		}
		removed := 0
		for _, gr := range groups {
			if removed+len(gr.cards) >= max(20, total/20) {
				if len(gr.cards) >= 6 && gr.delta <= limit {
					kept++
					for _, c := range gr.cards {
						rank[c] = kept
					}
					continue
				}
			} else {
				removed += len(gr.cards)
			}
			for _, c := range gr.cards {
				seqs[c].dropped = true
			}
		}
	}
	return rank
}

// mix is the splitmix64 finaliser.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
