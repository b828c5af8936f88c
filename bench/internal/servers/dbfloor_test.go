package servers

import (
	"regexp"
	"testing"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// TestDBFloorAnswersAsService checks that the database floor's answers to
// list_decks and submit_review are byte for byte the service's (SQLite),
// ids and times aside: the floor's answer path does the work of the
// service's answer, no more (a heavier encoding would flatter the
// ratios), no less. A review's interval is fuzzed from the review time,
// so the two may schedule a card a day apart; each answer's interval must
// then read its own scheduled days, as the service renders them.
func TestDBFloorAnswersAsService(t *testing.T) {
	ids := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	times := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	sessions := regexp.MustCompile(`(sessionId\\?":\\?")[A-Za-z0-9_-]+`)
	days := regexp.MustCompile(`scheduledDays\\?":(\d+),.*?interval\\?":\\?"([^"\\]*)`)
	fuzzed := regexp.MustCompile(`(scheduledDays\\?":)\d+|(interval\\?":\\?")[^"\\]*`)
	answers := map[string]map[string]string{}
	for _, name := range []string{"fullstack", "dbfloor"} {
		s, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		in, scs := start(t, s, Options{})
		answers[name] = map[string]string{}
		for _, sc := range scs {
			c, err := newCaller(t.Context(), in.HeaderFor(sc.Name))
			if err != nil {
				t.Fatal(err)
			}
			r := c.call(in.Handler, sc.Body(0))
			if err := sc.Check(r); err != nil {
				t.Fatalf("%s / %s: %v", name, sc.Name, err)
			}
			body := string(r.Body)
			if sc.Name == scenario.SubmitReview {
				m := days.FindAllStringSubmatch(body, -1)
				if len(m) == 0 {
					t.Fatalf("%s / %s: no scheduled days and interval in %s", name, sc.Name, body)
				}
				for _, m := range m {
					if m[2] != m[1]+"d" {
						t.Errorf("%s / %s: interval %q for %s scheduled days, want %q", name, sc.Name, m[2], m[1], m[1]+"d")
					}
				}
				body = fuzzed.ReplaceAllString(body, "${1}${2}FUZZ")
			}
			body = sessions.ReplaceAllString(body, "${1}SESSION")
			answers[name][sc.Name] = times.ReplaceAllString(ids.ReplaceAllString(body, "ID"), "TIME")
		}
	}
	for _, sc := range []string{scenario.ListDecks, scenario.SubmitReview} {
		got, want := answers["dbfloor"][sc], answers["fullstack"][sc]
		if got == "" || got != want {
			t.Errorf("%s: the floor answers\n%s\nthe service\n%s", sc, got, want)
		}
	}
}
