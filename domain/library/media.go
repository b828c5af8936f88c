package library

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

const (
	uploadTokenBits = 192
	maxFilenameLen  = 200
	// sniffLen is how many leading bytes decide a file's real type.
	sniffLen = 512
)

// MediaBlobKey is the ports.BlobStore key of a media row's bytes: the
// user's file with that SHA-256 ("media/<user>/<sha256>"), shared by every
// row of the user with equal bytes. Rows uploaded before content
// addressing keep their old key "media/<id>".
func MediaBlobKey(m ports.MediaRow) string {
	if m.SHA256 == "" {
		return "media/" + m.ID
	}
	return "media/" + m.UserID + "/" + m.SHA256
}

// MediaService issues upload intents, accepts the uploads and opens the
// files for serving.
type MediaService struct{ *kernel.Deps }

var _ ports.MediaService = (*MediaService)(nil)

// uploadLimit is the most bytes a file of type ct may have, and whether the
// type is allowed at all.
func uploadLimit(d *kernel.Deps, ct string) (int64, bool) {
	switch {
	case slices.Contains(contracts.AllowedMediaTypes, ct):
		return contracts.MaxMediaBytes, true
	case slices.Contains(contracts.AttachmentTypes, ct):
		return d.Cfg.MaxAttachmentBytes, true
	}
	return 0, false
}

// RequestUpload records an upload intent: PUT the bytes to UploadURL with
// the returned headers before ExpiresAt. The upload token is stored only as
// a hash. The quota and the cap on open intents are checked here, before
// any byte is sent, under the user's media lock.
func (s *MediaService) RequestUpload(ctx context.Context, args contracts.RequestMediaUploadArgs) (contracts.MediaUploadIntent, error) {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return contracts.MediaUploadIntent{}, err
	}
	ct := MediaType(args.ContentType)
	limit, ok := uploadLimit(s.Deps, ct)
	if !ok {
		return contracts.MediaUploadIntent{}, contracts.Errorf(contracts.KindInvalid, "contentType must be one of %s; got %q", strings.Join(contracts.UploadTypes(), ", "), args.ContentType)
	}
	if args.Bytes < 1 || args.Bytes > limit {
		return contracts.MediaUploadIntent{}, contracts.Errorf(contracts.KindInvalid, "bytes must be 1-%d (%s) for %s, got %d", limit, humanBytes(limit), ct, args.Bytes)
	}
	name, err := CleanFilename(args.Filename)
	if err != nil {
		return contracts.MediaUploadIntent{}, err
	}
	now := s.Now()
	token := s.IDs.Secret(uploadTokenBits)
	row := ports.MediaRow{
		ID: s.IDs.NewID(), UserID: p.UserID, ContentType: ct, Filename: name, MaxBytes: args.Bytes,
		TokenHash: kernel.TokenHash(token), CreatedAt: now, ExpiresAt: now.Add(s.Cfg.MediaIntentTTL),
		CredentialKind: p.CredentialKind, CredentialID: p.CredentialID,
	}
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		if err := s.ChargeWrites(ctx, tx, p.UserID, nil, 1, 0); err != nil { // the daily quota, before the write
			return err
		}
		if err := tx.Media().LockMedia(ctx, p.UserID); err != nil {
			return kernel.Fail(err)
		}
		u, err := tx.Media().MediaUsage(ctx, p.UserID, now)
		if err != nil {
			return kernel.Fail(err)
		}
		if u.OpenIntents >= s.Cfg.MaxOpenUploads {
			return contracts.Errorf(contracts.KindRateLimited, "%d uploads are already open; upload or let them expire (%s) before requesting more", u.OpenIntents, s.Cfg.MediaIntentTTL)
		}
		if used := u.StoredBytes + u.ReservedBytes; used+args.Bytes > s.Cfg.MediaQuotaBytes {
			return quotaError(used, args.Bytes, s.Cfg.MediaQuotaBytes)
		}
		return kernel.Fail(tx.Media().CreateMedia(ctx, row))
	})
	if err != nil {
		return contracts.MediaUploadIntent{}, err
	}
	return contracts.MediaUploadIntent{
		MediaID: row.ID, UploadURL: s.Cfg.BaseURL + "/media/" + row.ID, Method: "PUT",
		Headers:   map[string]string{"Authorization": "Upload " + token, "Content-Type": ct},
		ExpiresAt: row.ExpiresAt, MaxBytes: row.MaxBytes, ContentType: ct,
		AllowedTypes: contracts.UploadTypes(),
	}, nil
}

// quotaError says the storage quota would be exceeded.
func quotaError(used, more, quota int64) error {
	return contracts.Errorf(contracts.KindForbidden, "the account's media storage quota is %s and %s is in use or reserved; %s more does not fit (delete cards that use media you no longer need)",
		humanBytes(quota), humanBytes(used), humanBytes(more))
}

// AcceptUpload stores the bytes of an intent, authenticated by its token.
// The token is spent before the first byte is read (of two concurrent
// uploads with one token, one is refused); a failed upload needs a new
// intent. The bytes stream to the blob store through a SHA-256 and are
// filed under the user's key for that sum, so equal files are stored once.
func (s *MediaService) AcceptUpload(ctx context.Context, mediaID, token, contentType string, body io.Reader) error {
	if s.Blobs == nil {
		return contracts.Errorf(contracts.KindUnavailable, "media uploads are not enabled on this server")
	}
	if !kernel.PlausibleID(mediaID) {
		return kernel.NotFound("media", mediaID)
	}
	row, err := s.Store.Media().MediaByID(ctx, mediaID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return kernel.NotFound("media", mediaID)
	}
	if err != nil {
		return kernel.Fail(err)
	}
	if token == "" || len(token) > kernel.MaxWebTokenLen || subtle.ConstantTimeCompare(row.TokenHash, kernel.TokenHash(token)) != 1 {
		return contracts.Errorf(contracts.KindUnauthenticated, "invalid upload token; use the Authorization header from request_media_upload")
	}
	now := s.Now()
	if row.UploadedAt != nil || row.ClaimedAt != nil {
		return contracts.Errorf(contracts.KindConflict, "the upload token of media %s was already used; request a new upload", mediaID)
	}
	if !now.Before(row.ExpiresAt) {
		return contracts.Errorf(contracts.KindNotFound, "the upload intent for media %s expired; request a new one", mediaID)
	}
	if ct := MediaType(contentType); ct != row.ContentType {
		return contracts.Errorf(contracts.KindInvalid, "Content-Type must be %s as requested, got %q", row.ContentType, contentType)
	}
	if err := s.credentialStands(ctx, row); err != nil {
		return err
	}
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		if err := tx.Media().LockMedia(ctx, row.UserID); err != nil {
			return kernel.Fail(err)
		}
		if err := tx.Media().ClaimUpload(ctx, row.ID, now); err != nil {
			if contracts.IsKind(err, contracts.KindConflict) {
				return contracts.Errorf(contracts.KindConflict, "the upload token of media %s was already used; request a new upload", mediaID)
			}
			return kernel.Fail(err)
		}
		u, err := tx.Media().MediaUsage(ctx, row.UserID, now)
		if err != nil {
			return kernel.Fail(err)
		}
		// This intent is still counted as reserved; the others too, so
		// that finishing them cannot overrun the quota either.
		if used := u.StoredBytes + u.ReservedBytes; used > s.Cfg.MediaQuotaBytes {
			return quotaError(used-row.MaxBytes, row.MaxBytes, s.Cfg.MediaQuotaBytes)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.store1(ctx, row, body)
}

// store1 streams an upload whose token was claimed into the blob store and
// records it.
func (s *MediaService) store1(ctx context.Context, row ports.MediaRow, body io.Reader) error {
	w, err := s.stream(ctx, &row, body, "the upload is larger than the %d bytes requested; request a new upload with the right size")
	if err != nil {
		return err
	}
	defer func() { _ = w.Abort() }()
	// Recording the upload and filing the bytes happen under the user's
	// media lock, so the collector never deletes a blob that a new row is
	// about to use.
	return s.Store.InTx(ctx, func(tx ports.Stores) error {
		if err := tx.Media().LockMedia(ctx, row.UserID); err != nil {
			return kernel.Fail(err)
		}
		if err := tx.Media().MarkUploaded(ctx, row.ID, row.Size, row.SHA256, s.Now()); err != nil {
			return kernel.Fail(err)
		}
		return kernel.Fail(w.Commit(ctx, MediaBlobKey(row)))
	})
}

// stream sniffs body against row.ContentType, then copies at most
// row.MaxBytes of it into a new staged blob through a SHA-256, setting
// row.SHA256 and row.Size. The caller commits or aborts the writer.
// tooLarge is the message (with %d for the limit) of a body over it.
func (s *MediaService) stream(ctx context.Context, row *ports.MediaRow, body io.Reader, tooLarge string) (ports.BlobWriter, error) {
	var w ports.BlobWriter
	err := sniffCopy(row, body, tooLarge, func() (io.Writer, error) {
		var err error
		w, err = s.Blobs.CreateBlob(ctx)
		return w, kernel.Fail(err)
	})
	if err != nil {
		if w != nil {
			_ = w.Abort()
		}
		return nil, err
	}
	return w, nil
}

// sniffCopy checks the head of body against row.ContentType, then copies
// at most row.MaxBytes of it into the writer sink opens, through a
// SHA-256, setting row.SHA256 and row.Size: invalid for content of
// another type, an empty body or one over the limit (tooLarge, with %d).
func sniffCopy(row *ports.MediaRow, body io.Reader, tooLarge string, sink func() (io.Writer, error)) error {
	br := bufio.NewReaderSize(body, sniffLen)
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return readFailure(err)
	}
	if err := checkSniffed(row.ContentType, head); err != nil {
		return err
	}
	w, err := sink()
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(br, row.MaxBytes+1))
	switch {
	case err != nil:
		return readFailure(err)
	case n > row.MaxBytes:
		return contracts.Errorf(contracts.KindInvalid, tooLarge, row.MaxBytes)
	case n == 0:
		return contracts.Errorf(contracts.KindInvalid, "the file is empty")
	}
	row.SHA256, row.Size = hex.EncodeToString(h.Sum(nil)), n
	return nil
}

// ImportMedia stores a file for the acting user without an upload intent:
// media that arrive inside an Anki package. The bytes are sniffed against
// contentType, hashed (equal files of the account share one blob) and
// counted against the quota like an upload; at most maxBytes are read
// (limited further by the type's limit). It returns the new media id to
// reference from card text. Invalid for a type, size or content outside
// the rules; forbidden when the quota is full.
func (s *MediaService) ImportMedia(ctx context.Context, contentType, filename string, body io.Reader, maxBytes int64) (string, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return "", err
	}
	return s.StoreMedia(ctx, uid, "", contentType, filename, body, maxBytes)
}

// StoreMedia is ImportMedia for user uid, the new row staged in the import
// stage stageID when it is set (seen by no read until the stage publishes).
func (s *MediaService) StoreMedia(ctx context.Context, uid, stageID, contentType, filename string, body io.Reader, maxBytes int64) (string, error) {
	row, err := s.mediaRow(contentType, filename, maxBytes)
	if err != nil {
		return "", err
	}
	now := s.Now()
	row.ID, row.UserID, row.StageID, row.CreatedAt, row.ExpiresAt = s.IDs.NewID(), uid, stageID, now, now
	w, err := s.stream(ctx, &row, body, "the file is larger than %d bytes")
	if err != nil {
		return "", err
	}
	defer func() { _ = w.Abort() }()
	row.MaxBytes, row.UploadedAt = row.Size, &now
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		if err := tx.Media().LockMedia(ctx, uid); err != nil {
			return kernel.Fail(err)
		}
		u, err := tx.Media().MediaUsage(ctx, uid, now)
		if err != nil {
			return kernel.Fail(err)
		}
		if used := u.StoredBytes + u.ReservedBytes; used+row.Size > s.Cfg.MediaQuotaBytes {
			return quotaError(used, row.Size, s.Cfg.MediaQuotaBytes)
		}
		if err := tx.Media().CreateMedia(ctx, row); err != nil {
			return kernel.Fail(err)
		}
		return kernel.Fail(w.Commit(ctx, MediaBlobKey(row)))
	})
	if err != nil {
		return "", err
	}
	return row.ID, nil
}

// mediaRow checks what StoreMedia checks before it reads a file (the
// server stores media, the type, the name) and returns the row's type,
// name and byte limit.
func (s *MediaService) mediaRow(contentType, filename string, maxBytes int64) (ports.MediaRow, error) {
	if s.Blobs == nil {
		return ports.MediaRow{}, contracts.Errorf(contracts.KindUnavailable, "media files cannot be stored on this server")
	}
	ct := MediaType(contentType)
	limit, ok := uploadLimit(s.Deps, ct)
	if !ok {
		return ports.MediaRow{}, contracts.Errorf(contracts.KindInvalid, "media of type %q cannot be stored; allowed: %s", contentType, strings.Join(contracts.UploadTypes(), ", "))
	}
	name, err := CleanFilename(filename)
	if err != nil {
		return ports.MediaRow{}, err
	}
	return ports.MediaRow{ContentType: ct, Filename: name, MaxBytes: min(max(maxBytes, 1), limit), CredentialKind: contracts.CredentialLocal}, nil
}

// CheckMedia is StoreMedia's dry run (an import_package dry run): the
// same checks of the type, the name and the bytes (read to their end),
// nothing stored. It returns the file's size; the errors are
// StoreMedia's, but for the quota, which CheckMediaQuota checks for all
// the files together.
func (s *MediaService) CheckMedia(contentType, filename string, body io.Reader, maxBytes int64) (int64, error) {
	row, err := s.mediaRow(contentType, filename, maxBytes)
	if err != nil {
		return 0, err
	}
	err = sniffCopy(&row, body, "the file is larger than %d bytes", func() (io.Writer, error) { return io.Discard, nil })
	return row.Size, err
}

// CheckMediaQuota reports whether more bytes of media fit in user uid's
// quota now: forbidden, as StoreMedia, when they do not.
func (s *MediaService) CheckMediaQuota(ctx context.Context, uid string, more int64) error {
	if more == 0 {
		return nil
	}
	u, err := s.Store.Media().MediaUsage(ctx, uid, s.Now())
	if err != nil {
		return kernel.Fail(err)
	}
	if used := u.StoredBytes + u.ReservedBytes; used+more > s.Cfg.MediaQuotaBytes {
		return quotaError(used, more, s.Cfg.MediaQuotaBytes)
	}
	return nil
}

// readFailure reports a body that could not be read (a client that went
// away, a transport refusing more bytes).
func readFailure(err error) error {
	var ce *contracts.Error
	if errors.As(err, &ce) {
		return err
	}
	return &contracts.Error{Kind: contracts.KindUnavailable, Message: "the upload was interrupted; request a new upload and send it again", Err: err}
}

// credentialStands refuses an upload whose intent's credential was revoked
// or expired since, or whose account no longer lets agents upload
// (read-only mode, or request_media_upload switched off).
func (s *MediaService) credentialStands(ctx context.Context, row ports.MediaRow) error {
	live, err := s.CredentialLive(ctx, row.UserID, row.CredentialKind, row.CredentialID)
	if err != nil {
		return err
	}
	if !live {
		return contracts.Errorf(contracts.KindForbidden, "the credential that requested this upload was revoked or expired; nothing was stored")
	}
	exp, err := s.Store.Exposure().GetExposure(ctx, row.UserID)
	if err != nil {
		return kernel.Fail(err)
	}
	if tool, ok := contracts.Tool(contracts.ToolRequestMediaUpload); ok && !exp.Allows(tool) {
		return contracts.Errorf(contracts.KindForbidden, "the account no longer lets agents upload media (read-only mode or request_media_upload switched off); nothing was stored")
	}
	return nil
}

// OpenMedia opens one of the acting user's uploaded files.
func (s *MediaService) OpenMedia(ctx context.Context, mediaID string) (ports.MediaFile, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return ports.MediaFile{}, err
	}
	return s.open(ctx, uid, mediaID)
}

// open opens userID's uploaded file mediaID; not found for anything else.
func (s *MediaService) open(ctx context.Context, userID, mediaID string) (ports.MediaFile, error) {
	if !kernel.PlausibleID(mediaID) {
		return ports.MediaFile{}, kernel.NotFound("media", mediaID)
	}
	row, err := s.Store.Media().MediaByID(ctx, mediaID)
	if contracts.IsKind(err, contracts.KindNotFound) || (err == nil && (row.UserID != userID || row.UploadedAt == nil)) {
		return ports.MediaFile{}, kernel.NotFound("media", mediaID)
	}
	if err != nil {
		return ports.MediaFile{}, kernel.Fail(err)
	}
	if s.Blobs == nil {
		return ports.MediaFile{}, contracts.Errorf(contracts.KindUnavailable, "media files cannot be read on this server")
	}
	b, err := s.Blobs.OpenBlob(ctx, MediaBlobKey(row))
	if contracts.IsKind(err, contracts.KindNotFound) {
		return ports.MediaFile{}, kernel.NotFound("media", mediaID)
	}
	if err != nil {
		return ports.MediaFile{}, kernel.Fail(err)
	}
	return ports.MediaFile{
		ID: row.ID, ContentType: row.ContentType, Filename: row.Filename, Size: b.Size(), UploadedAt: *row.UploadedAt,
		Inline: slices.Contains(contracts.AllowedMediaTypes, row.ContentType), Body: b,
	}, nil
}

// MediaType lower-cases a content type and drops its parameters.
func MediaType(ct string) string {
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

// CleanFilename keeps the base name of a client's file name.
func CleanFilename(name string) (string, error) {
	name = strings.TrimSpace(strings.ReplaceAll(name, `\`, "/"))
	if name == "" {
		return "", nil
	}
	name = path.Base(name)
	if name == "." || name == "/" || name == ".." {
		return "", nil
	}
	if !utf8.ValidString(name) || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) || utf8.RuneCountInString(name) > maxFilenameLen {
		return "", contracts.Errorf(contracts.KindInvalid, "filename must be at most %d printable characters", maxFilenameLen)
	}
	return name, nil
}
