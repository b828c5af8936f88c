package domain

import (
	"context"
	"crypto/subtle"
	"io"
	"mime"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

const (
	uploadTokenBits = 192
	maxFilenameLen  = 200
)

// MediaBlobKey is the ports.BlobStore key under which AcceptUpload stores
// a media file's bytes; whoever serves media reads them from there.
func MediaBlobKey(mediaID string) string { return "media/" + mediaID }

// MediaService issues upload intents and accepts the uploads.
type MediaService struct{ *deps }

var _ ports.MediaService = (*MediaService)(nil)

// RequestUpload records an upload intent: PUT the bytes to UploadURL with
// the returned headers before ExpiresAt. The upload token is stored only as
// a hash.
func (s *MediaService) RequestUpload(ctx context.Context, args contracts.RequestMediaUploadArgs) (contracts.MediaUploadIntent, error) {
	uid, err := userID(ctx)
	if err != nil {
		return contracts.MediaUploadIntent{}, err
	}
	ct := mediaType(args.ContentType)
	if !slices.Contains(contracts.AllowedMediaTypes, ct) {
		return contracts.MediaUploadIntent{}, contracts.Errorf(contracts.KindInvalid, "contentType must be one of %s; got %q", strings.Join(contracts.AllowedMediaTypes, ", "), args.ContentType)
	}
	if args.Bytes < 1 || args.Bytes > contracts.MaxMediaBytes {
		return contracts.MediaUploadIntent{}, contracts.Errorf(contracts.KindInvalid, "bytes must be 1-%d (10 MiB), got %d", contracts.MaxMediaBytes, args.Bytes)
	}
	name, err := cleanFilename(args.Filename)
	if err != nil {
		return contracts.MediaUploadIntent{}, err
	}
	now := s.now()
	token := s.ids.Secret(uploadTokenBits)
	row := ports.MediaRow{
		ID: s.ids.NewID(), UserID: uid, ContentType: ct, Filename: name, MaxBytes: args.Bytes,
		TokenHash: tokenHash(token), CreatedAt: now, ExpiresAt: now.Add(s.cfg.MediaIntentTTL),
	}
	if err := s.chargeWrites(ctx, s.store, uid, nil, 1, 0); err != nil { // the daily quota, before the write
		return contracts.MediaUploadIntent{}, err
	}
	if err := s.store.Media().CreateMedia(ctx, row); err != nil {
		return contracts.MediaUploadIntent{}, fail(err)
	}
	return contracts.MediaUploadIntent{
		MediaID: row.ID, UploadURL: s.cfg.BaseURL + "/media/" + row.ID, Method: "PUT",
		Headers:   map[string]string{"Authorization": "Upload " + token, "Content-Type": ct},
		ExpiresAt: row.ExpiresAt, MaxBytes: row.MaxBytes, ContentType: ct,
		AllowedTypes: slices.Clone(contracts.AllowedMediaTypes),
	}, nil
}

// AcceptUpload stores the bytes of an intent, authenticated by its token.
func (s *MediaService) AcceptUpload(ctx context.Context, mediaID, token, contentType string, body io.Reader) error {
	if s.blobs == nil {
		return contracts.Errorf(contracts.KindUnavailable, "media uploads are not enabled on this server")
	}
	if !plausibleID(mediaID) {
		return notFound("media", mediaID)
	}
	row, err := s.store.Media().MediaByID(ctx, mediaID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return notFound("media", mediaID)
	}
	if err != nil {
		return fail(err)
	}
	if token == "" || len(token) > maxWebTokenLen || subtle.ConstantTimeCompare(row.TokenHash, tokenHash(token)) != 1 {
		return contracts.Errorf(contracts.KindUnauthenticated, "invalid upload token; use the Authorization header from request_media_upload")
	}
	now := s.now()
	if row.UploadedAt != nil {
		return contracts.Errorf(contracts.KindConflict, "media %s was already uploaded", mediaID)
	}
	if !now.Before(row.ExpiresAt) {
		return contracts.Errorf(contracts.KindNotFound, "the upload intent for media %s expired; request a new one", mediaID)
	}
	if ct := mediaType(contentType); ct != row.ContentType {
		return contracts.Errorf(contracts.KindInvalid, "Content-Type must be %s as requested, got %q", row.ContentType, contentType)
	}
	n, err := s.blobs.PutBlob(ctx, MediaBlobKey(row.ID), body, row.MaxBytes)
	if err != nil {
		if contracts.IsKind(err, contracts.KindInvalid) {
			return contracts.Errorf(contracts.KindInvalid, "the upload is larger than the %d bytes requested", row.MaxBytes)
		}
		return fail(err)
	}
	err = s.store.Media().MarkUploaded(ctx, row.ID, n, now)
	if contracts.IsKind(err, contracts.KindConflict) {
		return contracts.Errorf(contracts.KindConflict, "media %s was already uploaded", mediaID)
	}
	return fail(err)
}

// mediaType lower-cases a content type and drops its parameters.
func mediaType(ct string) string {
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	return strings.ToLower(strings.TrimSpace(ct))
}

// cleanFilename keeps the base name of a client's file name.
func cleanFilename(name string) (string, error) {
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
