package apiserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/contracts"
)

// submit_review through /mcp needs the card's position, so a rating
// applies to the showing the client saw: without it the call is refused
// with a reason; an identical repeat (a retry) is answered as a replay and
// never rates the card's re-queued learning step; a different rating for
// the same showing is a conflict.
func TestSubmitReviewPosition(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	key, _ := e.key(t, contracts.AllScopes...)
	cs := connect(t, e.base+"/mcp", bearer(key), "")
	var deck contracts.Deck
	call(t, cs, "create_deck", map[string]any{"name": "Steps"}, &deck)
	call(t, cs, "add_cards", map[string]any{"deckId": deck.ID, "cards": []map[string]any{{"front": "Haus", "back": "house"}}}, nil)
	var sess contracts.StudySession
	call(t, cs, "start_study_session", map[string]any{"deckId": deck.ID}, &sess)
	cur := sess.Current

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "submit_review", Arguments: map[string]any{"sessionId": sess.ID, "cardId": cur.CardID, "rating": "again"}})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "position") {
		t.Fatalf("submit_review without position: %v %s; want an isError naming position", err, resultText(res))
	}
	args := map[string]any{"sessionId": sess.ID, "cardId": cur.CardID, "position": cur.Position, "rating": "again"}
	var first, again contracts.ReviewResult
	call(t, cs, "submit_review", args, &first)
	if first.Replayed || first.Next == nil || first.Next.CardID != cur.CardID || first.Next.Position == cur.Position {
		t.Fatalf("first rating: %+v; want the learning step re-queued at a new position", first)
	}
	call(t, cs, "submit_review", args, &again)
	if !again.Replayed || again.NextDue != first.NextDue || again.Reviewed != 1 || again.Next == nil || again.Next.Position != first.Next.Position {
		t.Errorf("identical repeat: %+v; want the first answer, replayed", again)
	}
	args["rating"] = "good"
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "submit_review", Arguments: args})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "already rated") {
		t.Errorf("a different rating for the same showing: %v %s; want a conflict", err, resultText(res))
	}
	rows, err := e.app.Services().Cards.GetCard(contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession}), cur.CardID)
	if err != nil || rows.State.Reps != 1 {
		t.Errorf("the card after one rating and two repeats: reps %d, %v; want 1", rows.State.Reps, err)
	}
}
