package fsrsopt

import "math"

// The model's arithmetic, with forward-mode derivatives: along a card's
// reviews the memory state (S, D) carries its derivatives with respect to
// the 21 weights, so one pass over the histories gives the objective and
// its exact gradient. The formulas are go-fsrs v4's (the scheduler's).

const (
	sMin, sMax = 0.001, 36500.0
	dMin, dMax = 1.0, 10.0
	// rEps keeps a predicted recall off 0 and 1 so its log stays finite.
	rEps = 1e-9
)

// state is a card's memory state with its derivatives.
type state struct {
	s, d   float64
	ds, dd [NumWeights]float64
}

// curve holds the forgetting curve's constants for w20.
type curve struct {
	decay, factor, dFactor float64 // dFactor = d factor / d w20
}

func newCurve(w *[NumWeights]float64) curve {
	decay := w[20]
	factor := math.Pow(0.9, -1/decay) - 1
	return curve{decay: decay, factor: factor, dFactor: (factor + 1) * math.Log(0.9) / (decay * decay)}
}

// recall returns the predicted recall after t days at stability s, and
// its derivatives with respect to s and w20.
func (c curve) recall(t, s float64) (r, drds, drdw20 float64) {
	x := 1 + c.factor*t/s
	r = math.Pow(x, -c.decay)
	drds = r * c.decay * c.factor * t / (s * s * x)
	drdw20 = r * (-math.Log(x) - c.decay*(t/s)/x*c.dFactor)
	return r, drds, drdw20
}

// initial sets the state after a card's first rating g.
func (st *state) initial(w *[NumWeights]float64, g int8) {
	st.ds = [NumWeights]float64{}
	st.dd = [NumWeights]float64{}
	st.s = w[g-1]
	if st.s < 0.1 {
		st.s = 0.1
	} else {
		st.ds[g-1] = 1
	}
	e := math.Exp(w[5] * float64(g-1))
	st.d = w[4] - e + 1
	switch {
	case st.d < dMin:
		st.d = dMin
	case st.d > dMax:
		st.d = dMax
	default:
		st.dd[4] = 1
		st.dd[5] = -float64(g-1) * e
	}
}

// next moves the state by a review rated g, t days after the previous
// one; r, drds and drdw20 are the recall at t and its derivatives (only
// used when t > 0). grad is false when only values are needed.
func (st *state) next(w *[NumWeights]float64, c curve, t float64, g int8, r, drds, drdw20 float64, grad bool) {
	s, d := st.s, st.d
	// Difficulty: linear damping, then mean reversion to D0(easy).
	fg := float64(g)
	deltaD := -w[6] * (fg - 3)
	nd := d + (10-d)*deltaD/9
	e3 := math.Exp(3 * w[5])
	init4 := w[4] - e3 + 1
	newD := w[7]*init4 + (1-w[7])*nd
	dClamped := newD < dMin || newD > dMax
	newD = min(max(newD, dMin), dMax)

	var newS float64
	// dS' = a·dS + b·dD + direct partials (set below per branch).
	var a, b float64
	var direct [NumWeights]float64
	if t == 0 {
		sinc := math.Exp(w[17]*(fg-3+w[18])) * math.Pow(s, -w[19])
		if g >= 2 && sinc < 1 {
			newS = s
			a = 1
		} else {
			newS = s * sinc
			a = sinc * (1 - w[19])
			direct[17] = newS * (fg - 3 + w[18])
			direct[18] = newS * w[17]
			direct[19] = -newS * math.Log(s)
		}
	} else if g > 1 {
		hp, eb := 1.0, 1.0
		if g == 2 {
			hp = w[15]
		} else if g == 4 {
			eb = w[16]
		}
		spow := math.Pow(s, -w[9])
		base := math.Exp(w[8]) * (11 - d) * spow * hp * eb
		ex := math.Exp((1 - r) * w[10])
		inc := base * (ex - 1)
		newS = s * (1 + inc)
		dIncdR := -base * w[10] * ex
		// d inc / d s (explicit, then through r).
		dIncdS := -w[9]*inc/s + dIncdR*drds
		a = 1 + inc + s*dIncdS
		b = -s * inc / (11 - d)
		direct[8] = s * inc
		direct[9] = -s * math.Log(s) * inc
		direct[10] = s * base * ex * (1 - r)
		direct[20] = s * dIncdR * drdw20
		core := math.Exp(w[8]) * (11 - d) * spow * (ex - 1)
		if g == 2 {
			direct[15] = s * core
		} else if g == 4 {
			direct[16] = s * core
		}
	} else {
		dpow := math.Pow(d, -w[12])
		sp := math.Pow(s+1, w[13])
		ex := math.Exp((1 - r) * w[14])
		n := w[11] * dpow * (sp - 1) * ex
		ceilF := math.Exp(-w[17] * w[18])
		ceil := s * ceilF
		if n < ceil {
			newS = n
			dndR := -w[14] * n
			a = w[11]*dpow*w[13]*math.Pow(s+1, w[13]-1)*ex + dndR*drds
			b = -w[12] * n / d
			direct[11] = dpow * (sp - 1) * ex
			direct[12] = -math.Log(d) * n
			direct[13] = w[11] * dpow * sp * math.Log(s+1) * ex
			direct[14] = (1 - r) * n
			direct[20] = dndR * drdw20
		} else {
			newS = ceil
			a = ceilF
			direct[17] = -w[18] * ceil
			direct[18] = -w[17] * ceil
		}
	}
	sClamped := newS < sMin || newS > sMax
	newS = min(max(newS, sMin), sMax)

	if grad {
		dnddD := 1 - deltaD/9
		for k := range NumWeights {
			dsk, ddk := st.ds[k], st.dd[k]
			if sClamped {
				st.ds[k] = 0
			} else {
				st.ds[k] = a*dsk + b*ddk + direct[k]
			}
			if dClamped {
				st.dd[k] = 0
			} else {
				st.dd[k] = (1 - w[7]) * dnddD * ddk
			}
		}
		if !dClamped {
			st.dd[4] += w[7]
			st.dd[5] += w[7] * (-3 * e3)
			st.dd[6] += (1 - w[7]) * (10 - d) * (-(fg - 3)) / 9
			st.dd[7] += init4 - nd
		}
	}
	st.s, st.d = newS, newD
}

// clampR keeps a predicted recall inside (0, 1).
func clampR(r float64) float64 { return min(max(r, rEps), 1-rEps) }

// objective returns the recency-weighted mean log loss over the scored
// reviews and, when grad is not nil, adds its gradient to grad.
func objective(w *[NumWeights]float64, ds *dataset, grad *[NumWeights]float64) float64 {
	c := newCurve(w)
	var st state
	var loss float64
	withGrad := grad != nil
	if withGrad {
		*grad = [NumWeights]float64{}
	}
	for i := range ds.seqs {
		q := &ds.seqs[i]
		if len(q.rating) < 2 || q.dropped {
			continue
		}
		st.initial(w, q.rating[0])
		for j := 1; j < len(q.rating); j++ {
			t := float64(q.delta[j])
			g := q.rating[j]
			var r, drds, drdw20 float64
			if t > 0 {
				r, drds, drdw20 = c.recall(t, st.s)
				if wt := q.weight[j]; wt > 0 {
					rc := clampR(r)
					var dl float64
					if g > 1 {
						loss -= wt * math.Log(rc)
						dl = -wt / rc
					} else {
						loss -= wt * math.Log(1-rc)
						dl = wt / (1 - rc)
					}
					if withGrad && rc == r {
						for k := range NumWeights {
							grad[k] += dl * drds * st.ds[k]
						}
						grad[20] += dl * drdw20
					}
				}
			}
			if j == len(q.rating)-1 {
				break
			}
			st.next(w, c, t, g, r, drds, drdw20, withGrad)
		}
	}
	if ds.wsum > 0 {
		loss /= ds.wsum
		if withGrad {
			for k := range grad {
				grad[k] /= ds.wsum
			}
		}
	}
	return loss
}
