package apiserver

import (
	"log/slog"
	"net/http"

	"github.com/takhtabush/takhtabush/apiserver/internal/rest"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/ports"
)

// apiHandler serves /api/: the REST API for the web app, mounted behind
// the auth, CSRF and body-limit middleware of newPublicHandler.
type apiHandler http.Handler

// provideAPI builds the REST API on the domain services.
func provideAPI(svc *domain.Services, accounts ports.AccountService, log *slog.Logger) apiHandler {
	return rest.NewHandler(rest.Services{
		Decks: svc.Decks, Cards: svc.Cards, Study: svc.Study, Stats: svc.Stats,
		Keys: svc.Keys, Exposure: svc.Exposure, Audit: svc.Audit, Accounts: accounts,
		Settings: svc.Settings,
	}, log)
}
