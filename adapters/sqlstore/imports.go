package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/ports"
)

// The staged tables (migration 00017) have the columns of notes, cards
// and review_logs plus stage_id (import_updates, migration 00025, holds
// the domain's pending updates of rows the account had); these are the columns copied into the
// live tables when a stage is published, the same on both sides.
const (
	stageNoteCols   = `id, user_id, note_type, guid, fields, tags, version, created_at, updated_at`
	stageCardCols   = insertCols
	stageReviewCols = `id, user_id, card_id, deck_id, session_id, rating, prev_phase, phase, due, stability, difficulty,
scheduled_days, reps, lapses, step, last_review, reviewed_at, duration_ms, day, kind, prev_interval, prev_state`
)

// importStageStore is the import staging store on one handle.
type importStageStore struct{ *handle }

// ImportStages returns the import staging store on h.
func (h *handle) ImportStages() ports.ImportStageStore { return importStageStore{h} }

// ImportStages returns the import staging store outside any transaction.
func (s *Store) ImportStages() ports.ImportStageStore { return s.root.ImportStages() }

// CreateStage implements ports.ImportStageStore.
func (s importStageStore) CreateStage(ctx context.Context, st ports.ImportStage, at time.Time) error {
	_, err := s.exec(ctx, `INSERT INTO import_stages (id, user_id, job_id, touched_at) VALUES ($1, $2, $3, $4)`,
		st.ID, st.UserID, nullString(st.JobID), ms(at))
	return s.fail(ctx, err, "create import stage", failMsgs{unique: "the import stage exists already", fk: "user not found"})
}

// TouchStage implements ports.ImportStageStore.
func (s importStageStore) TouchStage(ctx context.Context, stageID string, at time.Time) error {
	_, err := s.exec(ctx, `UPDATE import_stages SET touched_at = $1 WHERE id = $2`, ms(at), stageID)
	return s.s.wrap(ctx, err, "touch import stage")
}

// stageRows inserts rows into a staged table with multi-row INSERTs of at
// most insertBatchSizes rows (few statement shapes, prepared once per
// connection), in the caller's transaction or one of their own.
func stageRows[T any](ctx context.Context, h *handle, op, table, cols string, rows []T, values func(T) []any) error {
	if len(rows) == 0 {
		return nil
	}
	return h.atomicIfOutside(ctx, func(h *handle) error {
		var b strings.Builder
		for _, batch := range batches(rows) {
			b.Reset()
			b.WriteString(`INSERT INTO ` + table + ` (stage_id, ` + cols + `) VALUES `)
			var a args
			for i, r := range batch {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteByte('(')
				b.WriteString(seq(&a, h.s.d, values(r)))
				b.WriteByte(')')
			}
			if _, err := h.execBulk(ctx, b.String(), a...); err != nil {
				return h.fail(ctx, err, op, failMsgs{unique: "a staged row exists already", fk: "import stage not found"})
			}
		}
		return nil
	})
}

// StageNotes implements ports.ImportStageStore.
func (s importStageStore) StageNotes(ctx context.Context, userID, stageID string, notes []ports.NoteRow) error {
	return stageRows(ctx, s.handle, "stage notes", "import_notes", stageNoteCols, notes, func(n ports.NoteRow) []any {
		return []any{stageID, n.ID, userID, n.NoteType, n.GUID, stringsJSON(n.Fields), stringsJSON(n.Tags), int64(1), ms(n.CreatedAt), ms(n.UpdatedAt)}
	})
}

// StageCards implements ports.ImportStageStore.
func (s importStageStore) StageCards(ctx context.Context, userID, stageID string, cards []ports.CardRow) error {
	return stageRows(ctx, s.handle, "stage cards", "import_cards", stageCardCols, cards, func(c ports.CardRow) []any {
		return []any{stageID, c.ID, userID, c.DeckID, c.Front, c.Back, stringsJSON(c.Tags), c.Suspended,
			string(c.State.Phase), ms(c.State.Due), c.State.Stability, c.State.Difficulty, c.State.ScheduledDays,
			c.State.Reps, c.State.Lapses, c.State.Step, msPtr(c.State.LastReview), c.Hash, int64(1),
			ms(c.CreatedAt), ms(c.UpdatedAt), nullString(c.NoteID), nullOrd(c.NoteID, c.Ord)}
	})
}

// StageReviews implements ports.ImportStageStore.
func (s importStageStore) StageReviews(ctx context.Context, userID, stageID string, reviews []ports.ReviewLog) error {
	for _, r := range reviews {
		if _, err := stateJSON(r.PrevState); err != nil {
			return s.s.wrap(ctx, err, "stage reviews")
		}
	}
	return stageRows(ctx, s.handle, "stage reviews", "import_review_logs", stageReviewCols, reviews, func(r ports.ReviewLog) []any {
		v := reviewValues(r)
		v[1] = userID
		return append([]any{stageID}, v...)
	})
}

// StageUpdates implements ports.ImportStageStore.
func (s importStageStore) StageUpdates(ctx context.Context, stageID string, bodies []string) error {
	return stageRows(ctx, s.handle, "stage updates", "import_updates", "body", bodies, func(b string) []any {
		return []any{stageID, b}
	})
}

// StagedUpdates implements ports.ImportStageStore.
func (s importStageStore) StagedUpdates(ctx context.Context, stageID string, afterSeq int64, limit int) ([]ports.StagedUpdate, error) {
	out := []ports.StagedUpdate{}
	if limit <= 0 {
		return out, nil
	}
	rows, err := s.q.QueryContext(ctx, `SELECT seq, body FROM import_updates WHERE stage_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
		stageID, afterSeq, limit)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "staged updates")
	}
	defer rows.Close()
	for rows.Next() {
		var u ports.StagedUpdate
		if err := rows.Scan(&u.Seq, &u.Body); err != nil {
			return nil, s.s.wrap(ctx, err, "staged updates")
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "staged updates")
	}
	return out, nil
}

// reviewValues are a review log's values for stageReviewCols, in order,
// as AppendReview stores them.
func reviewValues(r ports.ReviewLog) []any {
	var session, duration, day any
	if r.SessionID != "" {
		session = r.SessionID
	}
	if r.DurationMs > 0 {
		duration = r.DurationMs
	}
	if r.Day != 0 {
		day = r.Day
	}
	kind := r.Kind
	if kind == "" {
		kind = ports.ReviewKindReview
	}
	prev, _ := stateJSON(r.PrevState) // checked by the caller
	st := r.State
	return []any{r.ID, r.UserID, r.CardID, r.DeckID, session, string(r.Rating), string(r.PrevPhase),
		string(st.Phase), ms(st.Due), st.Stability, st.Difficulty, st.ScheduledDays, st.Reps, st.Lapses, st.Step,
		msPtr(st.LastReview), ms(r.ReviewedAt), duration, day, kind, r.PrevInterval, prev}
}

// PublishStage implements ports.ImportStageStore: set-based statements
// for the stage's mark, media, notes and cards, a count of its review
// logs, and, only when a card was skipped, two more for the notes and
// logs left without cards.
//
// Its cost is the B-tree and trigger work of the notes and cards it
// copies, all in the one transaction that holds SQLite's writer; the
// review logs are not copied (liveReviews reads them where they are until
// DropStage moves them, a batch a transaction). Measured on
// BenchmarkImportPackage (20,000 notes and cards, 100,000 review logs,
// quiet 2-core machine, two runs each): the publishing transaction took
// 1.4–1.6 s and a review of another user waited as long at most, where
// copying the logs too took 4.1–4.7 s (the logs alone 2.4–2.7 s under a
// load of 5: the id index, three more, the version trigger a row; the
// rest of the difference was SQLite's automatic checkpoint in the
// commit, off since). Publishing the cards
// in slices would need every read of notes and cards, and their count,
// due, search and version triggers, to leave out unpublished slices.
func (s importStageStore) PublishStage(ctx context.Context, userID, stageID string, at time.Time) (ports.StagePublished, error) {
	var out ports.StagePublished
	err := s.atomicIfOutside(ctx, func(h *handle) error {
		if c, ok := h.s.d.(BulkCacher); ok {
			grow, restore := c.BulkCache()
			if _, err := h.exec(ctx, grow); err != nil {
				return h.s.wrap(ctx, err, "publish import stage")
			}
			defer func() { _, _ = h.exec(context.WithoutCancel(ctx), restore) }()
		}
		res, err := h.exec(ctx, `UPDATE import_stages SET published_at = $1, touched_at = $1
WHERE id = $2 AND user_id = $3 AND published_at IS NULL`, ms(at), stageID, userID)
		n, err := h.affected(ctx, res, err, "publish import stage")
		if err != nil {
			return err
		}
		if n != 1 {
			return notFound("import stage")
		}
		// The media the import stored become the account's, seen by
		// every read from now on.
		if _, err := h.exec(ctx, `UPDATE media SET stage_id = NULL WHERE stage_id = $1 AND user_id = $2`, stageID, userID); err != nil {
			return h.s.wrap(ctx, err, "publish media")
		}
		res, err = h.exec(ctx, `INSERT INTO notes (`+stageNoteCols+`) SELECT `+stageNoteCols+
			` FROM import_notes WHERE stage_id = $1 AND user_id = $2 ORDER BY seq`, stageID, userID)
		if err != nil {
			return h.fail(ctx, err, "publish notes", failMsgs{unique: "a note with the same GUID already exists"})
		}
		if n, err = h.affected(ctx, res, nil, "publish notes"); err != nil {
			return err
		}
		out.Notes = int(n)
		var staged int
		if err := h.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM import_cards WHERE stage_id = $1`, stageID).Scan(&staged); err != nil {
			return h.s.wrap(ctx, err, "publish cards")
		}
		// A card whose deck got the same front and back since it was
		// staged is skipped; an id taken is a conflict (ids are new).
		res, err = h.exec(ctx, `INSERT INTO cards (`+stageCardCols+`) SELECT `+stageCardCols+` FROM import_cards s
WHERE s.stage_id = $1 AND s.user_id = $2 AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.deck_id = s.deck_id AND c.hash = s.hash)
ORDER BY s.seq ON CONFLICT DO NOTHING`, stageID, userID)
		if err != nil {
			return h.fail(ctx, err, "publish cards", failMsgs{fk: "a deck of the import no longer exists"})
		}
		if n, err = h.affected(ctx, res, nil, "publish cards"); err != nil {
			return err
		}
		out.Cards, out.CardsSkipped = int(n), staged-int(n)
		// The review logs stay where they are, live from now on
		// (liveReviews), and move into review_logs as the stage is
		// dropped; those of the cards skipped go with them.
		if out.CardsSkipped > 0 {
			if _, err := h.exec(ctx, `DELETE FROM import_review_logs WHERE stage_id = $1
AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.user_id = $2 AND c.id = import_review_logs.card_id)`, stageID, userID); err != nil {
				return h.s.wrap(ctx, err, "publish reviews")
			}
		}
		if err := h.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM import_review_logs WHERE stage_id = $1`, stageID).Scan(&out.Reviews); err != nil {
			return h.s.wrap(ctx, err, "publish reviews")
		}
		// Live review logs are a write of them: the account's data
		// version (migration 00019) must change. The cards inserted bump
		// it; when there are none, a no-op update of one of the logs'
		// decks does (it holds that deck's row, and so its reviews on
		// Postgres, until the commit: only then).
		if out.Reviews > 0 && out.Cards == 0 {
			if _, err := h.exec(ctx, `UPDATE decks SET updated_at = updated_at WHERE user_id = $1 AND id =
(SELECT c.deck_id FROM import_review_logs s JOIN cards c ON c.user_id = s.user_id AND c.id = s.card_id WHERE s.stage_id = $2 LIMIT 1)`,
				userID, stageID); err != nil {
				return h.s.wrap(ctx, err, "publish reviews")
			}
		}
		if out.CardsSkipped > 0 {
			res, err = h.exec(ctx, `DELETE FROM notes WHERE user_id = $1 AND id IN (SELECT id FROM import_notes WHERE stage_id = $2)
AND NOT EXISTS (SELECT 1 FROM cards c WHERE c.user_id = notes.user_id AND c.note_id = notes.id)`, userID, stageID)
			if n, err = h.affected(ctx, res, err, "publish notes"); err != nil {
				return err
			}
			out.Notes -= int(n)
		}
		return nil
	})
	return out, err
}

// DropStage implements ports.ImportStageStore: at most limit rows a
// table, children first, in the caller's transaction or one of its own.
// A published stage's review logs are moved into review_logs, not
// deleted: a batch of them, then the batch's rows, in one transaction,
// so every read sees each log once. The stage's row is locked first:
// two drops of one stage (the import's and the purge's) take turns, so
// neither finds the batch it picked moved by the other and takes the
// stage, logs still in it, for empty.
func (s importStageStore) DropStage(ctx context.Context, stageID string, limit int) (bool, error) {
	gone := false
	err := s.atomicIfOutside(ctx, func(h *handle) error {
		if _, err := h.exec(ctx, `UPDATE import_stages SET touched_at = touched_at WHERE id = $1`, stageID); err != nil {
			return h.s.wrap(ctx, err, "drop import stage")
		}
		published, err := h.exists(ctx, "drop import stage", `SELECT 1 FROM import_stages WHERE id = $1 AND published_at IS NOT NULL`, stageID)
		if err != nil {
			return err
		}
		left := max(limit, 1)
		for _, t := range []string{"import_review_logs", "import_cards", "import_notes", "import_updates"} {
			var n int64
			if t == "import_review_logs" && published {
				n, err = h.settleReviews(ctx, stageID, left)
			} else {
				res, err2 := h.exec(ctx, `DELETE FROM `+t+` WHERE seq IN (SELECT seq FROM `+t+
					` WHERE stage_id = $1 ORDER BY seq LIMIT $2)`, stageID, left)
				n, err = h.affected(ctx, res, err2, "drop import stage")
			}
			if err != nil {
				return err
			}
			if left -= int(n); left <= 0 {
				return nil
			}
		}
		_, err = h.exec(ctx, `DELETE FROM import_stages WHERE id = $1`, stageID)
		gone = err == nil
		return h.s.wrap(ctx, err, "drop import stage")
	})
	return gone, err
}

// settleReviews moves the first limit review logs of a published stage
// into review_logs, with their card's deck (a log whose card is gone, or
// that reached review_logs already, through the trash, is dropped), and
// returns how many left the stage.
func (h *handle) settleReviews(ctx context.Context, stageID string, limit int) (int64, error) {
	var last sql.NullInt64
	if err := h.q.QueryRowContext(ctx, `SELECT MAX(seq) FROM (SELECT seq FROM import_review_logs WHERE stage_id = $1 ORDER BY seq LIMIT $2) b`,
		stageID, limit).Scan(&last); err != nil {
		return 0, h.s.wrap(ctx, err, "settle import reviews")
	}
	if !last.Valid {
		return 0, nil
	}
	// On Postgres the cards are locked as read: a card moved by a
	// transaction not yet committed is waited for and read with its new
	// deck (the move's own update of review_logs cannot see these rows).
	lock := ""
	if l, ok := h.s.d.(ShareLocker); ok {
		lock = l.ShareLock()
	}
	if _, err := h.exec(ctx, `INSERT INTO review_logs (`+stageReviewCols+`) `+stagedCols(columns(stageReviewCols))+`
FROM import_review_logs s JOIN cards c ON c.user_id = s.user_id AND c.id = s.card_id
WHERE s.stage_id = $1 AND s.seq <= $2 ORDER BY s.seq`+lock+` ON CONFLICT DO NOTHING`, stageID, last.Int64); err != nil {
		return 0, h.s.wrap(ctx, err, "settle import reviews")
	}
	res, err := h.exec(ctx, `DELETE FROM import_review_logs WHERE stage_id = $1 AND seq <= $2`, stageID, last.Int64)
	return h.affected(ctx, res, err, "settle import reviews")
}

// StagesToDrop implements ports.ImportStageStore.
func (s importStageStore) StagesToDrop(ctx context.Context, jobID string, before time.Time, limit int) ([]string, error) {
	if limit <= 0 {
		return []string{}, nil
	}
	if jobID != "" {
		return s.strings(ctx, "import stages of a job", `SELECT id FROM import_stages WHERE job_id = $1 ORDER BY id LIMIT $2`, jobID, limit)
	}
	return s.strings(ctx, "stale import stages", `SELECT id FROM import_stages WHERE published_at IS NOT NULL OR touched_at < $1
ORDER BY touched_at LIMIT $2`, ms(before), limit)
}
