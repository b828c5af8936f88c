package web

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// The audit page links what an event changed by the kind the tool's audit
// projection gives each id.
func TestAffectedLinks(t *testing.T) {
	ev := func(tool, input string, ids ...string) contracts.AuditEvent {
		return contracts.AuditEvent{Tool: tool, InputSummary: json.RawMessage(input), AffectedIDs: ids}
	}
	for _, c := range []struct {
		e    contracts.AuditEvent
		want []auditLink
	}{
		{ev("create_deck", `{"name":"x"}`, "deck-000001"), []auditLink{{"deck …000001", "/decks/deck-000001"}}},
		{ev("add_cards", `{"deckId":"deck-000001","cards":[]}`, "deck-000001", "card-000002", "card-000003"),
			[]auditLink{{"deck …000001", "/decks/deck-000001"}, {"card …000002", "/cards/card-000002/edit"}, {"card …000003", "/cards/card-000003/edit"}}},
		{ev("start_study_session", `{"deckId":"deck-000001"}`, "sess-000009", "deck-000001"),
			[]auditLink{{"deck …000001", "/decks/deck-000001"}, {"study session …000009", "/study/sess-000009"}}},
		{ev("submit_review", `{"sessionId":"sess-000009"}`, "sess-000009", "card-000002"),
			[]auditLink{{"study session …000009", "/study/sess-000009"}, {"card …000002", "/cards/card-000002/edit"}}},
		{ev("request_media_upload", `{}`, "media-000007"), []auditLink{{"media …000007", ""}}},
		{ev("update_cards", `not json`, "card/../x"), []auditLink{{"card …d/../x", "/cards/card%2F..%2Fx/edit"}}},
	} {
		if got := affectedLinks(c.e); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.e.Tool, got, c.want)
		}
	}
	var many []string
	for i := range 30 {
		many = append(many, "card-"+string(rune('a'+i)))
	}
	if got := affectedLinks(ev("delete_cards", `{}`, many...)); len(got) != 21 || got[20].Label != "and more" {
		t.Errorf("30 cards give %d links ending %v", len(got), got[len(got)-1])
	}
}

// The chart scale covers the largest value in about four steps of 1, 2 or 5.
func TestNiceScale(t *testing.T) {
	for _, c := range []struct{ max, top, step int }{{0, 4, 1}, {1, 1, 1}, {3, 3, 1}, {6, 6, 2}, {9, 10, 2}, {11, 15, 5}, {47, 50, 10}, {230, 250, 50}} {
		if top, step := niceScale(c.max); top != c.top || step != c.step {
			t.Errorf("niceScale(%d) = %d, %d; want %d, %d", c.max, top, step, c.top, c.step)
		}
	}
}
