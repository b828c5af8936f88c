package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// mediaCols are the media columns scanMedia reads, in order.
const mediaCols = `id, user_id, content_type, filename, max_bytes, token_hash, created_at, expires_at, claimed_at, uploaded_at, size, sha256, credential_kind, credential_id, stage_id`

// scanMedia reads a row of mediaCols.
func scanMedia(sc interface{ Scan(...any) error }) (ports.MediaRow, error) {
	var m ports.MediaRow
	var created, expires int64
	var claimed, uploaded sql.NullInt64
	var kind string
	var stage sql.NullString
	err := sc.Scan(&m.ID, &m.UserID, &m.ContentType, &m.Filename, &m.MaxBytes, &m.TokenHash, &created, &expires, &claimed, &uploaded, &m.Size, &m.SHA256, &kind, &m.CredentialID, &stage)
	m.StageID = stage.String
	m.CreatedAt, m.ExpiresAt, m.ClaimedAt, m.UploadedAt = fromMs(created), fromMs(expires), fromNullMs(claimed), fromNullMs(uploaded)
	m.CredentialKind = contracts.CredentialKind(kind)
	return m, err
}

// listMedia runs a query returning mediaCols rows.
func (s mediaStore) listMedia(ctx context.Context, op, query string, args ...any) ([]ports.MediaRow, error) {
	rows, err := s.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, op)
	}
	defer rows.Close()
	out := []ports.MediaRow{}
	for rows.Next() {
		m, err := scanMedia(rows)
		if err != nil {
			return nil, s.s.wrap(ctx, err, op)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, op)
	}
	return out, nil
}

// CreateMedia inserts an intent. Conflict on a duplicate id; not found when
// the user does not exist.
func (s mediaStore) CreateMedia(ctx context.Context, m ports.MediaRow) error {
	res, err := s.exec(ctx, `INSERT INTO media (`+mediaCols+`)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING`,
		m.ID, m.UserID, m.ContentType, m.Filename, m.MaxBytes, m.TokenHash, ms(m.CreatedAt), ms(m.ExpiresAt),
		msPtr(m.ClaimedAt), msPtr(m.UploadedAt), m.Size, m.SHA256, string(m.CredentialKind), m.CredentialID, nullString(m.StageID))
	if err != nil {
		return s.fail(ctx, err, "create media", failMsgs{fk: "user not found"})
	}
	n, err := s.affected(ctx, res, nil, "create media")
	if err != nil {
		return err
	}
	if n == 0 {
		return contracts.Errorf(contracts.KindConflict, "media with this id already exists")
	}
	return nil
}

// MediaByID returns any user's media row. Not found when absent or
// staged.
func (s mediaStore) MediaByID(ctx context.Context, id string) (ports.MediaRow, error) {
	m, err := scanMedia(s.q.QueryRowContext(ctx, `SELECT `+mediaCols+` FROM media WHERE id = $1 AND stage_id IS NULL`, id))
	if errNoRows(err) {
		return ports.MediaRow{}, notFound("media")
	}
	if err != nil {
		return ports.MediaRow{}, s.s.wrap(ctx, err, "get media")
	}
	return m, nil
}

// ClaimUpload spends the token: one UPDATE, so of concurrent claims one
// changes the row. Conflict when already claimed or uploaded; not found
// when absent.
func (s mediaStore) ClaimUpload(ctx context.Context, id string, at time.Time) error {
	res, err := s.exec(ctx, `UPDATE media SET claimed_at = $2 WHERE id = $1 AND claimed_at IS NULL AND uploaded_at IS NULL`, id, ms(at))
	return s.changedOrConflict(ctx, res, err, id, "claim upload", "the upload token was already used")
}

// MarkUploaded records the upload. Conflict when already uploaded; not
// found when absent.
func (s mediaStore) MarkUploaded(ctx context.Context, id string, size int64, sha256 string, at time.Time) error {
	res, err := s.exec(ctx, `UPDATE media SET uploaded_at = $3, size = $2, sha256 = $4 WHERE id = $1 AND uploaded_at IS NULL`, id, size, ms(at), sha256)
	return s.changedOrConflict(ctx, res, err, id, "mark uploaded", "this media file was already uploaded")
}

// changedOrConflict turns a conditional UPDATE of one media row into nil
// (it changed), not found (no such row) or conflict (the condition failed).
func (s mediaStore) changedOrConflict(ctx context.Context, res sql.Result, err error, id, op, conflict string) error {
	n, err := s.affected(ctx, res, err, op)
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	ok, err := s.exists(ctx, "find media", `SELECT 1 FROM media WHERE id = $1`, id)
	if err != nil {
		return err
	}
	if !ok {
		return notFound("media")
	}
	return contracts.Errorf(contracts.KindConflict, "%s", conflict)
}

// ListMedia returns up to limit of a user's unstaged media rows with ids
// greater than afterID, ordered by id.
func (s mediaStore) ListMedia(ctx context.Context, userID, afterID string, limit int) ([]ports.MediaRow, error) {
	if limit <= 0 {
		return []ports.MediaRow{}, nil
	}
	return s.listMedia(ctx, "list media", `SELECT `+mediaCols+` FROM media WHERE user_id = $1 AND id > $2 AND stage_id IS NULL
ORDER BY id LIMIT $3`, userID, afterID, limit)
}

// StagedMedia implements ports.MediaStore.
func (s mediaStore) StagedMedia(ctx context.Context, userID, stageID, afterID string, limit int) ([]ports.MediaRow, error) {
	if limit <= 0 {
		return []ports.MediaRow{}, nil
	}
	if stageID != "" {
		return s.listMedia(ctx, "staged media", `SELECT `+mediaCols+` FROM media WHERE stage_id = $1 AND id > $2
ORDER BY id LIMIT $3`, stageID, afterID, limit)
	}
	return s.listMedia(ctx, "staged media", `SELECT `+mediaCols+` FROM media WHERE user_id = $1 AND stage_id IS NOT NULL AND id > $2
ORDER BY id LIMIT $3`, userID, afterID, limit)
}

// MediaNamed implements ports.MediaStore.
func (s mediaStore) MediaNamed(ctx context.Context, userID, filename, contentType string, limit int) ([]ports.MediaRow, error) {
	if limit <= 0 {
		return []ports.MediaRow{}, nil
	}
	return s.listMedia(ctx, "media by name", `SELECT `+mediaCols+` FROM media WHERE user_id = $1 AND filename = $2 AND content_type = $3
AND uploaded_at IS NOT NULL AND stage_id IS NULL AND sha256 <> '' ORDER BY id LIMIT $4`, userID, filename, contentType, limit)
}

// LockMedia upserts the user's lock row: in Postgres the row lock holds
// until the transaction ends; SQLite's writers are serialised anyway. Not
// found when the user does not exist.
func (s mediaStore) LockMedia(ctx context.Context, userID string) error {
	_, err := s.exec(ctx, `INSERT INTO media_locks (user_id, n) VALUES ($1, 1)
ON CONFLICT (user_id) DO UPDATE SET n = media_locks.n + 1`, userID)
	return s.fail(ctx, err, "lock media", failMsgs{fk: "user not found"})
}

// MediaUsage sums the distinct uploaded files and the open intents.
func (s mediaStore) MediaUsage(ctx context.Context, userID string, now time.Time) (ports.MediaUsage, error) {
	var u ports.MediaUsage
	err := s.q.QueryRowContext(ctx, `SELECT
  (SELECT COALESCE(SUM(size), 0) FROM (SELECT sha256, MAX(size) AS size FROM media
     WHERE user_id = $1 AND uploaded_at IS NOT NULL GROUP BY sha256) f),
  (SELECT COALESCE(SUM(max_bytes), 0) FROM media WHERE user_id = $1 AND uploaded_at IS NULL AND expires_at > $2),
  (SELECT COUNT(*) FROM media WHERE user_id = $1 AND uploaded_at IS NULL AND expires_at > $2)`, userID, ms(now)).
		Scan(&u.StoredBytes, &u.ReservedBytes, &u.OpenIntents)
	if err != nil {
		return ports.MediaUsage{}, s.s.wrap(ctx, err, "media usage")
	}
	return u, nil
}

// UploadedMedia returns which of ids are the user's uploaded media.
func (s mediaStore) UploadedMedia(ctx context.Context, userID string, ids []string) ([]string, error) {
	out := []string{}
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		ph := make([]string, len(chunk))
		args := []any{userID}
		for i, id := range chunk {
			ph[i] = s.s.d.Placeholder(i + 2)
			args = append(args, id)
		}
		rows, err := s.q.QueryContext(ctx, `SELECT id FROM media WHERE user_id = `+s.s.d.Placeholder(1)+
			` AND uploaded_at IS NOT NULL AND stage_id IS NULL AND id IN (`+strings.Join(ph, ", ")+`)`, args...)
		if err != nil {
			return nil, s.s.wrap(ctx, err, "find media")
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, s.s.wrap(ctx, err, "find media")
			}
			out = append(out, id)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, s.s.wrap(ctx, err, "find media")
		}
	}
	return out, nil
}

// mediaUsed is the condition that a card or note of m's user references
// the media m (as ![…](media:ID) or [sound:ID]); cards in the trash
// (trash_cards) count, so a restored card never shows a missing file, and
// so do all of a user's media while an import of theirs is staged (its
// staged cards may reference them).
const mediaUsed = `EXISTS (SELECT 1 FROM cards c WHERE c.user_id = m.user_id AND
    (c.front LIKE '%media:' || m.id || '%' OR c.back LIKE '%media:' || m.id || '%'
     OR c.front LIKE '%[sound:' || m.id || ']%' OR c.back LIKE '%[sound:' || m.id || ']%'))
  OR EXISTS (SELECT 1 FROM trash_cards c WHERE c.user_id = m.user_id AND
    (c.front LIKE '%media:' || m.id || '%' OR c.back LIKE '%media:' || m.id || '%'
     OR c.front LIKE '%[sound:' || m.id || ']%' OR c.back LIKE '%[sound:' || m.id || ']%'))
  OR EXISTS (SELECT 1 FROM notes n WHERE n.user_id = m.user_id AND
    (n.fields LIKE '%media:' || m.id || '%' OR n.fields LIKE '%[sound:' || m.id || ']%'))
  OR EXISTS (SELECT 1 FROM import_stages st WHERE st.user_id = m.user_id AND st.published_at IS NULL)`

// UnusedMedia returns uploaded rows, uploaded before before, that nothing
// references.
func (s mediaStore) UnusedMedia(ctx context.Context, before time.Time, afterID string, limit int) ([]ports.MediaRow, error) {
	if limit <= 0 {
		return []ports.MediaRow{}, nil
	}
	return s.listMedia(ctx, "unused media", `SELECT `+mediaCols+` FROM media m
WHERE m.uploaded_at IS NOT NULL AND m.uploaded_at < $1 AND m.id > $2 AND m.stage_id IS NULL AND NOT (`+mediaUsed+`)
ORDER BY m.id LIMIT $3`, ms(before), afterID, limit)
}

// MediaInUse reports whether a card or note of the user references id.
func (s mediaStore) MediaInUse(ctx context.Context, userID, id string) (bool, error) {
	return s.exists(ctx, "media in use", `SELECT 1 FROM media m WHERE m.user_id = $1 AND m.id = $2 AND (`+mediaUsed+`)`, userID, id)
}

// BlobInUse reports whether a media row of the user has this sum.
func (s mediaStore) BlobInUse(ctx context.Context, userID, sha256 string) (bool, error) {
	return s.exists(ctx, "blob in use", `SELECT 1 FROM media WHERE user_id = $1 AND sha256 = $2 LIMIT 1`, userID, sha256)
}

// DeleteMedia deletes a user's media row. Not found when absent.
func (s mediaStore) DeleteMedia(ctx context.Context, userID, id string) error {
	res, err := s.exec(ctx, `DELETE FROM media WHERE user_id = $1 AND id = $2`, userID, id)
	n, err := s.affected(ctx, res, err, "delete media")
	if err != nil {
		return err
	}
	if n == 0 {
		return notFound("media")
	}
	return nil
}
