package study

import (
	"testing"
	"time"
)

func TestFormatInterval(t *testing.T) {
	cases := map[time.Duration]string{
		0:                               "now",
		20 * time.Second:                "now",
		45 * time.Second:                "1m",
		time.Minute:                     "1m",
		10 * time.Minute:                "10m",
		59 * time.Minute:                "59m",
		time.Hour:                       "1h",
		5*time.Hour + 20*time.Minute:    "5h",
		23 * time.Hour:                  "23h",
		24 * time.Hour:                  "1d",
		3 * 24 * time.Hour:              "3d",
		3*24*time.Hour + 13*time.Hour:   "4d",
		364 * 24 * time.Hour:            "364d",
		365 * 24 * time.Hour:            "1y",
		547 * 24 * time.Hour:            "1.5y",
		10 * 365 * 24 * time.Hour:       "10y",
		-5 * time.Minute:                "now",
		23*time.Hour + 45*time.Minute:   "1d",
		59*time.Minute + 45*time.Second: "1h",
	}
	for d, want := range cases {
		if got := formatInterval(d); got != want {
			t.Errorf("formatInterval(%v) = %q, want %q", d, got, want)
		}
	}
}
