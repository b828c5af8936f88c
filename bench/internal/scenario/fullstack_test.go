package scenario

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// call is the part of a tools/call request the full-stack tests read.
type call struct {
	Params struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
}

func decodeCall(t *testing.T, body []byte) call {
	t.Helper()
	var c call
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, body)
	}
	return c
}

func bind(t *testing.T, name string, data any) BodyFunc {
	t.Helper()
	raw, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range FullStack(false) {
		if sc.Name == name {
			body, err := sc.Bind(raw)
			if err != nil {
				t.Fatal(err)
			}
			return body
		}
	}
	t.Fatalf("no full-stack scenario %s", name)
	return nil
}

// TestSubmitReviewBodies checks that calls take the pending cards one
// each, alternating between sessions.
func TestSubmitReviewBodies(t *testing.T) {
	data := StudyData{Sessions: []StudySet{{"s1", []string{"a", "b", "c"}}, {"s2", []string{"d"}}}}
	body := bind(t, SubmitReview, data)
	var got []string
	for i := range data.Pairs() {
		c := decodeCall(t, body(i))
		var args struct{ SessionID, CardID, Rating string }
		if err := json.Unmarshal(c.Params.Arguments, &args); err != nil || c.Params.Name != SubmitReview || args.Rating != ReviewRating {
			t.Fatalf("call %d: %s (%v)", i, body(i), err)
		}
		got = append(got, args.SessionID+"/"+args.CardID)
	}
	if want := "[s1/a s2/d s1/b s1/c]"; fmt.Sprint(got) != want {
		t.Errorf("pairs = %v, want %s", got, want)
	}
	if _, err := FullStack(false)[1].Bind(json.RawMessage(`{"sessions":[]}`)); err == nil {
		t.Error("bound submit_review without pending cards")
	}
}

// TestAddCardsBodies checks that every call carries CardsPerAdd cards no
// other call carries, and fills each deck with at most CallsPerDeck calls.
func TestAddCardsBodies(t *testing.T) {
	body := bind(t, AddCards, AddData{DeckIDs: []string{"d0", "d1"}, CallsPerDeck: 3})
	fronts := map[string]int{}
	perDeck := map[string]int{}
	for i := range 6 {
		var args struct {
			DeckID string `json:"deckId"`
			Cards  []struct {
				Front, Back string
				Tags        []string
			} `json:"cards"`
		}
		if err := json.Unmarshal(decodeCall(t, body(i)).Params.Arguments, &args); err != nil {
			t.Fatal(err)
		}
		if len(args.Cards) != CardsPerAdd {
			t.Fatalf("call %d has %d cards", i, len(args.Cards))
		}
		perDeck[args.DeckID]++
		for _, c := range args.Cards {
			if prev, dup := fronts[c.Front]; dup {
				t.Fatalf("calls %d and %d share the front %q", prev, i, c.Front)
			}
			fronts[c.Front] = i
		}
	}
	if perDeck["d0"] != 3 || perDeck["d1"] != 3 {
		t.Errorf("calls per deck = %v", perDeck)
	}
}

// TestFullStackChecks checks that the response checks refuse a tool
// error and a result whose audit row was not written.
func TestFullStackChecks(t *testing.T) {
	ok := `{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"{}"}],"structuredContent":` +
		`{"items":[` + strings.Join(slices.Repeat([]string{`{"index":0,"status":"created","id":"c"}`}, CardsPerAdd), ",") + `],"counts":{"created":10}}%s}}`
	for body, wantOK := range map[string]bool{
		fmt.Sprintf(ok, ""): true,
		fmt.Sprintf(ok, `,"_meta":{"takhtabush/auditFailed":true}`):                                              false,
		`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"deck not found"}],"isError":true}}`: false,
	} {
		err := checkAddCards(&Response{Status: 200, ContentType: "application/json", Body: []byte(body)})
		if (err == nil) != wantOK {
			t.Errorf("checkAddCards(%.80s…) = %v, want ok=%v", body, err, wantOK)
		}
	}
}
