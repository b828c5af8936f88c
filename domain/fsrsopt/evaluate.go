package fsrsopt

import (
	"math"

	"github.com/takhtabush/takhtabush/contracts"
)

// Evaluate scores weights (21 numbers within contracts.WeightBounds)
// against every scored review of histories: log loss and RMSE over bins
// (see Metrics), with the reference's recency weights in time order.
// Histories without a scored review are invalid input.
func Evaluate(weights []float64, histories []History) (Metrics, error) {
	return evaluate(weights, histories, false)
}

// EvaluateReference scores weights exactly as the reference's evaluation
// (fsrs-rs as the npm binding serves it) does: it first drops the cards
// its outlier filter drops (which, on a small set such as a held-out
// fifth of a deck, can be most of them) and weighs the first long-term
// review of each card as the oldest (see order).
func EvaluateReference(weights []float64, histories []History) (Metrics, error) {
	return evaluate(weights, histories, true)
}

func evaluate(weights []float64, histories []History, reference bool) (Metrics, error) {
	if err := contracts.CheckWeights(weights); err != nil {
		return Metrics{}, err
	}
	ds, err := prepare(histories, reference)
	if err != nil {
		return Metrics{}, err
	}
	if ds.scored == 0 {
		return Metrics{}, contracts.Errorf(contracts.KindInvalid, "no review to score: every card needs a review a day or more after an earlier one")
	}
	var w [NumWeights]float64
	copy(w[:], weights)
	return score(&w, ds), nil
}

// binKey is a bin of the RMSE: elapsed days, review count and lapses,
// each on a geometric scale.
type binKey struct{ delta, length, lapses int }

// rmseBin returns the reference's bin of a scored review t days after
// the previous one, with n long-term reviews including it and lapses
// earlier long-term reviews rated again:
// delta = round(248·3.62^⌊log_3.62 t⌋), length = round(1.99·1.89^⌊log_1.89 (n+1)⌋),
// lapses = 0 without lapses, else round(1.65·1.73^⌊log_1.73 lapses⌋).
func rmseBin(t, n, lapses int) binKey {
	geo := func(x, base, mul float64) int {
		return int(math.Round(mul * math.Pow(base, math.Floor(math.Log(x)/math.Log(base)))))
	}
	k := binKey{delta: geo(float64(t), 3.62, 248), length: geo(float64(n+1), 1.89, 1.99)}
	if lapses > 0 {
		k.lapses = geo(float64(lapses), 1.73, 1.65)
	}
	return k
}

// bin accumulates one bin's predictions.
type bin struct{ predicted, actual, count, weight float64 }

// score computes the metrics of w on a prepared dataset.
func score(w *[NumWeights]float64, ds *dataset) Metrics {
	c := newCurve(w)
	var st state
	var loss float64
	bins := map[binKey]*bin{}
	for i := range ds.seqs {
		q := &ds.seqs[i]
		if len(q.rating) < 2 || q.dropped {
			continue
		}
		st.initial(w, q.rating[0])
		n, lapses := 0, 0
		for j := 1; j < len(q.rating); j++ {
			t := float64(q.delta[j])
			g := q.rating[j]
			var r float64
			if t > 0 {
				r, _, _ = c.recall(t, st.s)
				n++
				if wt := q.weight[j]; wt > 0 {
					rc := clampR(r)
					y := 0.0
					if g > 1 {
						y = 1
						loss -= wt * math.Log(rc)
					} else {
						loss -= wt * math.Log(1-rc)
					}
					k := rmseBin(int(t), n, lapses)
					b := bins[k]
					if b == nil {
						b = &bin{}
						bins[k] = b
					}
					b.predicted += r
					b.actual += y
					b.count++
					b.weight += wt
				}
				if g == 1 {
					lapses++
				}
			}
			if j < len(q.rating)-1 {
				st.next(w, c, t, g, r, 0, 0, false)
			}
		}
	}
	var se, ws float64
	for _, b := range bins {
		d := b.predicted/b.count - b.actual/b.count
		se += d * d * b.weight
		ws += b.weight
	}
	m := Metrics{Reviews: ds.scored}
	if ds.wsum > 0 {
		m.LogLoss = loss / ds.wsum
	}
	if ws > 0 {
		m.RMSEBins = math.Sqrt(se / ws)
	}
	return m
}
