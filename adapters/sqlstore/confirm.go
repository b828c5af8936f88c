package sqlstore

import (
	"context"
	"encoding/json"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// confirmStore is the confirmation store on one handle.
type confirmStore struct{ *handle }

// Confirmations returns the confirmation store on h.
func (h *handle) Confirmations() ports.ConfirmationStore { return confirmStore{h} }

// Confirmations returns the confirmation store outside any transaction.
func (s *Store) Confirmations() ports.ConfirmationStore { return s.root.Confirmations() }

// CreateConfirmation inserts a confirmation. Not found when the user does not exist.
func (s confirmStore) CreateConfirmation(ctx context.Context, c ports.ConfirmationRow) error {
	preview, err := json.Marshal(c.Preview)
	if err != nil {
		return contracts.Internal(err)
	}
	_, err = s.exec(ctx, `INSERT INTO confirmations (hash, user_id, tool, args_hash, preview, state, created_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, c.Hash, c.UserID, c.Tool, c.ArgsHash, string(preview), string(c.State), ms(c.CreatedAt), ms(c.ExpiresAt))
	return s.fail(ctx, err, "create confirmation", failMsgs{fk: "user not found", unique: "this confirmation already exists"})
}

// ConfirmationByHash returns any user's confirmation. Not found when absent.
func (s confirmStore) ConfirmationByHash(ctx context.Context, hash []byte) (ports.ConfirmationRow, error) {
	c := ports.ConfirmationRow{Hash: hash}
	var preview, state string
	var created, expires int64
	err := s.q.QueryRowContext(ctx, `SELECT user_id, tool, args_hash, preview, state, created_at, expires_at FROM confirmations WHERE hash = $1`, hash).
		Scan(&c.UserID, &c.Tool, &c.ArgsHash, &preview, &state, &created, &expires)
	if errNoRows(err) {
		return c, notFound("confirmation")
	}
	if err != nil {
		return c, s.s.wrap(ctx, err, "get confirmation")
	}
	if err := json.Unmarshal([]byte(preview), &c.Preview); err != nil {
		return c, s.s.wrap(ctx, err, "get confirmation")
	}
	c.State, c.CreatedAt, c.ExpiresAt = contracts.ConfirmState(state), fromMs(created), fromMs(expires)
	return c, nil
}

// MoveConfirmation sets the state to to when it is from and the
// confirmation has not expired at at: one statement, so two answers or
// two uses cannot both move it.
func (s confirmStore) MoveConfirmation(ctx context.Context, hash []byte, from, to contracts.ConfirmState, at time.Time) (bool, error) {
	res, err := s.exec(ctx, `UPDATE confirmations SET state = $3 WHERE hash = $1 AND state = $2 AND expires_at > $4`, hash, string(from), string(to), ms(at))
	n, err := s.affected(ctx, res, err, "move confirmation")
	return n == 1, err
}
