package kernel

import (
	"context"
	"slices"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// CredentialLive reports whether the credential that acted for userID
// still stands: an API key not revoked and not expired, an OAuth client
// whose grant is not revoked. What a credential made (an upload intent, an
// export link) dies with it. Web sessions and the operator's local
// credential are not checked: their public ids name no row, and what they
// make goes straight to the person.
func (d *Deps) CredentialLive(ctx context.Context, userID string, kind contracts.CredentialKind, id string) (bool, error) {
	switch kind {
	case contracts.CredentialAPIKey:
		k, err := d.Store.Keys().KeyByID(ctx, id)
		if contracts.IsKind(err, contracts.KindNotFound) {
			return false, nil
		}
		if err != nil {
			return false, Fail(err)
		}
		return k.UserID == userID && k.RevokedAt == nil && (k.ExpiresAt == nil || d.Now().Before(*k.ExpiresAt)), nil
	case contracts.CredentialOAuth:
		grants, err := d.Store.OAuth().ListGrants(ctx, userID)
		if err != nil {
			return false, Fail(err)
		}
		return slices.ContainsFunc(grants, func(g ports.OAuthGrantRow) bool { return g.ClientID == id && g.RevokedAt == nil }), nil
	}
	return true, nil
}
