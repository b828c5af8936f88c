package identity

import (
	"context"
	"crypto/subtle"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// confirmSecretBits is the entropy of a confirmation id.
const confirmSecretBits = 160

// ConfirmService keeps the person's answers to agents' big calls (issue
// 26 §3). A confirmation's id is a secret shown once, in the link the
// agent hands on; only its SHA-256 is stored, and it is bound to its
// user, the tool and a hash of the call's arguments: one answer, one use,
// contracts.ConfirmTTL.
type ConfirmService struct{ *kernel.Deps }

var _ ports.ConfirmService = (*ConfirmService)(nil)

// Ask stores a pending confirmation for the acting user's call.
func (s *ConfirmService) Ask(ctx context.Context, req contracts.ConfirmRequest) (contracts.Confirmation, error) {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return contracts.Confirmation{}, err
	}
	now := s.Now()
	id := contracts.ConfirmationPrefix + s.IDs.Secret(confirmSecretBits)
	c := contracts.Confirmation{Tool: req.Tool, Preview: req.Preview, State: contracts.ConfirmPending,
		CreatedAt: now, ExpiresAt: now.Add(contracts.ConfirmTTL)}
	row := ports.ConfirmationRow{Confirmation: c, Hash: kernel.TokenHash(id), UserID: p.UserID, ArgsHash: req.ArgsHash}
	if err := s.Store.Confirmations().CreateConfirmation(ctx, row); err != nil {
		return contracts.Confirmation{}, kernel.Fail(err)
	}
	c.ID = id
	return c, nil
}

// mine reads the acting user's live confirmation by id: not found for a
// malformed, unknown, expired or another user's id alike.
func (s *ConfirmService) mine(ctx context.Context, p contracts.Principal, id string) (ports.ConfirmationRow, error) {
	missing := contracts.Errorf(contracts.KindNotFound,
		"no such confirmation: it is unknown, expired (they last %d minutes) or another person's. Call the tool again without %s for a new link",
		int(contracts.ConfirmTTL.Minutes()), contracts.ConfirmArg)
	if !strings.HasPrefix(id, contracts.ConfirmationPrefix) || len(id) > 128 {
		return ports.ConfirmationRow{}, missing
	}
	row, err := s.Store.Confirmations().ConfirmationByHash(ctx, kernel.TokenHash(id))
	if contracts.IsKind(err, contracts.KindNotFound) {
		return row, missing
	}
	if err != nil {
		return row, kernel.Fail(err)
	}
	if subtle.ConstantTimeCompare([]byte(row.UserID), []byte(p.UserID)) != 1 || !s.Now().Before(row.ExpiresAt) {
		return row, missing
	}
	return row, nil
}

// Confirmation returns the signed-in person's confirmation by id.
func (s *ConfirmService) Confirmation(ctx context.Context, id string) (contracts.Confirmation, error) {
	p, err := webPerson(ctx)
	if err != nil {
		return contracts.Confirmation{}, err
	}
	row, err := s.mine(ctx, p, id)
	if err != nil {
		return contracts.Confirmation{}, err
	}
	return row.Confirmation, nil
}

// Answer approves or declines the signed-in person's pending
// confirmation. Only the web app answers: an agent's own credential never
// confirms its call.
func (s *ConfirmService) Answer(ctx context.Context, id string, approve bool) (contracts.Confirmation, error) {
	p, err := webPerson(ctx)
	if err != nil {
		return contracts.Confirmation{}, err
	}
	row, err := s.mine(ctx, p, id)
	if err != nil {
		return contracts.Confirmation{}, err
	}
	to := contracts.ConfirmDeclined
	if approve {
		to = contracts.ConfirmApproved
	}
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		now := s.Now()
		moved, err := tx.Confirmations().MoveConfirmation(ctx, row.Hash, contracts.ConfirmPending, to, now)
		if err != nil {
			return kernel.Fail(err)
		}
		if !moved {
			return contracts.Errorf(contracts.KindConflict, "this call was answered already")
		}
		return kernel.RecordEvent(ctx, tx, s.IDs, now, p, contracts.AuditAnswerCall,
			map[string]any{"tool": row.Tool, "answer": string(to), "count": row.Preview.Count})
	})
	if err != nil {
		return contracts.Confirmation{}, err
	}
	row.State = to
	return row.Confirmation, nil
}

// Use spends the acting user's answered confirmation on the retry of its
// call and returns the answer.
func (s *ConfirmService) Use(ctx context.Context, id string, req contracts.ConfirmRequest) (contracts.ConfirmState, error) {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return "", err
	}
	row, err := s.mine(ctx, p, id)
	if err != nil {
		return "", err
	}
	if row.Tool != req.Tool || subtle.ConstantTimeCompare(row.ArgsHash, req.ArgsHash) != 1 {
		return "", contracts.Errorf(contracts.KindInvalid,
			"this confirmation is for another call (%s with the arguments the person saw); retry that call with the same arguments, or call again without %s for a new link",
			row.Tool, contracts.ConfirmArg)
	}
	switch row.State {
	case contracts.ConfirmPending:
		return "", contracts.Errorf(contracts.KindConflict, "the person has not answered yet: ask them to open the link, then retry")
	case contracts.ConfirmUsed:
		return "", contracts.Errorf(contracts.KindConflict, "this confirmation was used already; call again without %s for a new link", contracts.ConfirmArg)
	}
	moved, err := s.Store.Confirmations().MoveConfirmation(ctx, row.Hash, row.State, contracts.ConfirmUsed, s.Now())
	if err != nil {
		return "", kernel.Fail(err)
	}
	if !moved {
		return "", contracts.Errorf(contracts.KindConflict, "this confirmation was used already; call again without %s for a new link", contracts.ConfirmArg)
	}
	return row.State, nil
}
