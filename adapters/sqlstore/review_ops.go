package sqlstore

import (
	"context"
	"database/sql"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// fullReviewCols are every column of a review log, in the order
// scanFullReview reads them.
const fullReviewCols = `id, card_id, deck_id, session_id, rating, prev_phase, phase, due, stability, difficulty,
scheduled_days, reps, lapses, step, last_review, reviewed_at, duration_ms, kind, day, prev_interval, prev_state,
operation_id, credential_id, card_version`

// liveKinds are the kinds of the review logs undo_changes may take back.
const liveKinds = `('` + ports.ReviewKindReview + `', '` + ports.ReviewKindCram + `')`

// OperationReviews returns the user's live review logs written by the
// operations f picks, newest first.
func (s reviewStore) OperationReviews(ctx context.Context, userID string, f contracts.ChangeFilter, beforeID string, limit int) ([]ports.ReviewLog, error) {
	out := []ports.ReviewLog{}
	if limit <= 0 {
		return out, nil
	}
	var a args
	q := `SELECT ` + fullReviewCols + ` FROM review_logs WHERE user_id = ` + a.add(userID) +
		` AND operation_id IS NOT NULL AND kind IN ` + liveKinds
	if len(f.OperationIDs) > 0 {
		q += ` AND operation_id IN (` + list(&a, dedupe(f.OperationIDs)) + `)`
	}
	if f.CredentialID != "" {
		q += ` AND credential_id = ` + a.add(f.CredentialID)
	}
	if !f.Since.IsZero() {
		q += ` AND reviewed_at >= ` + a.add(ms(f.Since))
	}
	if !f.Until.IsZero() {
		q += ` AND reviewed_at < ` + a.add(ms(f.Until))
	}
	if beforeID != "" {
		q += ` AND id < ` + a.add(beforeID)
	}
	q += ` ORDER BY id DESC LIMIT ` + a.add(limit)
	rows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "operation reviews")
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanFullReview(rows, userID)
		if err != nil {
			return nil, s.s.wrap(ctx, err, "operation reviews")
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "operation reviews")
	}
	return out, nil
}

// GetReview returns one of the user's review logs. Not found when absent.
func (s reviewStore) GetReview(ctx context.Context, userID, reviewID string) (ports.ReviewLog, error) {
	rows, err := s.q.QueryContext(ctx, `SELECT `+fullReviewCols+` FROM review_logs WHERE user_id = $1 AND id = $2`, userID, reviewID)
	if err != nil {
		return ports.ReviewLog{}, s.s.wrap(ctx, err, "get review")
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return ports.ReviewLog{}, s.s.wrap(ctx, err, "get review")
		}
		return ports.ReviewLog{}, notFound("review")
	}
	r, err := scanFullReview(rows, userID)
	if err != nil {
		return ports.ReviewLog{}, s.s.wrap(ctx, err, "get review")
	}
	return r, nil
}

// SetReviewKind changes a review log's kind from from to to. Conflict
// when its kind is not from; not found when absent.
func (s reviewStore) SetReviewKind(ctx context.Context, userID, reviewID, from, to string) error {
	res, err := s.exec(ctx, `UPDATE review_logs SET kind = $4 WHERE user_id = $1 AND id = $2 AND kind = $3`, userID, reviewID, from, to)
	n, err := s.affected(ctx, res, err, "set review kind")
	if err != nil {
		return err
	}
	if n == 0 {
		if _, err := s.GetReview(ctx, userID, reviewID); err != nil {
			return err
		}
		return contracts.Errorf(contracts.KindConflict, "the review was taken back or applied again by another request")
	}
	return nil
}

// scanFullReview reads one row of fullReviewCols.
func scanFullReview(rows *sql.Rows, userID string) (ports.ReviewLog, error) {
	r := ports.ReviewLog{UserID: userID}
	var session, prevState, op, cred sql.NullString
	var rating, prev, phase string
	var due, reviewed int64
	var last, duration, day, prevIvl, version sql.NullInt64
	if err := rows.Scan(&r.ID, &r.CardID, &r.DeckID, &session, &rating, &prev, &phase, &due, &r.State.Stability,
		&r.State.Difficulty, &r.State.ScheduledDays, &r.State.Reps, &r.State.Lapses, &r.State.Step, &last, &reviewed,
		&duration, &r.Kind, &day, &prevIvl, &prevState, &op, &cred, &version); err != nil {
		return r, err
	}
	r.SessionID, r.OperationID, r.CredentialID, r.CardVersion = session.String, op.String, cred.String, version.Int64
	r.Rating, r.PrevPhase, r.State.Phase = contracts.Rating(rating), contracts.Phase(prev), contracts.Phase(phase)
	r.State.Due, r.State.LastReview, r.ReviewedAt = fromMs(due), fromNullMs(last), fromMs(reviewed)
	r.DurationMs, r.Day, r.PrevInterval = int(duration.Int64), int(day.Int64), int(prevIvl.Int64)
	var err error
	r.PrevState, err = parseState(prevState)
	return r, err
}
