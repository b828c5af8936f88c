package servers

import (
	"context"
	"fmt"

	"github.com/takhtabush/takhtabush/contracts"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// verify checks, through the service, what the run's requests left
// behind: exactly one successful audit row per submit_review and add_cards
// call, written for the writer's key; none for the reader, whose
// list_decks calls only read; and CardsPerAdd cards per add_cards call in
// the decks they filled.
func (sd *seeded) verify(ctx context.Context, calls map[string]int) (string, error) {
	reviews, adds := calls[scenario.SubmitReview], calls[scenario.AddCards]
	events, err := sd.app.AuditTrail(ctx, sd.writer.email, 0)
	if err != nil {
		return "", fmt.Errorf("reading the audit trail: %w", err)
	}
	byTool := map[string]int{}
	for _, e := range events {
		if e.Outcome != contracts.AuditOK || e.CredentialKind != contracts.CredentialAPIKey || e.CredentialID != sd.writer.keyID {
			return "", fmt.Errorf("audit row %s (%s): outcome %s, credential %s %s; want ok by key %s",
				e.ID, e.Tool, e.Outcome, e.CredentialKind, e.CredentialID, sd.writer.keyID)
		}
		byTool[e.Tool]++
	}
	if len(events) != reviews+adds || byTool[scenario.SubmitReview] != reviews || byTool[scenario.AddCards] != adds {
		return "", fmt.Errorf("audit rows: %d (%v), want %d = %d submit_review + %d add_cards successful calls",
			len(events), byTool, reviews+adds, reviews, adds)
	}
	readerEvents, err := sd.app.AuditTrail(ctx, sd.reader.email, 0)
	if err != nil {
		return "", fmt.Errorf("reading the reader's audit trail: %w", err)
	}
	if len(readerEvents) != 0 {
		return "", fmt.Errorf("the list_decks account has %d audit rows; reads write none", len(readerEvents))
	}
	added := 0
	for _, id := range sd.addDecks {
		d, err := sd.app.Services().Decks.GetDeck(sd.writer.in(ctx), id)
		if err != nil {
			return "", err
		}
		added += d.Counts.Total
	}
	if added != scenario.CardsPerAdd*adds {
		return "", fmt.Errorf("the add_cards decks hold %d cards, want %d × %d calls", added, scenario.CardsPerAdd, adds)
	}
	return fmt.Sprintf("audit rows counted through the service: %d = %d submit_review + %d add_cards successful calls, all ok, by the bench key; "+
		"0 for the list_decks account (%d read calls); the add_cards decks gained %d cards (%d × %d)",
		len(events), reviews, adds, calls[scenario.ListDecks], added, scenario.CardsPerAdd, adds), nil
}
