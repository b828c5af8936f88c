package contracts

import "context"

// CredentialKind says what authenticated a principal.
type CredentialKind string

// The credential kinds.
const (
	CredentialAPIKey  CredentialKind = "api_key"
	CredentialSession CredentialKind = "session"
	CredentialOAuth   CredentialKind = "oauth"
	CredentialDev     CredentialKind = "dev"   // development mode, no credential
	CredentialLocal   CredentialKind = "local" // an operator on the command line
	CredentialJob     CredentialKind = "job"   // a long job acting for the user who started it; CredentialID is the job's id
)

// Principal is who is acting: the user, the scopes the credential grants,
// and what authenticated it. Every service reads it from the context and
// scopes every read and write to UserID.
type Principal struct {
	UserID         string
	Scopes         []Scope
	CredentialKind CredentialKind
	CredentialID   string // API key id, OAuth client id or web session id; never a secret
	// Trusted is set when the API key or OAuth grant is marked trusted:
	// its calls skip the person's confirmation of big calls.
	Trusted bool
	// Exposure is the account's exposure settings when the credential's
	// lookup read them in the same query, for the request that
	// authenticated (the apiserver hands them to the request and clears
	// the field); nil otherwise.
	Exposure *ExposureSettings
}

type principalKey struct{}

// WithPrincipal returns a context carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal in ctx, if any.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok && p.UserID != ""
}

// UserID returns the acting user's id, or an unauthenticated error when the
// context carries no principal.
func UserID(ctx context.Context) (string, error) {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return "", Errorf(KindUnauthenticated, "no authenticated user")
	}
	return p.UserID, nil
}
