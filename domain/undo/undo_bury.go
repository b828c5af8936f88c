package undo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/study"
	"github.com/takhtabush/takhtabush/ports"
)

// undoBurial puts a card's previous burial back (a card.bury record:
// bury_cards, unbury, a sibling's burial), unless the burial changed
// since: the record's version is the burial it left. Burying keeps the
// card's version, so an edit or a review of the card does not stop it.
// Its own card.bury record undoes it again.
func (s *UndoService) undoBurial(ctx context.Context, tx ports.Stores, p contracts.Principal, r contracts.ChangeRecord, ch *kernel.Changes) (string, error) {
	if !contracts.HasScopes(p.Scopes, []contracts.Scope{contracts.ScopeStudyWrite}) {
		return fmt.Sprintf("putting back card %s's burial needs the study:write scope", r.ItemID), nil
	}
	uid := p.UserID
	rows, err := tx.Cards().GetCards(ctx, uid, []string{r.ItemID})
	if err != nil {
		return "", kernel.Fail(err)
	}
	if len(rows) == 0 {
		return s.goneReason(ctx, tx, uid, r.ItemID)
	}
	cur := rows[0].BuriedUntil
	if study.BurialVersion(cur) != r.Version {
		return fmt.Sprintf("card %s was buried or unburied again after this change; bury_cards or unbury it yourself if needed", r.ItemID), nil
	}
	var prev struct {
		BuriedUntil *time.Time `json:"buriedUntil"`
	}
	if err := json.Unmarshal(r.Prev, &prev); err != nil {
		return "", kernel.Fail(err)
	}
	ok, err := tx.Cards().SetBurial(ctx, uid, r.ItemID, cur, prev.BuriedUntil)
	if err != nil {
		return "", kernel.Fail(err)
	}
	if !ok {
		return fmt.Sprintf("card %s was changed by another request meanwhile; undo again", r.ItemID), nil
	}
	study.AddBurial(ch, r.ItemID, cur, prev.BuriedUntil)
	return "", nil
}
