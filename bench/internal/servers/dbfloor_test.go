package servers

import (
	"regexp"
	"testing"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// TestDBFloorAnswersAsService checks that the database floor's answer to
// list_decks is byte for byte the service's (SQLite), ids and times
// aside: the floor's answer path does the work of the service's answer,
// no more (a heavier encoding would flatter the ratios), no less.
func TestDBFloorAnswersAsService(t *testing.T) {
	ids := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	times := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
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
			answers[name][sc.Name] = times.ReplaceAllString(ids.ReplaceAllString(string(r.Body), "ID"), "TIME")
		}
	}
	for _, sc := range []string{scenario.ListDecks} {
		got, want := answers["dbfloor"][sc], answers["fullstack"][sc]
		if got == "" || got != want {
			t.Errorf("%s: the floor answers\n%s\nthe service\n%s", sc, got, want)
		}
	}
}
