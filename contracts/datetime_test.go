package contracts_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// A date means the start of that day in the learner's day; a date-time is
// itself; anything else is invalid with a message naming both forms.
func TestDateOrTime(t *testing.T) {
	berlin, err := contracts.LoadTimezone("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	day := contracts.LearnerDay{Location: berlin, RolloverHour: 4}
	for in, want := range map[string]string{
		"2026-12-01":                "2026-12-01T03:00:00Z", // 04:00 in Berlin (UTC+1)
		"2026-07-01":                "2026-07-01T02:00:00Z", // 04:00 in Berlin (UTC+2)
		"2026-12-01T09:30:00Z":      "2026-12-01T09:30:00Z",
		"2026-12-01T09:30:00+05:00": "2026-12-01T04:30:00Z",
	} {
		w, err := contracts.ParseDateOrTime(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := w.At(day).UTC().Format(time.RFC3339); got != want {
			t.Errorf("%s at the learner's day = %s, want %s", in, got, want)
		}
		var back contracts.DateOrTime
		b, _ := json.Marshal(w)
		if err := json.Unmarshal(b, &back); err != nil || !back.At(day).Equal(w.At(day)) || back.IsDate() != w.IsDate() {
			t.Errorf("%s: JSON round trip gave %s (%v)", in, b, err)
		}
	}
	for _, in := range []string{"", "tomorrow", "2026-13-01", "2026-12-01 09:30", "01/12/2026", strings.Repeat("9", 100)} {
		_, err := contracts.ParseDateOrTime(in)
		msg := contracts.MessageOf(err)
		if !contracts.IsKind(err, contracts.KindInvalid) || !strings.Contains(msg, "YYYY-MM-DD") || strings.Contains(msg, "2006") || len(msg) > 200 {
			t.Errorf("%q: %v", in, err)
		}
	}
	var w contracts.DateOrTime
	if err := json.Unmarshal([]byte(`12`), &w); !contracts.IsKind(err, contracts.KindInvalid) {
		t.Errorf("a number: %v", err)
	}
}
