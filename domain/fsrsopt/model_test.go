package fsrsopt

import (
	"math"
	"testing"
)

// TestGradientMatchesFiniteDifferences checks the forward-mode gradient
// of the objective against central differences at weights away from the
// defaults, on a simulated history.
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	hist := simulate(t, trueWeights, 120, 6, 120, 7)
	ds, err := prepare(hist, false)
	if err != nil {
		t.Fatal(err)
	}
	var w [NumWeights]float64
	copy(w[:], trueWeights)
	var grad, scratch [NumWeights]float64
	objective(&w, ds, &grad)
	for k := range NumWeights {
		h := 1e-6 * max(1, math.Abs(w[k]))
		wp, wm := w, w
		wp[k] += h
		wm[k] -= h
		fd := (objective(&wp, ds, &scratch) - objective(&wm, ds, &scratch)) / (2 * h)
		if math.Abs(fd-grad[k]) > 1e-5+1e-3*math.Abs(fd) {
			t.Errorf("d loss / d w%d: analytic %.8g, finite difference %.8g", k, grad[k], fd)
		}
	}
}
