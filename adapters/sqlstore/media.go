package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// CreateMedia inserts an intent. Conflict on a duplicate id; not found when
// the user does not exist.
func (s mediaStore) CreateMedia(ctx context.Context, m ports.MediaRow) error {
	res, err := s.exec(ctx, `INSERT INTO media (id, user_id, content_type, filename, max_bytes, token_hash, created_at, expires_at, uploaded_at, size)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT DO NOTHING`,
		m.ID, m.UserID, m.ContentType, m.Filename, m.MaxBytes, m.TokenHash, ms(m.CreatedAt), ms(m.ExpiresAt), msPtr(m.UploadedAt), m.Size)
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

// MediaByID returns any user's media row. Not found when absent.
func (s mediaStore) MediaByID(ctx context.Context, id string) (ports.MediaRow, error) {
	m := ports.MediaRow{ID: id}
	var created, expires int64
	var uploaded sql.NullInt64
	err := s.q.QueryRowContext(ctx, `SELECT user_id, content_type, filename, max_bytes, token_hash, created_at, expires_at, uploaded_at, size
FROM media WHERE id = $1`, id).Scan(&m.UserID, &m.ContentType, &m.Filename, &m.MaxBytes, &m.TokenHash, &created, &expires, &uploaded, &m.Size)
	if errNoRows(err) {
		return ports.MediaRow{}, notFound("media")
	}
	if err != nil {
		return ports.MediaRow{}, s.s.wrap(ctx, err, "get media")
	}
	m.CreatedAt, m.ExpiresAt, m.UploadedAt = fromMs(created), fromMs(expires), fromNullMs(uploaded)
	return m, nil
}

// MarkUploaded records the upload. Conflict when already uploaded; not
// found when absent.
func (s mediaStore) MarkUploaded(ctx context.Context, id string, size int64, at time.Time) error {
	res, err := s.exec(ctx, `UPDATE media SET uploaded_at = $3, size = $2 WHERE id = $1 AND uploaded_at IS NULL`, id, size, ms(at))
	n, err := s.affected(ctx, res, err, "mark uploaded")
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
	return contracts.Errorf(contracts.KindConflict, "this media file was already uploaded")
}
