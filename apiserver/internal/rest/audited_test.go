package rest_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"go.uber.org/mock/gomock"
)

// TestMutationsWriteToolAuditRows: every REST mutation that does what an
// MCP tool does writes that tool's audit row: its name and action, the
// arguments as the tool takes them, the ids the result names, the outcome
// (an error with its kind too); reads and dry runs write none.
func TestMutationsWriteToolAuditRows(t *testing.T) {
	m := newMocked(t)
	m.decks.EXPECT().CreateDeck(gomock.Any(), gomock.Any()).Return(contracts.Deck{ID: "d1"}, nil)
	m.decks.EXPECT().UpdateDeck(gomock.Any(), gomock.Any()).Return(contracts.Deck{ID: "d1"}, nil)
	m.decks.EXPECT().DeleteDeck(gomock.Any(), contracts.DeleteDeckArgs{DeckID: "d2"}).Return(contracts.DeleteResult{ID: "d2", Deleted: true, CardsDeleted: 3}, nil)
	m.decks.EXPECT().DeleteDeck(gomock.Any(), contracts.DeleteDeckArgs{DeckID: "d9"}).Return(contracts.DeleteResult{}, contracts.Errorf(contracts.KindNotFound, "deck d9 not found"))
	m.cards.EXPECT().AddCards(gomock.Any(), gomock.Any()).Return(contracts.BulkResult{DeckID: "d1", Items: []contracts.ItemOutcome{
		{Index: 0, Status: contracts.OutcomeCreated, ID: "c1"}, {Index: 1, Status: contracts.OutcomeDuplicate, ExistingID: "c0"}}}, nil)
	m.cards.EXPECT().ImportCards(gomock.Any(), gomock.Any()).Return(contracts.BulkResult{DeckID: "d1"}, nil)
	m.cards.EXPECT().UpdateCards(gomock.Any(), gomock.Any()).Return(contracts.BulkResult{Items: []contracts.ItemOutcome{{Status: contracts.OutcomeUpdated, ID: "c1"}}}, nil)
	m.cards.EXPECT().UpdateCards(gomock.Any(), contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: "c1", Back: ptr("y")}}, DryRun: true}).
		Return(contracts.BulkResult{Items: []contracts.ItemOutcome{{Status: contracts.OutcomeUpdated, ID: "c1"}}, DryRun: true}, nil)
	m.cards.EXPECT().DeleteCards(gomock.Any(), gomock.Any()).Return(contracts.BulkResult{Items: []contracts.ItemOutcome{{Status: contracts.OutcomeDeleted, ID: "c1"}}}, nil)
	m.study.EXPECT().StartSession(gomock.Any(), gomock.Any()).Return(contracts.StudySession{ID: "s1", DeckID: "d1"}, nil)
	m.study.EXPECT().SubmitReview(gomock.Any(), gomock.Any()).Return(contracts.ReviewResult{SessionID: "s1", CardID: "c1"}, nil)
	m.decks.EXPECT().GetDeck(gomock.Any(), "d1").Return(contracts.Deck{ID: "d1"}, nil)

	for _, c := range []struct {
		method, target, body string
		status               int
		tool, action         string
		affected             []string
		outcome              contracts.AuditOutcome
		input                string // a key of the input summary
	}{
		{"POST", "/api/decks", `{"name":"Verbs"}`, http.StatusCreated, contracts.ToolCreateDeck, "deck.create", []string{"d1"}, contracts.AuditOK, "name"},
		{"PATCH", "/api/decks/d1", `{"name":"Nouns"}`, http.StatusOK, contracts.ToolUpdateDeck, "deck.update", []string{"d1"}, contracts.AuditOK, "deckId"},
		{"DELETE", "/api/decks/d2", "", http.StatusOK, contracts.ToolDeleteDeck, "deck.delete", []string{"d2"}, contracts.AuditOK, "deckId"},
		{"DELETE", "/api/decks/d9", "", http.StatusNotFound, contracts.ToolDeleteDeck, "deck.delete", []string{"d9"}, contracts.AuditError, "deckId"},
		{"POST", "/api/decks/d1/cards", `{"cards":[{"front":"a","back":"b"},{"front":"c","back":"d"}]}`, http.StatusOK, contracts.ToolAddCards, "cards.add", []string{"d1", "c1"}, contracts.AuditOK, "cards"},
		{"POST", "/api/decks/d1/import", `{"text":"a,b"}`, http.StatusOK, contracts.ToolImportCards, "cards.import", []string{"d1"}, contracts.AuditOK, "text"},
		{"PATCH", "/api/cards", `{"updates":[{"id":"c1","front":"x"}]}`, http.StatusOK, contracts.ToolUpdateCards, "cards.update", []string{"c1"}, contracts.AuditOK, "updates"},
		{"POST", "/api/cards/delete", `{"cardIds":["c1"]}`, http.StatusOK, contracts.ToolDeleteCards, "cards.delete", []string{"c1"}, contracts.AuditOK, "cardIds"},
		{"POST", "/api/decks/d1/study-sessions", "", http.StatusCreated, contracts.ToolStartStudySession, "", []string{"s1", "d1"}, contracts.AuditOK, "deckId"},
		{"POST", "/api/study-sessions/s1/reviews", `{"cardId":"c1","position":0,"rating":"good"}`, http.StatusOK, contracts.ToolSubmitReview, "", []string{"s1", "c1"}, contracts.AuditOK, "rating"},
		{"PATCH", "/api/cards", `{"updates":[{"id":"c1","back":"y"}],"dryRun":true}`, http.StatusOK, "", "", nil, "", ""}, // a preview: no row
		{"GET", "/api/decks/d1", "", http.StatusOK, "", "", nil, "", ""},
	} {
		before := len(*m.audited)
		w := serve(t, m.h, webUser, c.method, c.target, c.body)
		if w.Code != c.status {
			t.Errorf("%s %s: status %d, want %d; %s", c.method, c.target, w.Code, c.status, w.Body)
			continue
		}
		rows := (*m.audited)[before:]
		if c.tool == "" {
			if len(rows) != 0 {
				t.Errorf("%s %s (a read) wrote audit rows %+v", c.method, c.target, rows)
			}
			continue
		}
		if len(rows) != 1 {
			t.Errorf("%s %s wrote %d audit rows, want 1", c.method, c.target, len(rows))
			continue
		}
		e := rows[0]
		def, _ := contracts.Tool(c.tool)
		var input map[string]any
		if err := json.Unmarshal(e.InputSummary, &input); err != nil {
			t.Errorf("%s %s: input summary %s: %v", c.method, c.target, e.InputSummary, err)
		}
		if _, ok := input[c.input]; e.Tool != c.tool || e.Action != def.AuditAction || (c.action != "" && e.Action != c.action) ||
			e.Outcome != c.outcome || !slices.Equal(e.AffectedIDs, c.affected) || !ok {
			t.Errorf("%s %s: audit row %+v (input %s); want tool %s, action %s, outcome %s, affected %v, input with %q",
				c.method, c.target, e, e.InputSummary, c.tool, def.AuditAction, c.outcome, c.affected, c.input)
		}
		if c.outcome == contracts.AuditError && e.ErrorKind != contracts.KindNotFound {
			t.Errorf("%s %s: error kind %q, want not_found", c.method, c.target, e.ErrorKind)
		}
	}
}
