package fsrsopt

import (
	"fmt"
	"math"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestRMSEBins checks the bin edges against the reference's formulas.
func TestRMSEBins(t *testing.T) {
	cases := []struct {
		t, n, lapses int
		want         binKey
	}{
		{1, 1, 0, binKey{248, 4, 0}},       // 2.48·100, 1.99·1.89 (n+1 = 2), no lapse
		{3, 1, 0, binKey{248, 4, 0}},       // log_3.62 3 < 1
		{4, 2, 0, binKey{898, 4, 0}},       // 248·3.62 = 897.8
		{14, 3, 1, binKey{3250, 7, 2}},     // 248·3.62² = 3249.9, 1.99·1.89² = 7.1, 1.65
		{100, 10, 3, binKey{11765, 13, 5}}, // 248·3.62³, 1.99·1.89³ = 13.4, 1.65·1.73² = 4.9
	}
	for _, c := range cases {
		if got := rmseBin(c.t, c.n, c.lapses); got != c.want {
			t.Errorf("rmseBin(%d, %d, %d) = %+v, want %+v", c.t, c.n, c.lapses, got, c.want)
		}
	}
}

// TestEvaluateByHand scores one card of three reviews by hand: the
// second review (2 days after the first, rated good) is predicted from the
// initial stability w2 with the forgetting curve; the third (same day) is
// not scored.
func TestEvaluateByHand(t *testing.T) {
	h := []History{{Card: "x", Reviews: []Review{
		{Rating: contracts.RatingGood, Day: 10}, {Rating: contracts.RatingGood, Day: 12}, {Rating: contracts.RatingAgain, Day: 12},
	}}}
	w := contracts.DefaultWeights
	m, err := Evaluate(w, h)
	if err != nil {
		t.Fatal(err)
	}
	factor := math.Pow(0.9, -1/w[20]) - 1
	r := math.Pow(1+factor*2/w[2], -w[20])
	if m.Reviews != 1 || math.Abs(m.LogLoss+math.Log(r)) > 1e-12 || math.Abs(m.RMSEBins-(1-r)) > 1e-12 {
		t.Fatalf("got %+v, want 1 review, log loss %v, RMSE %v", m, -math.Log(r), 1-r)
	}
	if _, err := Evaluate(w[:20], h); !contracts.IsKind(err, contracts.KindInvalid) {
		t.Errorf("20 weights: got %v, want invalid", err)
	}
	if _, err := Evaluate(w, h[:0]); !contracts.IsKind(err, contracts.KindInvalid) {
		t.Errorf("no history: got %v, want invalid", err)
	}
	bad := []History{{Card: "y", Reviews: []Review{{Rating: contracts.RatingGood, Day: 5}, {Rating: contracts.RatingGood, Day: 4}}}}
	if _, err := Evaluate(w, bad); !contracts.IsKind(err, contracts.KindInvalid) {
		t.Errorf("days going back: got %v, want invalid", err)
	}
}

// TestSplit checks that the split is by card, deterministic and near the
// asked fraction.
func TestSplit(t *testing.T) {
	var h []History
	for i := range 2000 {
		h = append(h, History{Card: fmt.Sprintf("card-%d", i)})
	}
	train, test := Split(h, 0.2)
	if len(train)+len(test) != len(h) || len(test) < 340 || len(test) > 460 {
		t.Fatalf("split %d/%d, want about 400 held out", len(train), len(test))
	}
	_, again := Split(h[:1000], 0.2)
	held := map[string]bool{}
	for _, x := range test {
		held[x.Card] = true
	}
	for _, x := range again {
		if !held[x.Card] {
			t.Fatalf("card %s held out in one split and not the other", x.Card)
		}
	}
}

// TestSmoothAndFill fills missing initial stabilities and orders them.
func TestSmoothAndFill(t *testing.T) {
	got := smoothAndFill(map[int]float64{1: 0.5, 3: 3}, map[int]int{1: 40, 3: 200})
	// ln s2 = 0.41 ln s1 + 0.59 ln s3; ln s3 = 0.46 ln s2 + 0.54 ln s4.
	s2 := math.Exp(0.41*math.Log(0.5) + 0.59*math.Log(3))
	s4 := math.Exp((math.Log(3) - 0.46*math.Log(s2)) / 0.54)
	want := [4]float64{0.5, s2, 3, s4}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	// Easy below good: the rating with fewer cards gives way.
	got = smoothAndFill(map[int]float64{1: 0.3, 2: 1, 3: 5, 4: 4}, map[int]int{1: 10, 2: 10, 3: 100, 4: 10})
	if got[3] != 5 || got[2] != 5 {
		t.Fatalf("got %v, want good and easy both 5", got)
	}
	got = smoothAndFill(map[int]float64{3: contracts.DefaultWeights[2] * 2}, map[int]int{3: 50})
	if math.Abs(got[0]-contracts.DefaultWeights[0]*2) > 1e-12 || math.Abs(got[3]-contracts.DefaultWeights[3]*2) > 1e-12 {
		t.Fatalf("one rating known: got %v, want the defaults doubled", got)
	}
}

// TestEvaluateReferenceDropsOutliers builds 25 cards first rated good and
// reviewed 2 days later, and 3 cards reviewed 40 days later: the
// reference's filter drops the small group (it removes at least 20 cards
// of a first rating, smallest groups first), so only Evaluate sees them.
func TestEvaluateReferenceDropsOutliers(t *testing.T) {
	var h []History
	for i := range 28 {
		gap := 2
		if i >= 25 {
			gap = 40
		}
		h = append(h, History{Card: fmt.Sprint(i), Reviews: []Review{
			{Rating: contracts.RatingGood, Day: 0}, {Rating: contracts.RatingGood, Day: gap}, {Rating: contracts.RatingAgain, Day: gap + 3},
		}})
	}
	all, err := Evaluate(contracts.DefaultWeights, h)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := EvaluateReference(contracts.DefaultWeights, h)
	if err != nil {
		t.Fatal(err)
	}
	if all.Reviews != 56 || ref.Reviews != 50 {
		t.Fatalf("scored %d and %d reviews, want 56 (all) and 50 (without the 3 cards reviewed after 40 days)", all.Reviews, ref.Reviews)
	}
}
