package stats

import "math"

// simLoad is a simulation run's load: the review cards due each day,
// counted from the simulation's first day, each card by its weight.
type simLoad []float64

// add adds n to day k.
func (l *simLoad) add(k int, n float64) {
	if k >= len(*l) {
		*l = append(*l, make([]float64, k+1-len(*l)+64)...)
	}
	(*l)[k] += n
}

// from is the load as fsrs.Balance reads it on day d: days from d (as
// the load is when read: it may grow meanwhile).
func (l *simLoad) from(d int) func(int) int {
	return func(k int) int {
		if d+k < 0 || d+k >= len(*l) {
			return 0
		}
		return int(math.Round((*l)[d+k]))
	}
}
