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
// Fit follows the reference: initial stabilities w0-w3 are pretrained
// from the first long-term review of each card, grouped by the card's
// first rating; then all 21 weights are fitted by maximum likelihood
// (binary cross-entropy of the predicted recall against pass/fail,
// recency-weighted and with the reference's L2 pull towards the
// pretrained start), with the reference's parameter clamps. Unlike the
// reference's five epochs of mini-batches, the fit takes full-batch Adam
// steps with exact gradients until the objective stops improving.
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
	// LogLoss is the recency-weighted binary cross-entropy of the
	// predicted recall against pass/fail over the scored reviews, as the
	// reference's evaluation defines it.
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

// prepare checks the histories and computes delta days and the
// reference's recency weights: the k-th of n scored reviews in time order
// weighs 0.25 + 0.75·(k/(n-1))³.
func prepare(histories []History) (*dataset, error) {
	type ref struct {
		card, pos int
		at        time.Time
		day       int
	}
	ds := &dataset{seqs: make([]seq, len(histories))}
	var order []ref
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
			s.delta[i] = int32(d)
			if d > 0 {
				order = append(order, ref{card: c, pos: i, at: r.At, day: r.Day})
				if g > 1 {
					ds.passes++
				}
			}
		}
		ds.seqs[c] = s
	}
	slices.SortStableFunc(order, func(a, b ref) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.day, b.day)
	})
	ds.scored = len(order)
	den := max(float64(len(order)-1), 1)
	for k, o := range order {
		x := float64(k) / den
		w := 0.25 + 0.75*x*x*x
		ds.seqs[o.card].weight[o.pos] = w
		ds.wsum += w
	}
	return ds, nil
}

// mix is the splitmix64 finaliser.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
