package fsrsopt

import (
	"math"
	"sort"

	"github.com/takhtabush/takhtabush/contracts"
)

// Pretraining of the initial stabilities w0-w3, as the reference does:
// each card's first long-term review, grouped by the card's first rating
// and that review's elapsed days, gives a recall rate per elapsed day
// (smoothed towards the average recall); for each first rating a ternary
// search finds the stability whose forgetting curve (with the default
// decay) fits those rates best, with a small pull to the default. Ratings
// without data are filled from the others (smoothAndFill).

// initSMin is the floor of w0-w3: the scheduler's initial stability is
// max(w, 0.1), so a lower weight would not change what it does.
const initSMin, initSMax = 0.1, 100.0

// firstLongTerm is one elapsed-day group of first long-term reviews.
type firstLongTerm struct {
	passes, count float64
}

// pretrain returns w0-w3 and the number of cards behind each first
// rating (1-4; a rating without cards is absent).
func pretrain(ds *dataset) ([4]float64, map[int]int) {
	groups := map[int]map[int32]*firstLongTerm{}
	counts := map[int]int{}
	for i := range ds.seqs {
		q := &ds.seqs[i]
		if q.dropped {
			continue
		}
		if j := firstLongTermOf(q); j > 0 {
			g0 := int(q.rating[0])
			if groups[g0] == nil {
				groups[g0] = map[int32]*firstLongTerm{}
			}
			f := groups[g0][q.delta[j]]
			if f == nil {
				f = &firstLongTerm{}
				groups[g0][q.delta[j]] = f
			}
			f.count++
			if q.rating[j] > 1 {
				f.passes++
			}
			counts[g0]++
		}
	}
	avg := 0.0
	if ds.scored > 0 {
		avg = float64(ds.passes) / float64(ds.scored)
	}
	found := map[int]float64{}
	for g, byDelta := range groups {
		found[g] = searchStability(byDelta, avg, contracts.DefaultWeights[g-1])
	}
	return smoothAndFill(found, counts), counts
}

// searchStability finds by ternary search the initial stability that
// best fits the recall rates of one first rating.
func searchStability(byDelta map[int32]*firstLongTerm, avg, def float64) float64 {
	type point struct{ t, recall, count float64 }
	pts := make([]point, 0, len(byDelta))
	for t, f := range byDelta {
		// Laplace smoothing towards the average recall.
		pts = append(pts, point{float64(t), (f.passes + avg) / (f.count + 1), f.count})
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].t < pts[j].t })
	decay := contracts.DefaultWeights[20]
	factor := math.Pow(0.9, -1/decay) - 1
	loss := func(s float64) float64 {
		l := math.Abs(s-def) / 16
		for _, p := range pts {
			r := clampR(math.Pow(1+factor*p.t/s, -decay))
			l -= p.count * (p.recall*math.Log(r) + (1-p.recall)*math.Log(1-r))
		}
		return l
	}
	lo, hi := initSMin, initSMax
	for it := 0; it < 200 && hi-lo > 1e-9; it++ {
		m1, m2 := lo+(hi-lo)/3, hi-(hi-lo)/3
		if loss(m1) < loss(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	return (lo + hi) / 2
}

// smoothAndFill orders the initial stabilities (a lower rating must not
// remember longer: the rating with fewer cards gives way) and fills the
// ratings without data. In log space the reference ties them by
// ln s2 = 0.41·ln s1 + 0.59·ln s3 and ln s3 = 0.46·ln s2 + 0.54·ln s4;
// with one rating known the defaults are scaled to it. The results are
// clamped to 0.1-100.
func smoothAndFill(found map[int]float64, counts map[int]int) [4]float64 {
	s := map[int]float64{}
	for g, v := range found {
		if counts[g] > 0 {
			s[g] = v
		}
	}
	for _, p := range [][2]int{{1, 2}, {2, 3}, {3, 4}, {1, 3}, {2, 4}, {1, 4}} {
		lo, hi := p[0], p[1]
		vlo, okLo := s[lo]
		vhi, okHi := s[hi]
		if okLo && okHi && vlo > vhi {
			if counts[lo] > counts[hi] {
				s[hi] = vlo
			} else {
				s[lo] = vhi
			}
		}
	}
	var out [4]float64
	switch len(s) {
	case 0:
		copy(out[:], contracts.DefaultWeights[:4])
	case 1:
		for g, v := range s {
			f := v / contracts.DefaultWeights[g-1]
			for i := range out {
				out[i] = contracts.DefaultWeights[i] * f
			}
		}
	default:
		out = fillLog(s)
	}
	for i := range out {
		out[i] = min(max(out[i], initSMin), initSMax)
	}
	return out
}

// fillLog solves the two log-space relations for the missing ratings
// (two or more ratings known). With three known, the missing rating's own
// relation is used (the first for ratings 1 and 2, the second for 3 and
// 4); with two known, both together.
func fillLog(s map[int]float64) [4]float64 {
	const w1, w2 = 0.41, 0.54
	var x [5]float64
	known := [5]bool{}
	for g, v := range s {
		x[g] = math.Log(v)
		known[g] = true
	}
	// Relations as coefficient rows over x1..x4: row·x = 0.
	r1 := [5]float64{0, -w1, 1, -(1 - w1), 0}
	r2 := [5]float64{0, 0, -(1 - w2), 1, -w2}
	var missing []int
	for g := 1; g <= 4; g++ {
		if !known[g] {
			missing = append(missing, g)
		}
	}
	solveOne := func(row [5]float64, g int) {
		sum := 0.0
		for k := 1; k <= 4; k++ {
			if k != g {
				sum += row[k] * x[k]
			}
		}
		x[g] = -sum / row[g]
	}
	switch len(missing) {
	case 1:
		if g := missing[0]; g <= 2 {
			solveOne(r1, g)
		} else {
			solveOne(r2, g)
		}
	case 2:
		a, b := missing[0], missing[1]
		c1, c2 := 0.0, 0.0
		for k := 1; k <= 4; k++ {
			if known[k] {
				c1 -= r1[k] * x[k]
				c2 -= r2[k] * x[k]
			}
		}
		det := r1[a]*r2[b] - r1[b]*r2[a]
		x[a] = (c1*r2[b] - r1[b]*c2) / det
		x[b] = (r1[a]*c2 - c1*r2[a]) / det
	}
	var out [4]float64
	for g := 1; g <= 4; g++ {
		out[g-1] = math.Exp(x[g])
	}
	return out
}
