package fsrsopt

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/fsrs"
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

// TestModelMatchesScheduler replays random reviews through the project's
// scheduler (domain/fsrs, go-fsrs) under weights away from the defaults
// and checks that the model's stability and difficulty agree with the
// card state the scheduler stores after every review, same-day steps,
// lapses and long gaps included.
func TestModelMatchesScheduler(t *testing.T) {
	sched := fsrs.New()
	day := contracts.LearnerDay{Location: time.UTC}
	set := contracts.DefaultDeckSettings()
	set.Weights = trueWeights
	var w [NumWeights]float64
	copy(w[:], trueWeights)
	c := newCurve(&w)
	rng := rand.New(rand.NewPCG(3, 4))
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	checked := 0
	for card := range 200 {
		now := start
		st := fsrs.NewState(now)
		var m state
		prev := now
		for i := range 12 {
			g := contracts.Ratings[rng.IntN(4)]
			var err error
			if st, err = sched.ReviewOn(st, set, day, now, g); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				m.initial(&w, ratingNum[g])
			} else {
				el := float64(day.Date(now).Sub(day.Date(prev)).Hours() / 24)
				var r, drds, drdw20 float64
				if el > 0 {
					r, drds, drdw20 = c.recall(el, m.s)
				}
				m.next(&w, c, el, ratingNum[g], r, drds, drdw20, false)
			}
			if math.Abs(m.s-st.Stability) > 1e-9*max(1, st.Stability) || math.Abs(m.d-st.Difficulty) > 1e-9 {
				t.Fatalf("card %d review %d (%s): model S %.10g D %.10g, scheduler S %.10g D %.10g", card, i, g, m.s, m.d, st.Stability, st.Difficulty)
			}
			checked++
			prev = now
			// Same day (a step), the next day, or a gap of up to 60 days.
			switch rng.IntN(3) {
			case 0:
				now = now.Add(time.Duration(1+rng.IntN(30)) * time.Minute)
			case 1:
				now = now.AddDate(0, 0, 1)
			default:
				now = now.AddDate(0, 0, 2+rng.IntN(59))
			}
		}
	}
	t.Logf("%d reviews agree", checked)
}
