package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// DeleteUser deletes an account and every row that belongs to it: its
// API keys, OAuth grants (with their tokens), codes and web sessions first (so no credential outlives the start of
// the deletion), then the user row, from which every other table of the
// account cascades, and its data version (kept without a foreign key). It records the deletion anonymously (an id and a
// time). Not found when the user does not exist.
func (s userStore) DeleteUser(ctx context.Context, userID, recordID string, at time.Time) error {
	return s.atomic(ctx, func(h *handle) error {
		for _, q := range []string{
			`DELETE FROM api_keys WHERE user_id = $1`,
			`DELETE FROM oauth_grants WHERE user_id = $1`, // their tokens cascade
			`DELETE FROM oauth_codes WHERE user_id = $1`,
			`DELETE FROM web_sessions WHERE user_id = $1`,
		} {
			if _, err := h.exec(ctx, q, userID); err != nil {
				return h.s.wrap(ctx, err, "delete account credentials")
			}
		}
		res, err := h.exec(ctx, `DELETE FROM users WHERE id = $1`, userID)
		n, err := h.affected(ctx, res, err, "delete account")
		if err != nil {
			return err
		}
		if n == 0 {
			return notFound("user")
		}
		if _, err := h.exec(ctx, `DELETE FROM account_versions WHERE user_id = $1`, userID); err != nil {
			return h.s.wrap(ctx, err, "delete account version")
		}
		_, err = h.exec(ctx, `INSERT INTO account_deletions (id, deleted_at) VALUES ($1, $2)`, recordID, ms(at))
		return h.fail(ctx, err, "record account deletion", failMsgs{unique: "a deletion record with this id already exists"})
	})
}

// CountDeletions counts the anonymous records of deleted accounts.
func (s userStore) CountDeletions(ctx context.Context) (int, error) {
	var n int
	if err := s.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM account_deletions`).Scan(&n); err != nil {
		return 0, s.s.wrap(ctx, err, "count account deletions")
	}
	return n, nil
}

// ReviewsOfCards returns the ids, cards and times of the review logs of
// the user's cards with these ids, a chunk of ids a query.
func (s reviewStore) ReviewsOfCards(ctx context.Context, userID string, cardIDs []string) ([]ports.ReviewLog, error) {
	out := []ports.ReviewLog{}
	for _, chunk := range chunks(dedupe(cardIDs), inChunk) {
		var a args
		u := a.add(userID)
		rows, err := s.q.QueryContext(ctx, `SELECT id, card_id, reviewed_at FROM `+liveReviews(u, "id", "user_id", "card_id", "reviewed_at")+
			` WHERE user_id = `+u+` AND card_id IN (`+list(&a, chunk)+`)`, a...)
		if err != nil {
			return nil, s.s.wrap(ctx, err, "reviews of cards")
		}
		for rows.Next() {
			r := ports.ReviewLog{UserID: userID}
			var at int64
			if err := rows.Scan(&r.ID, &r.CardID, &at); err != nil {
				rows.Close()
				return nil, s.s.wrap(ctx, err, "reviews of cards")
			}
			r.ReviewedAt = fromMs(at)
			out = append(out, r)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, s.s.wrap(ctx, err, "reviews of cards")
		}
	}
	return out, nil
}

// listReviewCols are the columns ListReviews reads, in its order.
var listReviewCols = []string{"id", "card_id", "deck_id", "session_id", "rating", "prev_phase", "phase", "due", "stability",
	"difficulty", "scheduled_days", "reps", "lapses", "step", "last_review", "reviewed_at", "duration_ms"}

// ListReviews returns up to limit of a user's review logs with ids greater
// than afterID, ordered by id.
func (s reviewStore) ListReviews(ctx context.Context, userID, afterID string, limit int) ([]ports.ReviewLog, error) {
	if limit <= 0 {
		return []ports.ReviewLog{}, nil
	}
	// Each half is read in id order up to limit, so a page costs limit
	// rows of each, not the account's logs after afterID.
	rows, err := s.q.QueryContext(ctx, `SELECT * FROM (SELECT `+strings.Join(listReviewCols, ", ")+` FROM review_logs
WHERE user_id = $1 AND id > $2 AND kind NOT IN (`+undoneKinds+`) ORDER BY id LIMIT $3) a UNION ALL SELECT * FROM (`+
		stagedReviews("$1", listReviewCols)+` AND s.id > $2 ORDER BY s.id LIMIT $3) b ORDER BY 1 LIMIT $3`,
		userID, afterID, limit)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "list reviews")
	}
	return s.scanListed(ctx, rows, userID, "list reviews")
}

// CardReviews returns up to limit of the review logs of one of the user's
// cards, newest first.
func (s reviewStore) CardReviews(ctx context.Context, userID, cardID string, limit int) ([]ports.ReviewLog, error) {
	if limit <= 0 {
		return []ports.ReviewLog{}, nil
	}
	rows, err := s.q.QueryContext(ctx, `SELECT `+strings.Join(listReviewCols, ", ")+` FROM `+liveReviews("$1", slices.Concat(listReviewCols, []string{"kind"})...)+
		` WHERE card_id = $2 AND kind NOT IN (`+undoneKinds+`) ORDER BY reviewed_at DESC, id DESC LIMIT $3`, userID, cardID, limit)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "card reviews")
	}
	return s.scanListed(ctx, rows, userID, "card reviews")
}

// scanListed reads and closes rows of listReviewCols.
func (s reviewStore) scanListed(ctx context.Context, rows *sql.Rows, userID, what string) ([]ports.ReviewLog, error) {
	defer rows.Close()
	out := []ports.ReviewLog{}
	for rows.Next() {
		r := ports.ReviewLog{UserID: userID}
		var session sql.NullString
		var rating, prev, phase string
		var due, reviewed int64
		var last, duration sql.NullInt64
		if err := rows.Scan(&r.ID, &r.CardID, &r.DeckID, &session, &rating, &prev, &phase, &due, &r.State.Stability,
			&r.State.Difficulty, &r.State.ScheduledDays, &r.State.Reps, &r.State.Lapses, &r.State.Step, &last, &reviewed, &duration); err != nil {
			return nil, s.s.wrap(ctx, err, what)
		}
		r.SessionID = session.String
		r.Rating, r.PrevPhase, r.State.Phase = contracts.Rating(rating), contracts.Phase(prev), contracts.Phase(phase)
		r.State.Due, r.State.LastReview, r.ReviewedAt = fromMs(due), fromNullMs(last), fromMs(reviewed)
		r.DurationMs = int(duration.Int64)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, what)
	}
	return out, nil
}
