package loadtest

import (
	"strings"
	"testing"
	"time"
)

// samples builds a soak run sampled every 5 s from per-figure series.
func samples(n int, fill func(i int, s *SoakSample)) []SoakSample {
	out := make([]SoakSample, n)
	for i := range out {
		out[i] = SoakSample{At: time.Duration(i+1) * 5 * time.Second, RSS: 50 << 20, Goroutines: 70, OpenFiles: 45, P99: 100 * time.Millisecond, BytesPerRow: 1150}
		fill(i, &out[i])
	}
	return out
}

func TestUnboundedSeesClimbsNotSaws(t *testing.T) {
	const mib = 1 << 20
	// The log of a CI run that failed the slope-through-samples check:
	// teeth of up to 347 MiB early, none higher later.
	ci := []int64{64, 347, 61, 129, 136, 130, 135, 132, 132, 60, 127, 181}
	// A run whose late teeth fall where a slope through the samples
	// climbs: 0.0 MiB at 35 and 45 s, 125 and 133 MiB at 55 and 60 s.
	late := []int64{111, 53, 106, 53, 135, 141, 0, 53, 0, 56, 126, 133}
	cases := []struct {
		name string
		run  []SoakSample
		want string // the figure named, "" for none
	}{
		{"flat", samples(12, func(int, *SoakSample) {}), ""},
		{"saw with early peak", samples(12, func(i int, s *SoakSample) { s.LogBytes = ci[i] * mib }), ""},
		{"saw with late low teeth", samples(12, func(i int, s *SoakSample) { s.LogBytes = late[i] * mib }), ""},
		{"log climbing", samples(12, func(i int, s *SoakSample) { s.LogBytes = int64(i) * 40 * mib }), "log high-water mark"},
		{"saw whose teeth climb", samples(12, func(i int, s *SoakSample) { s.LogBytes = int64(i%3) * int64(i) * 20 * mib }), "log high-water mark"},
		{"RSS leak", samples(12, func(i int, s *SoakSample) { s.RSS = int64(50+10*i) << 20 }), "RSS"},
		{"goroutine leak", samples(12, func(i int, s *SoakSample) { s.Goroutines = 70 + 20*i }), "goroutines"},
		{"p99 doubling", samples(12, func(i int, s *SoakSample) { s.P99 = time.Duration(20*i*i) * time.Millisecond }), "p99"},
		{"p99 noise", samples(12, func(i int, s *SoakSample) { s.P99 = time.Duration(40+130*(i%2)) * time.Millisecond }), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := unbounded(c.run)
			if c.want == "" {
				if len(got) != 0 {
					t.Fatalf("unbounded = %q, want nothing", got)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0], c.want) {
				t.Fatalf("unbounded = %q, want one failure naming %q", got, c.want)
			}
		})
	}
}
