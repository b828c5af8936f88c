package fsrs

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// Balance prefers the least loaded day of the range and never leaves it.
func TestBalancePrefersLightDays(t *testing.T) {
	load := map[int]int{10: 50, 11: 50, 12: 2, 13: 50, 14: 50}
	picked := map[int]int{}
	for i := range 1000 {
		d := Balance(float64(i)/1000, func(d int) int { return load[d] }, nil)(10, 14)
		if d < 10 || d > 14 {
			t.Fatalf("picked day %d outside [10, 14]", d)
		}
		picked[d]++
	}
	if picked[12] < 900 {
		t.Errorf("the light day 12 was picked %d times of 1000 (%v), want at least 900", picked[12], picked)
	}
	// An easy day (weight 0) is never picked when another day is possible.
	for i := range 100 {
		if d := Balance(float64(i)/100, func(int) int { return 0 }, func(d int) float64 { return map[bool]float64{true: 0, false: 1}[d == 12] })(10, 14); d == 12 {
			t.Fatal("an easy day of weight 0 was picked")
		}
	}
}

// TestBalanceLevelsDailyLoad measures issue 28 §2's figure: a learner
// adds 20 new cards a day to a deck and studies every day (recall 90%,
// else Again then Good on the relearning step); after 300 days with the
// fuzz's uniform draw or with Balance throughout, 90 more days; five
// learners (seeds). The
// figure is the coefficient of variation (standard deviation / mean) of
// the review counts of those 90 days, raw and around their linear trend
// (the deck still grows: the trend is workload, not spread), averaged
// over the learners. Balancing must lower the CV around the trend by at
// least 30%. Run
//
//	go test -run TestBalanceLevelsDailyLoad -v ./domain/fsrs/
func TestBalanceLevelsDailyLoad(t *testing.T) {
	var raw, trend [2]float64
	const seeds = 5
	for seed := range uint64(seeds) {
		plain, balanced := simulateLoad(t, seed, false), simulateLoad(t, seed, true)
		t.Logf("seed %d: raw CV %.3f uniform, %.3f balanced; around the trend %.3f and %.3f; means %.1f / %.1f",
			seed, cv(plain), cv(balanced), detrendedCV(plain), detrendedCV(balanced), mean(plain), mean(balanced))
		raw[0], raw[1] = raw[0]+cv(plain)/seeds, raw[1]+cv(balanced)/seeds
		trend[0], trend[1] = trend[0]+detrendedCV(plain)/seeds, trend[1]+detrendedCV(balanced)/seeds
	}
	t.Logf("daily reviews over 90 days, mean of %d learners: raw CV %.3f with the uniform fuzz, %.3f balanced (%.0f%% lower); around the trend %.3f and %.3f (%.0f%% lower)",
		seeds, raw[0], raw[1], 100*(1-raw[1]/raw[0]), trend[0], trend[1], 100*(1-trend[1]/trend[0]))
	if trend[1] > 0.7*trend[0] {
		t.Errorf("balanced CV around the trend %.3f is not 30%% under the uniform fuzz's %.3f", trend[1], trend[0])
	}
}

func simulateLoad(t *testing.T, seed uint64, balance bool) []int {
	t.Helper()
	p, err := New().preset(contracts.DefaultDeckSettings())
	if err != nil {
		t.Fatal(err)
	}
	day := contracts.LearnerDay{}
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(28, seed))
	var cards []contracts.CardState
	dueOn := map[int]int{} // reviews due by day number
	dayOf := func(tm time.Time) int { return day.DaysBetween(start, tm) }
	const warm, days = 300, 90
	counts := make([]int, days)
	for d := range warm + days {
		now := start.Add(time.Duration(d)*24*time.Hour + 9*time.Hour)
		for i := range cards {
			c := &cards[i]
			if c.Phase != contracts.PhaseReview || dayOf(c.Due) > d {
				continue
			}
			if d >= warm {
				counts[d-warm]++
			}
			dueOn[dayOf(c.Due)]--
			rating := contracts.RatingGood
			if r.Float64() >= 0.9 {
				rating = contracts.RatingAgain
			}
			choose := Uniform(r.Float64())
			if balance {
				choose = Balance(r.Float64(), func(days int) int { return dueOn[d+days] }, nil)
			}
			next, err := p.ReviewChoosing(*c, day, now, rating, choose)
			if err != nil {
				t.Fatal(err)
			}
			if rating == contracts.RatingAgain {
				next, err = p.ReviewOn(next, day, now.Add(10*time.Minute), contracts.RatingGood)
				if err != nil {
					t.Fatal(err)
				}
			}
			*c = next
			dueOn[dayOf(c.Due)]++
		}
		for range 20 {
			c := NewState(now)
			for _, m := range []time.Duration{0, time.Minute, 10 * time.Minute} {
				if c, err = p.ReviewOn(c, day, now.Add(m), contracts.RatingGood); err != nil {
					t.Fatal(err)
				}
				if c.Phase == contracts.PhaseReview {
					break
				}
			}
			cards = append(cards, c)
			dueOn[dayOf(c.Due)]++
		}
	}
	return counts
}

func mean(xs []int) float64 {
	s := 0.0
	for _, x := range xs {
		s += float64(x)
	}
	return s / float64(len(xs))
}

func cv(xs []int) float64 {
	m, v := mean(xs), 0.0
	for _, x := range xs {
		v += (float64(x) - m) * (float64(x) - m)
	}
	return math.Sqrt(v/float64(len(xs))) / m
}

// detrendedCV is the standard deviation of xs around their least-squares
// line over their mean.
func detrendedCV(xs []int) float64 {
	n := float64(len(xs))
	mx, my := (n-1)/2, mean(xs)
	sxy, sxx := 0.0, 0.0
	for i, x := range xs {
		sxy += (float64(i) - mx) * (float64(x) - my)
		sxx += (float64(i) - mx) * (float64(i) - mx)
	}
	slope, v := sxy/sxx, 0.0
	for i, x := range xs {
		r := float64(x) - (my + slope*(float64(i)-mx))
		v += r * r
	}
	return math.Sqrt(v/n) / my
}
