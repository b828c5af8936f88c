package library

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/content"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// Signed media URLs are capabilities for places that carry no cookie and
// no token (the MCP Apps widget in a host's sandboxed iframe):
//
//	<base>/media/<id>?e=<unix seconds>&s=<base64url HMAC-SHA-256>
//
// The MAC covers the media id, the owning account and the expiry, under a
// key derived from the server secret; it is compared in constant time. An
// expiry is rounded up to a whole minute so that one card renders to the
// same URL for a minute (the browser's cache can keep the file).

// mediaSig is the MAC of a signed URL.
func mediaSig(d *kernel.Deps, mediaID, userID string, expires int64) string {
	mac := hmac.New(sha256.New, d.Cfg.MediaURLKey)
	mac.Write([]byte("takhtabush media url\x00" + mediaID + "\x00" + userID + "\x00" + strconv.FormatInt(expires, 10)))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// signedMediaURL returns an absolute signed URL of userID's media.
func signedMediaURL(d *kernel.Deps, mediaID, userID string, now time.Time) string {
	exp := now.Add(d.Cfg.SignedMediaTTL).Add(time.Minute - 1).Truncate(time.Minute).Unix()
	return d.Cfg.BaseURL + "/media/" + url.PathEscape(mediaID) + "?e=" + strconv.FormatInt(exp, 10) + "&s=" + mediaSig(d, mediaID, userID, exp)
}

// OpenSignedMedia opens a file through a signed URL's e and s parameters.
// A wrong, tampered or expired signature is not found, like an unknown
// file, so a URL tells nothing about files it was not made for.
func (s *MediaService) OpenSignedMedia(ctx context.Context, mediaID, expires, sig string) (ports.MediaFile, error) {
	gone := kernel.NotFound("media", mediaID)
	exp, err := strconv.ParseInt(expires, 10, 64)
	now := s.Now()
	if err != nil || len(sig) > 64 || !kernel.PlausibleID(mediaID) {
		return ports.MediaFile{}, gone
	}
	// Expired, or further ahead than any URL this server makes.
	if !now.Before(time.Unix(exp, 0)) || time.Unix(exp, 0).After(now.Add(s.Cfg.SignedMediaTTL+2*time.Minute)) {
		return ports.MediaFile{}, gone
	}
	row, err := s.Store.Media().MediaByID(ctx, mediaID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return ports.MediaFile{}, gone
	}
	if err != nil {
		return ports.MediaFile{}, kernel.Fail(err)
	}
	if !hmac.Equal([]byte(sig), []byte(mediaSig(s.Deps, mediaID, row.UserID, exp))) {
		return ports.MediaFile{}, gone
	}
	return s.open(ctx, row.UserID, mediaID)
}

// SignedRender is card text rendered for a place without the web session,
// such as the MCP Apps study widget.
type SignedRender struct {
	// HTML holds each source's sanitised HTML, in order: the acting
	// user's uploaded media as absolute signed URLs on the base URL
	// (short-lived; no credential), any other reference marked missing.
	HTML []string
	// ResourceDomains are the origins the HTML loads media from, for the
	// resource's _meta.ui.csp.resourceDomains: the base URL's origin when
	// any media resolved, otherwise none.
	ResourceDomains []string
}

// RenderSigned renders card texts (a front, a back, …) with the one card
// renderer, resolving media to signed URLs. The widget calls it for each
// card it shows; a URL works for DefaultSignedMediaTTL (or the configured
// SignedMediaTTL).
func (s *MediaService) RenderSigned(ctx context.Context, sources ...string) (SignedRender, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return SignedRender{}, err
	}
	return RenderSigned(ctx, s.Deps, s.Store, uid, sources...)
}

// RenderSigned is RenderSigned for any service, on the given stores (a
// transaction's or the database's).
func RenderSigned(ctx context.Context, d *kernel.Deps, st ports.Stores, uid string, sources ...string) (SignedRender, error) {
	var ids []string
	for _, src := range sources {
		ids = append(ids, mediaRefs(d, src)...)
	}
	owned := map[string]bool{}
	if len(ids) > 0 {
		got, err := st.Media().UploadedMedia(ctx, uid, ids)
		if err != nil {
			return SignedRender{}, kernel.Fail(err)
		}
		for _, id := range got {
			owned[id] = true
		}
	}
	now := d.Now()
	resolved := false
	resolve := func(id string) string {
		if !owned[id] {
			return ""
		}
		resolved = true
		return signedMediaURL(d, id, uid, now)
	}
	out := SignedRender{HTML: make([]string, len(sources)), ResourceDomains: []string{}}
	for i, src := range sources {
		out.HTML[i] = d.Content.Render(src, resolve).HTML
	}
	if resolved {
		out.ResourceDomains = []string{d.Cfg.BaseURL}
	}
	return out, nil
}

// mediaRefs returns the media ids src references, as the renderer reads
// them (a reference in a code block or escaped text is none).
func mediaRefs(d *kernel.Deps, src string) []string {
	if !strings.Contains(src, "media:") && !strings.Contains(src, "[sound:") {
		return nil
	}
	return d.Content.Render(src, nil).Media
}

// missingMedia checks that every media id the texts reference is an
// uploaded file of uid, under uid's media lock (the collector takes it
// too, so a file checked here is not collected before the caller's
// transaction commits). It returns, per text index, the first missing id.
func missingMedia(ctx context.Context, d *kernel.Deps, tx ports.Stores, uid string, texts [][]string) (map[int]string, error) {
	refs := map[int][]string{}
	var all []string
	for i, t := range texts {
		for _, src := range t {
			if ids := mediaRefs(d, src); len(ids) > 0 {
				refs[i] = append(refs[i], ids...)
				all = append(all, ids...)
			}
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	if err := tx.Media().LockMedia(ctx, uid); err != nil {
		return nil, kernel.Fail(err)
	}
	got, err := tx.Media().UploadedMedia(ctx, uid, all)
	if err != nil {
		return nil, kernel.Fail(err)
	}
	ok := make(map[string]bool, len(got))
	for _, id := range got {
		ok[id] = true
	}
	missing := map[int]string{}
	for i, ids := range refs {
		for _, id := range ids {
			if !ok[id] {
				missing[i] = id
				break
			}
		}
	}
	return missing, nil
}

// missingMediaReason is the per-item reason for a reference to media the
// user does not have.
func missingMediaReason(id string) string {
	return "media " + id + " not found: upload it first with request_media_upload and reference the returned mediaId"
}

// Renderer returns the card renderer every surface shares.
func (s *MediaService) Renderer() *content.Renderer { return s.Content }
