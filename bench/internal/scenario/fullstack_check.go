package scenario

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/takhtabush/takhtabush/bench/internal/fixture"
)

// deckPage is the structured output of the service's list_decks.
type deckPage struct {
	Items []struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Settings struct {
			PresetID         string    `json:"presetId"`
			DesiredRetention float64   `json:"desiredRetention"`
			Weights          []float64 `json:"weights"`
		} `json:"settings"`
		Counts struct {
			Total int `json:"total"`
			New   int `json:"new"`
		} `json:"counts"`
	} `json:"items"`
	NextCursor string `json:"nextCursor"`
}

func checkFullListDecks(r *Response) error {
	res, err := decodeToolResult(r, "3")
	if err != nil {
		return err
	}
	var page deckPage
	if err := json.Unmarshal(res.StructuredContent, &page); err != nil {
		return fmt.Errorf("structuredContent: %w", err)
	}
	want := fixture.Decks()
	if len(page.Items) != len(want) || page.NextCursor != "" {
		return fmt.Errorf("got %d decks (next cursor %q), want all %d on one page", len(page.Items), page.NextCursor, len(want))
	}
	for i, d := range page.Items {
		if d.ID == "" || d.Name != want[i].Name || d.Counts.Total != ReaderDeckCards(i) || d.Counts.New != ReaderDeckCards(i) {
			return fmt.Errorf("deck %d = %q with %d cards (%d new), want %q with %d new cards",
				i, d.Name, d.Counts.Total, d.Counts.New, want[i].Name, ReaderDeckCards(i))
		}
		// Every seeded deck has its own preset: the answer carries the
		// deck's effective settings, the preset's scheduling fields over
		// the deck's own (retention and the 21 FSRS weights).
		if s := d.Settings; s.PresetID == "" || s.DesiredRetention <= 0 || len(s.Weights) != 21 {
			return fmt.Errorf("deck %d (%q) settings lack its preset's: preset %q, retention %v, %d weights",
				i, d.Name, s.PresetID, s.DesiredRetention, len(s.Weights))
		}
	}
	return nil
}

func checkSubmitReview(r *Response) error {
	res, err := decodeToolResult(r, "4")
	if err != nil {
		return err
	}
	if err := res.auditWritten(); err != nil {
		return err
	}
	var out struct {
		SessionID string    `json:"sessionId"`
		CardID    string    `json:"cardId"`
		Rating    string    `json:"rating"`
		NextDue   time.Time `json:"nextDue"`
	}
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		return fmt.Errorf("structuredContent: %w", err)
	}
	if out.SessionID == "" || out.CardID == "" || out.Rating != ReviewRating {
		return fmt.Errorf("review result names session %q, card %q, rating %q", out.SessionID, out.CardID, out.Rating)
	}
	if out.NextDue.IsZero() {
		return fmt.Errorf("review result has no next due date: %.300s", res.StructuredContent)
	}
	return nil
}

func checkAddCards(r *Response) error {
	res, err := decodeToolResult(r, "5")
	if err != nil {
		return err
	}
	if err := res.auditWritten(); err != nil {
		return err
	}
	var out struct {
		Items []struct {
			Status string `json:"status"`
			ID     string `json:"id"`
		} `json:"items"`
		Counts map[string]int `json:"counts"`
	}
	if err := json.Unmarshal(res.StructuredContent, &out); err != nil {
		return fmt.Errorf("structuredContent: %w", err)
	}
	if len(out.Items) != CardsPerAdd || out.Counts["created"] != CardsPerAdd {
		return fmt.Errorf("add_cards: %d outcomes, counts %v; want %d created", len(out.Items), out.Counts, CardsPerAdd)
	}
	for i, it := range out.Items {
		if it.Status != "created" || it.ID == "" {
			return fmt.Errorf("add_cards item %d: status %q, id %q; want created", i, it.Status, it.ID)
		}
	}
	return nil
}

// auditWritten fails when the service reported that the call's audit row
// could not be written.
func (res *toolResult) auditWritten() error {
	if failed, _ := res.Meta[metaAuditFailed].(bool); failed {
		return fmt.Errorf("the audit row was not written (_meta %s)", metaAuditFailed)
	}
	return nil
}
