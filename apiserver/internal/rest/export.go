package rest

import (
	"io"
	"log/slog"
	"mime"
	"net/http"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/ports"
)

// ExportPath is the route of export downloads, outside PathPrefix because
// the signed token in the path, not a principal, authorizes it: a person
// (or a link preview) fetches the link an agent was given.
const ExportPath = "GET /export/{token}"

// NewExportHandler serves ExportPath: the .apkg of a download link made by
// export_deck, as an attachment, for as long as the link is valid and as
// often as it is fetched. A link that is not valid or has expired is a 404
// with the API's JSON error.
func NewExportHandler(export ports.ExportService, logger *slog.Logger) http.Handler {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started := false
		err := export.Download(r.Context(), r.PathValue("token"), func(filename string) io.Writer {
			started = true
			h := w.Header()
			h.Set("Content-Type", "application/octet-stream")
			h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": filename}))
			h.Set("Cache-Control", "private, no-store")
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "no-referrer")
			return w
		})
		switch {
		case err == nil:
		case !started:
			httperr.Write(r.Context(), logger, w, httperr.JSON, err)
		default:
			// The body has begun: the client sees a truncated file.
			logger.ErrorContext(r.Context(), "export download failed after it began", "err", err)
		}
	})
}
