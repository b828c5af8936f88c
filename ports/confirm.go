package ports

import (
	"context"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// ConfirmationRow is a stored confirmation, by the SHA-256 of its id (the
// record's ID is empty): its user and the hash of the arguments of the
// call it answers.
type ConfirmationRow struct {
	contracts.Confirmation
	Hash     []byte
	UserID   string
	ArgsHash []byte
}

// ConfirmationStore keeps the confirmations of agents' big calls.
type ConfirmationStore interface {
	// CreateConfirmation inserts one. Not found when the user does not exist.
	CreateConfirmation(ctx context.Context, c ConfirmationRow) error
	// ConfirmationByHash returns one, whoever's. Not found when absent.
	ConfirmationByHash(ctx context.Context, hash []byte) (ConfirmationRow, error)
	// MoveConfirmation sets a confirmation's state to to when it is in
	// state from and not expired at at; moved is false otherwise (another
	// answer or use came first), so an answer and a use happen once.
	MoveConfirmation(ctx context.Context, hash []byte, from, to contracts.ConfirmState, at time.Time) (moved bool, err error)
}

// ConfirmService keeps the person's answers to agents' big calls (issue
// 26 §3): the surface asks for one when a call's dry run passes the
// account's threshold, the web page shows it to the signed-in person who
// approves or declines it, and the agent's retry uses it once.
type ConfirmService interface {
	// Ask stores a pending confirmation for the acting user and returns
	// it with its id (the only time the id is shown).
	Ask(ctx context.Context, req contracts.ConfirmRequest) (contracts.Confirmation, error)
	// Confirmation returns the acting person's confirmation by id. Not
	// found for an unknown, expired or another user's id.
	Confirmation(ctx context.Context, id string) (contracts.Confirmation, error)
	// Answer approves or declines the acting person's pending
	// confirmation. Not found as Confirmation; conflict when it was
	// answered already.
	Answer(ctx context.Context, id string, approve bool) (contracts.Confirmation, error)
	// Use spends the acting user's answered confirmation on the retry of
	// the call it was asked for (same tool, same arguments) and returns
	// its state before (approved or declined). Not found for a forged,
	// expired or another user's id; invalid for another call's; conflict
	// when it is still pending or was used already.
	Use(ctx context.Context, id string, req contracts.ConfirmRequest) (contracts.ConfirmState, error)
}
