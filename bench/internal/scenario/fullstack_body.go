package scenario

import (
	"encoding/json"
	"fmt"
	"slices"
)

// bindSubmitReview hands out the published (session, card) pairs
// round-robin over the sessions: call i rates pair i, so consecutive
// calls go to different sessions. There must be at least as many pairs as
// calls: the server publishes their number as its capacity, and the
// harness never sends more.
func bindSubmitReview(data json.RawMessage) (BodyFunc, error) {
	var d StudyData
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("submit_review data: %w", err)
	}
	pairs := interleave(d.Sessions)
	if len(pairs) == 0 {
		return nil, fmt.Errorf("submit_review data: no pending cards")
	}
	return func(i int) []byte { return pairs[i%len(pairs)] }, nil
}

// interleave returns one submit_review body per pending card, taking a
// card from each session in turn.
func interleave(sessions []StudySet) [][]byte {
	var out [][]byte
	for j := 0; ; j++ {
		added := false
		for _, s := range sessions {
			if j < len(s.CardIDs) {
				out = append(out, submitReviewBody(s.SessionID, s.CardIDs[j], j))
				added = true
			}
		}
		if !added {
			return out
		}
	}
}

// submitReviewBody rates the card at position (CardIDs are in queue order).
func submitReviewBody(sessionID, cardID string, position int) []byte {
	args, _ := json.Marshal(map[string]any{"sessionId": sessionID, "cardId": cardID, "position": position, "rating": ReviewRating, "durationMs": 4200})
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"submit_review","arguments":%s}}`, args)
}

// bindAddCards returns bodies adding CardsPerAdd cards to the published
// decks in turn; call i's cards have fronts no other call uses. Calls
// beyond the decks' capacity wrap around to the first deck.
func bindAddCards(data json.RawMessage) (BodyFunc, error) {
	var d AddData
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("add_cards data: %w", err)
	}
	if len(d.DeckIDs) == 0 || d.CallsPerDeck < 1 {
		return nil, fmt.Errorf("add_cards data: no decks")
	}
	prefixes := make([][]byte, len(d.DeckIDs))
	for k, id := range d.DeckIDs {
		deck, _ := json.Marshal(id)
		prefixes[k] = slices.Concat([]byte(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add_cards","arguments":{"deckId":`),
			deck, []byte(`,"cards":[`))
	}
	return func(i int) []byte {
		return appendCards(slices.Clip(prefixes[(i/d.CallsPerDeck)%len(prefixes)]), i)
	}, nil
}

// appendCards appends call i's cards and closes the request.
func appendCards(b []byte, i int) []byte {
	b = slices.Grow(b, CardsPerAdd*120+8)
	for j := range CardsPerAdd {
		if j > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"front":"Word %d.%d: مرحبا, what does it mean?","back":"Hello (%d.%d), the everyday greeting","tags":["mcpbench","unit-%d"]}`,
			i, j, i, j, j%7+1)
	}
	return append(b, "]}}}"...)
}
