package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Names of the big-account read scenarios (issue 12 §3): every read
// tool on one account of many cards.
const (
	BigListDecks    = "list_decks"
	BigGetDeck      = "get_deck"
	BigGetStats     = "get_stats"
	BigStudyPlan    = "get_study_plan"
	BigSearchRare   = "search_cards rare"
	BigSearchCommon = "search_cards common"
)

// BigData is what the big-account server publishes for its scenarios.
type BigData struct {
	// DeckIDs are the account's decks, in creation order.
	DeckIDs []string `json:"deckIds"`
	// Cards is the number of cards in the account, spread evenly over
	// the decks.
	Cards int `json:"cards"`
	// Rare is a word on exactly one card; Common one on every
	// CommonEvery-th card.
	Rare        string `json:"rare"`
	Common      string `json:"common"`
	CommonEvery int    `json:"commonEvery"`
}

// BigGoal is a read tool's goal on the big account: at most MaxCPUMicros
// of server CPU per call when warm (on Postgres, the app's plus the
// database backends').
type BigGoal struct {
	Scenario     string
	MaxCPUMicros float64
}

// BigGoals are the goals of issue 12 §3: every read tool ≤ 5 ms of CPU
// per call, search ≤ 3 ms.
func BigGoals() []BigGoal {
	return []BigGoal{
		{BigListDecks, 5000}, {BigGetDeck, 5000}, {BigGetStats, 5000}, {BigStudyPlan, 5000},
		{BigSearchRare, 3000}, {BigSearchCommon, 3000},
	}
}

// BigRead returns the big-account scenarios. Each call is the same
// request (a read changes nothing): get_deck names the first deck;
// list_decks, get_stats and get_study_plan (with its forecast simulation)
// cover the whole account, all five decks.
func BigRead() []Scenario {
	call := func(id int, tool string, args func(d BigData) any) func(json.RawMessage) (BodyFunc, error) {
		return func(raw json.RawMessage) (BodyFunc, error) {
			var d BigData
			if err := json.Unmarshal(raw, &d); err != nil {
				return nil, err
			}
			if len(d.DeckIDs) == 0 {
				return nil, errors.New("no decks seeded")
			}
			a, err := json.Marshal(args(d))
			if err != nil {
				return nil, err
			}
			return Fixed(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, a)), nil
		}
	}
	deck := func(d BigData) any { return map[string]any{"deckId": d.DeckIDs[0]} }
	all := func(BigData) any { return map[string]any{} }
	return []Scenario{
		{Name: BigListDecks, Bind: call(1, "list_decks", all), Check: checkBigListDecks},
		{Name: BigGetDeck, Bind: call(2, "get_deck", deck), Check: checkStructured("id", "counts")},
		{Name: BigGetStats, Bind: call(3, "get_stats", all), Check: checkStructured("cardStates", "totalReviews")},
		{Name: BigStudyPlan, Bind: call(4, "get_study_plan", all), Check: checkStructured("forecast", "newCardsPerDay")},
		{Name: BigSearchRare, Bind: call(5, "search_cards", func(d BigData) any { return map[string]any{"query": d.Rare} }), Check: checkSearch(1)},
		{Name: BigSearchCommon, Bind: call(6, "search_cards", func(d BigData) any { return map[string]any{"query": d.Common} }), Check: checkSearch(20)},
	}
}

// structured decodes a tool result's structuredContent.
func structured(r *Response) (map[string]json.RawMessage, error) {
	msg, err := r.Decode()
	if err != nil {
		return nil, err
	}
	if msg.Error != nil {
		return nil, fmt.Errorf("JSON-RPC error %d", msg.Error.Code)
	}
	var res struct {
		IsError           bool                       `json:"isError"`
		StructuredContent map[string]json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(msg.Result, &res); err != nil {
		return nil, err
	}
	if res.IsError || res.StructuredContent == nil {
		return nil, fmt.Errorf("tool error or no structured content: %.300s", msg.Result)
	}
	return res.StructuredContent, nil
}

func checkStructured(fields ...string) func(*Response) error {
	return func(r *Response) error {
		sc, err := structured(r)
		if err != nil {
			return err
		}
		for _, f := range fields {
			if _, ok := sc[f]; !ok {
				return fmt.Errorf("result has no %q", f)
			}
		}
		return nil
	}
}

// checkBigListDecks wants five decks whose totals are all positive.
func checkBigListDecks(r *Response) error {
	sc, err := structured(r)
	if err != nil {
		return err
	}
	var items []struct {
		Counts struct {
			Total int `json:"total"`
		} `json:"counts"`
	}
	if err := json.Unmarshal(sc["items"], &items); err != nil {
		return err
	}
	if len(items) != 5 {
		return fmt.Errorf("%d decks listed, want 5", len(items))
	}
	for i, it := range items {
		if it.Counts.Total <= 0 {
			return fmt.Errorf("deck %d counts %d cards", i, it.Counts.Total)
		}
	}
	return nil
}

// checkSearch wants exactly want hits on the first page (the rare word
// is on one card; the common one fills a default page of 20).
func checkSearch(want int) func(*Response) error {
	return func(r *Response) error {
		sc, err := structured(r)
		if err != nil {
			return err
		}
		var items []json.RawMessage
		if err := json.Unmarshal(sc["items"], &items); err != nil {
			return err
		}
		if len(items) != want {
			return fmt.Errorf("%d cards found, want %d", len(items), want)
		}
		return nil
	}
}
