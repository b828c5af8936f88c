package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// itemChunk bounds the rows of one multi-row queue INSERT (4 placeholders a row).
const itemChunk = 1000

// CreateSession inserts a session with its queue (positions 0..n-1). Not
// found when the deck or a card is not the session's user's; conflict on a
// duplicate id.
func (s sessionStore) CreateSession(ctx context.Context, r ports.StudySessionRow, cardIDs []string) error {
	return s.atomic(ctx, func(h *handle) error {
		mode := r.Mode
		if mode == "" {
			mode = "normal"
		}
		_, err := h.exec(ctx, `INSERT INTO study_sessions (id, user_id, deck_id, started_at, expires_at, mode) VALUES ($1, $2, $3, $4, $5, $6)`,
			r.ID, r.UserID, r.DeckID, ms(r.StartedAt), ms(r.ExpiresAt), mode)
		if err != nil {
			return h.fail(ctx, err, "create session", failMsgs{unique: "a session with this id already exists", fk: "deck not found"})
		}
		return h.insertItems(ctx, r.UserID, r.ID, 0, cardIDs)
	})
}

// insertItems appends queue entries from position first on.
func (h *handle) insertItems(ctx context.Context, userID, sessionID string, first int, cardIDs []string) error {
	var b strings.Builder
	pos := first
	for _, chunk := range chunks(cardIDs, itemChunk) {
		b.Reset()
		b.WriteString(`INSERT INTO study_session_items (session_id, position, user_id, card_id) VALUES `)
		a := make(args, 0, len(chunk)*4)
		for i, id := range chunk {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`(` + seq(&a, h.s.d, []any{sessionID, pos, userID, id}) + `)`)
			pos++
		}
		if _, err := h.exec(ctx, b.String(), a...); err != nil {
			return h.fail(ctx, err, "insert queue", failMsgs{unique: "the session queue changed concurrently; retry", fk: "card not found"})
		}
	}
	return nil
}

// GetSession returns a session. Not found when absent or another user's.
func (s sessionStore) GetSession(ctx context.Context, userID, sessionID string) (ports.StudySessionRow, error) {
	r := ports.StudySessionRow{ID: sessionID, UserID: userID}
	var started, expires int64
	err := s.q.QueryRowContext(ctx, `SELECT deck_id, started_at, expires_at, mode FROM study_sessions WHERE user_id = $1 AND id = $2`,
		userID, sessionID).Scan(&r.DeckID, &started, &expires, &r.Mode)
	if errNoRows(err) {
		return ports.StudySessionRow{}, notFound("study session")
	}
	if err != nil {
		return ports.StudySessionRow{}, s.s.wrap(ctx, err, "get session")
	}
	r.StartedAt, r.ExpiresAt = fromMs(started), fromMs(expires)
	return r, nil
}

// checkSession fails not found unless the session is the user's.
func (h *handle) checkSession(ctx context.Context, userID, sessionID string) error {
	ok, err := h.exists(ctx, "find session", `SELECT 1 FROM study_sessions WHERE user_id = $1 AND id = $2`, userID, sessionID)
	if err != nil {
		return err
	}
	if !ok {
		return notFound("study session")
	}
	return nil
}

// NextItem returns the pending item with the lowest position, or nil when
// none is pending. Not found when the session is absent or another user's.
func (s sessionStore) NextItem(ctx context.Context, userID, sessionID string) (*ports.SessionItem, error) {
	it, err := s.item(ctx, `SELECT position, card_id, reviewed_at FROM study_session_items
WHERE user_id = $1 AND session_id = $2 AND reviewed_at IS NULL ORDER BY position LIMIT 1`, userID, sessionID)
	if errNoRows(err) {
		if err := s.checkSession(ctx, userID, sessionID); err != nil {
			return nil, err
		}
		return nil, nil
	}
	if err != nil {
		return nil, s.s.wrap(ctx, err, "next item")
	}
	return &it, nil
}

// PendingItem returns the card's pending item with the lowest position.
// Not found when the card has no pending item in the user's session.
func (s sessionStore) PendingItem(ctx context.Context, userID, sessionID, cardID string) (ports.SessionItem, error) {
	it, err := s.item(ctx, `SELECT position, card_id, reviewed_at FROM study_session_items
WHERE user_id = $1 AND session_id = $2 AND card_id = $3 AND reviewed_at IS NULL ORDER BY position LIMIT 1`, userID, sessionID, cardID)
	if errNoRows(err) {
		return ports.SessionItem{}, contracts.Errorf(contracts.KindNotFound, "the card is not pending in this study session")
	}
	if err != nil {
		return ports.SessionItem{}, s.s.wrap(ctx, err, "pending item")
	}
	return it, nil
}

// item reads one queue entry; the error is sql.ErrNoRows when there is none.
func (h *handle) item(ctx context.Context, query string, a ...any) (ports.SessionItem, error) {
	var it ports.SessionItem
	var reviewed sql.NullInt64
	if err := h.q.QueryRowContext(ctx, query, a...).Scan(&it.Position, &it.CardID, &reviewed); err != nil {
		return ports.SessionItem{}, err
	}
	it.ReviewedAt = fromNullMs(reviewed)
	return it, nil
}

// CompleteItem marks an item reviewed. Conflict when it was already
// reviewed (a concurrent review won); not found when absent.
func (s sessionStore) CompleteItem(ctx context.Context, userID, sessionID string, position int, at time.Time) error {
	res, err := s.exec(ctx, `UPDATE study_session_items SET reviewed_at = $4
WHERE user_id = $1 AND session_id = $2 AND position = $3 AND reviewed_at IS NULL`, userID, sessionID, position, ms(at))
	n, err := s.affected(ctx, res, err, "complete item")
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	return s.unchangedItem(ctx, userID, sessionID, position, "this card was already reviewed in the session")
}

// unchangedItem explains why an item update changed no row: not found when
// the item is absent, else conflict with msg (it was not in the state the
// update needs).
func (h *handle) unchangedItem(ctx context.Context, userID, sessionID string, position int, msg string) error {
	ok, err := h.exists(ctx, "find item", `SELECT 1 FROM study_session_items WHERE user_id = $1 AND session_id = $2 AND position = $3`,
		userID, sessionID, position)
	if err != nil {
		return err
	}
	if !ok {
		return contracts.Errorf(contracts.KindNotFound, "study session item not found")
	}
	return contracts.Errorf(contracts.KindConflict, "%s", msg)
}

// AppendItem adds a card at the end of the queue. Not found when the
// session or the card is not the user's; conflict when a concurrent append
// took the same position.
func (s sessionStore) AppendItem(ctx context.Context, userID, sessionID, cardID string) error {
	// One statement in the common case: the session and the card must be
	// the user's (a join, so a missing one inserts nothing instead of
	// failing the caller's transaction), the position is one past the
	// last, and a concurrent append that took it first inserts nothing.
	res, err := s.exec(ctx, `INSERT INTO study_session_items (session_id, position, user_id, card_id)
SELECT s.id, COALESCE((SELECT MAX(i.position) + 1 FROM study_session_items i WHERE i.session_id = s.id), 0), s.user_id, c.id
FROM study_sessions s JOIN cards c ON c.user_id = s.user_id AND c.id = $3
WHERE s.user_id = $1 AND s.id = $2
ON CONFLICT (session_id, position) DO NOTHING`, userID, sessionID, cardID)
	n, err := s.affected(ctx, res, err, "append item")
	if err != nil || n == 1 {
		return err
	}
	// Nothing inserted: say why.
	if err := s.checkSession(ctx, userID, sessionID); err != nil {
		return err
	}
	ok, err := s.exists(ctx, "find card", `SELECT 1 FROM cards WHERE user_id = $1 AND id = $2`, userID, cardID)
	if err != nil {
		return err
	}
	if !ok {
		return notFound("card")
	}
	return contracts.Errorf(contracts.KindConflict, "a concurrent append took the position; retry")
}

// Progress counts reviewed and pending items. Not found when the session
// is absent or another user's.
func (s sessionStore) Progress(ctx context.Context, userID, sessionID string) (reviewed, remaining int, err error) {
	err = s.q.QueryRowContext(ctx, `SELECT COALESCE(SUM(CASE WHEN reviewed_at IS NULL THEN 0 ELSE 1 END), 0),
COALESCE(SUM(CASE WHEN reviewed_at IS NULL THEN 1 ELSE 0 END), 0)
FROM study_session_items WHERE user_id = $1 AND session_id = $2`, userID, sessionID).Scan(&reviewed, &remaining)
	if err != nil {
		return 0, 0, s.s.wrap(ctx, err, "session progress")
	}
	if reviewed+remaining == 0 {
		if err := s.checkSession(ctx, userID, sessionID); err != nil {
			return 0, 0, err
		}
	}
	return reviewed, remaining, nil
}
