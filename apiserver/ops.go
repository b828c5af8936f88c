package apiserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/takhtabush/takhtabush/apiserver/internal/auth"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// Operator actions: what the command line (and the benchmarks' set-up) do
// on the service. They act with a CredentialLocal principal for the user
// named by email: an operator on the machine, not a key.

// actAs returns ctx carrying a local principal for the account of email.
func (a *App) actAs(ctx context.Context, email string) (context.Context, contracts.User, error) {
	u, err := a.accounts.UserByEmail(ctx, email)
	if err != nil {
		return ctx, u, err
	}
	return contracts.WithPrincipal(ctx, localPrincipal(u.ID)), u, nil
}

func localPrincipal(userID string) contracts.Principal {
	return contracts.Principal{
		UserID: userID, Scopes: append([]contracts.Scope(nil), contracts.AllScopes...), CredentialKind: contracts.CredentialLocal,
	}
}

// CreateUser creates an account.
func (a *App) CreateUser(ctx context.Context, email, name string) (contracts.User, error) {
	return a.accounts.CreateUser(ctx, email, name)
}

// EnsureUser returns the account of email, creating it when absent.
func (a *App) EnsureUser(ctx context.Context, email, name string) (contracts.User, bool, error) {
	return a.accounts.EnsureUser(ctx, email, name)
}

// LoginLink returns a one-time sign-in URL for the account of email.
func (a *App) LoginLink(ctx context.Context, email string) (string, time.Time, error) {
	token, exp, err := a.svc.WebSessions.CreateLoginLink(ctx, email)
	if err != nil {
		return "", exp, err
	}
	return a.cfg.BaseURL + "/login?token=" + token, exp, nil
}

// CreateKey mints an API key for the account of email; the secret is in
// the result and nowhere else.
func (a *App) CreateKey(ctx context.Context, email, name string, scopes []contracts.Scope, expiresIn time.Duration) (contracts.NewAPIKey, error) {
	ctx, _, err := a.actAs(ctx, email)
	if err != nil {
		return contracts.NewAPIKey{}, err
	}
	return a.svc.Keys.CreateKey(ctx, name, scopes, expiresIn)
}

// ListKeys lists the keys of the account of email, newest first.
func (a *App) ListKeys(ctx context.Context, email string) ([]contracts.APIKeyView, error) {
	ctx, _, err := a.actAs(ctx, email)
	if err != nil {
		return nil, err
	}
	return a.svc.Keys.ListKeys(ctx)
}

// RevokeKey revokes a key by id, whoever owns it.
func (a *App) RevokeKey(ctx context.Context, keyID string) error {
	row, err := a.store.Keys().KeyByID(ctx, keyID)
	if err != nil {
		return err
	}
	return a.svc.Keys.RevokeKey(contracts.WithPrincipal(ctx, localPrincipal(row.UserID)), keyID)
}

// AuditTrail returns up to limit of the newest audit events of the account
// of email (every event when limit ≤ 0), newest first.
func (a *App) AuditTrail(ctx context.Context, email string, limit int) ([]contracts.AuditEvent, error) {
	ctx, _, err := a.actAs(ctx, email)
	if err != nil {
		return nil, err
	}
	var out []contracts.AuditEvent
	cursor := ""
	for {
		page, err := a.svc.Audit.List(ctx, contracts.AuditFilter{}, cursor, 100)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Items...)
		if page.NextCursor == "" || (limit > 0 && len(out) >= limit) {
			break
		}
		cursor = page.NextCursor
	}
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// ServeStdio serves the MCP surface on in and out for the user of apiKey,
// with the key's scopes, until in closes or ctx ends. The key is checked at
// start and again every Config.KeyRecheck: once it is revoked or expired,
// serving stops with an error.
func (a *App) ServeStdio(ctx context.Context, apiKey string, in io.Reader, out io.Writer) error {
	if apiKey == "" {
		return fmt.Errorf("set TAKHTABUSH_API_KEY to the API key of the user to serve")
	}
	p, err := a.svc.Keys.Authenticate(ctx, apiKey)
	if err != nil {
		return fmt.Errorf("TAKHTABUSH_API_KEY refused: %s", contracts.MessageOf(err))
	}
	p.Exposure = nil // read at start only; each call reads the current settings
	if len(a.cfg.StdioToolsets) > 0 {
		if err := a.mcp.CheckToolsets(a.cfg.StdioToolsets); err != nil {
			return fmt.Errorf("--toolsets: %s", err.Message)
		}
		ctx = mcpcore.WithToolSelection(ctx, mcpcore.ToolSelection{Sets: a.cfg.StdioToolsets})
	}
	ctx = contracts.WithPrincipal(ctx, p)
	ctx = mcpcore.WithPrincipal(ctx, auth.MCPPrincipal(p))
	a.log.Info("serving MCP on stdio", "user_id", p.UserID, "key_id", p.CredentialID)
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		t := time.NewTicker(a.cfg.KeyRecheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if _, err := a.svc.Keys.Authenticate(context.WithoutCancel(ctx), apiKey); contracts.IsKind(err, contracts.KindUnauthenticated) {
					cancel(fmt.Errorf("TAKHTABUSH_API_KEY refused: %s", contracts.MessageOf(err)))
					return
				}
			}
		}
	}()
	err = mcpcore.ServeStdio(ctx, a.mcp, in, out)
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return err
}

// DevOwner is what Bootstrap did for development mode.
type DevOwner struct {
	User    contracts.User
	Created bool   // the account was created by this start
	Key     string // a freshly minted key with every scope, or "" when the owner already has one
}

// Bootstrap makes sure the development account exists and has an active
// API key: on first start it creates the account and mints a key with
// every scope (returned once); later starts return no key.
func (a *App) Bootstrap(ctx context.Context) (DevOwner, error) {
	u, created, err := a.accounts.EnsureUser(ctx, a.cfg.DevUserEmail, "Owner")
	if err != nil {
		return DevOwner{}, err
	}
	out := DevOwner{User: u, Created: created}
	ctx = contracts.WithPrincipal(ctx, localPrincipal(u.ID))
	keys, err := a.svc.Keys.ListKeys(ctx)
	if err != nil {
		return out, err
	}
	now := a.clock.Now()
	for _, k := range keys {
		if k.RevokedAt == nil && (k.ExpiresAt == nil || k.ExpiresAt.After(now)) {
			return out, nil
		}
	}
	nk, err := a.svc.Keys.CreateKey(ctx, "owner (make run)", contracts.AllScopes, 0)
	if err != nil {
		return out, err
	}
	out.Key = nk.Secret
	return out, nil
}
