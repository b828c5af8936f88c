package rest

import (
	"context"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/go-kit/kit/endpoint"
	kithttp "github.com/go-kit/kit/transport/http"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// UploadPath is the route of media uploads, outside PathPrefix because the
// upload intent's token, not a principal, authenticates it.
const UploadPath = "PUT /media/{id}"

// uploadScheme is the Authorization scheme an upload intent's headers name.
const uploadScheme = "Upload "

type uploadRequest struct {
	mediaID, token, contentType string
	body                        io.Reader
}

// NewUploadHandler serves UploadPath: the bytes of a media upload intent
// (from request_media_upload), authenticated by its token in
// "Authorization: Upload <token>". It answers 204, or the API's JSON error.
func NewUploadHandler(media ports.MediaService, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	srv := kithttp.NewServer(makeUploadEndpoint(media), decodeUploadRequest, encodeResponse,
		kithttp.ServerErrorEncoder(encodeError(logger)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(uploadReadTime))
		srv.ServeHTTP(w, r)
	})
}

func makeUploadEndpoint(media ports.MediaService) endpoint.Endpoint {
	return func(ctx context.Context, request any) (any, error) {
		req := request.(uploadRequest)
		if err := media.AcceptUpload(ctx, req.mediaID, req.token, req.contentType, req.body); err != nil {
			return nil, err
		}
		return noContent{}, nil
	}
}

// uploadReadTime is how long one upload may take to arrive: the server's
// read timeout suits requests, not files of hundreds of megabytes.
const uploadReadTime = 30 * time.Minute

func decodeUploadRequest(_ context.Context, r *http.Request) (any, error) {
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, uploadScheme) || len(auth) == len(uploadScheme) {
		return nil, contracts.Errorf(contracts.KindUnauthenticated, `send the upload intent's headers: "Authorization: Upload <token>"`)
	}
	return uploadRequest{
		mediaID:     r.PathValue("id"),
		token:       strings.TrimPrefix(auth, uploadScheme),
		contentType: r.Header.Get("Content-Type"),
		body:        r.Body,
	}, nil
}

// ServePath is the route of media downloads: the owner's web session, or
// a signed URL (?e=…&s=…) made for a place without the session (the MCP
// Apps widget).
const ServePath = "GET /media/{id}"

// mediaCSP is every media response's Content-Security-Policy: opened on
// its own, a file can run nothing and load nothing.
const mediaCSP = "default-src 'none'; sandbox"

// NewServeHandler serves ServePath. A request with a signature is served
// by it alone; any other goes through authenticate (which resolves the web
// session) and is served to the session's owner only: API keys and OAuth
// tokens are for /mcp. Media are sent with their stored type, inline only
// for the image and audio types cards show (an attachment otherwise),
// nosniff, a sandboxing CSP and private caching; ranges and conditional
// requests work (audio players seek).
func NewServeHandler(media ports.MediaService, authenticate func(http.Handler) http.Handler, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	session := authenticate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := contracts.PrincipalFrom(r.Context())
		if p.CredentialKind != contracts.CredentialSession && p.CredentialKind != contracts.CredentialDev {
			httperr.Write(r.Context(), logger, w, httperr.JSON, contracts.Errorf(contracts.KindForbidden,
				"media are served to the web session and to the signed URLs tools return, not to API keys or OAuth tokens"))
			return
		}
		f, err := media.OpenMedia(r.Context(), r.PathValue("id"))
		if err != nil {
			httperr.Write(r.Context(), logger, w, httperr.JSON, err)
			return
		}
		serveFile(w, r, f, "private, max-age=300", "same-origin")
	}))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if !q.Has("s") {
			session.ServeHTTP(w, r)
			return
		}
		f, err := media.OpenSignedMedia(r.Context(), r.PathValue("id"), q.Get("e"), q.Get("s"))
		if err != nil {
			httperr.Write(r.Context(), logger, w, httperr.JSON, err)
			return
		}
		// A host's sandboxed iframe (another origin) loads these.
		serveFile(w, r, f, "private, max-age=300", "cross-origin")
	})
}

// serveFile writes f with the media headers.
func serveFile(w http.ResponseWriter, r *http.Request, f ports.MediaFile, cache, corp string) {
	defer f.Body.Close()
	h := w.Header()
	h.Set("Content-Type", f.ContentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", mediaCSP)
	h.Set("Cache-Control", cache)
	h.Set("Cross-Origin-Resource-Policy", corp)
	h.Set("Referrer-Policy", "no-referrer")
	disposition := "attachment"
	if f.Inline {
		disposition = "inline"
	}
	name := f.Filename
	if name == "" {
		name = f.ID
	}
	h.Set("Content-Disposition", mime.FormatMediaType(disposition, map[string]string{"filename": name}))
	http.ServeContent(w, r, "", f.UploadedAt, f.Body)
}
