package rest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/go-kit/kit/endpoint"
	kithttp "github.com/go-kit/kit/transport/http"

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
	return kithttp.NewServer(makeUploadEndpoint(media), decodeUploadRequest, encodeResponse,
		kithttp.ServerErrorEncoder(encodeError(logger)))
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
