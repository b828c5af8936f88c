package identity

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/textrule"
	"github.com/takhtabush/takhtabush/ports"
)

// API key constants.
const (
	// keySecretBits is the entropy of an API key's secret.
	keySecretBits = 192
	// keyHintLen is the number of trailing characters kept as a hint.
	keyHintLen   = 6
	maxKeyLen    = 256
	maxKeyName   = 100
	minKeyExpiry = time.Minute
	maxKeyExpiry = 10 * 365 * 24 * time.Hour
)

// KeyService mints, lists, revokes and checks API keys. A key reads
//
//	tbk_<key id>_<secret>
//
// and only the key id, a hash of the secret and a six-character hint are
// stored; the secret is shown once, by CreateKey.
type KeyService struct{ *kernel.Deps }

var _ ports.KeyService = (*KeyService)(nil)

// keyManager returns the principal if it may manage keys: not an API key
// and not an OAuth token, since a key is never a login.
func keyManager(ctx context.Context) (contracts.Principal, error) {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return p, err
	}
	if p.CredentialKind == contracts.CredentialAPIKey || p.CredentialKind == contracts.CredentialOAuth {
		return p, contracts.Errorf(contracts.KindForbidden, "API keys cannot manage keys; sign in to the web app")
	}
	return p, nil
}

// CreateKey mints a key with the given scopes; expiresIn 0 means it never
// expires.
func (s *KeyService) CreateKey(ctx context.Context, name string, scopes []contracts.Scope, expiresIn time.Duration) (contracts.NewAPIKey, error) {
	p, err := keyManager(ctx)
	if err != nil {
		return contracts.NewAPIKey{}, err
	}
	name, err = textrule.Clean("name", name, textrule.Label)
	if err != nil {
		return contracts.NewAPIKey{}, contracts.Errorf(contracts.KindInvalid, "%s", err.Error())
	}
	name = strings.Join(strings.Fields(name), " ")
	if name == "" {
		name = "API key"
	}
	if utf8.RuneCountInString(name) > maxKeyName || !utf8.ValidString(name) {
		return contracts.NewAPIKey{}, contracts.Errorf(contracts.KindInvalid, "name must be at most %d characters", maxKeyName)
	}
	sc, err := cleanScopes(scopes)
	if err != nil {
		return contracts.NewAPIKey{}, err
	}
	if expiresIn != 0 && (expiresIn < minKeyExpiry || expiresIn > maxKeyExpiry) {
		return contracts.NewAPIKey{}, contracts.Errorf(contracts.KindInvalid, "expiry must be between 1 minute and 10 years, or none")
	}
	now := s.Now()
	id := s.IDs.NewID()
	if strings.Contains(id, "_") || !kernel.PlausibleID(id) {
		return contracts.NewAPIKey{}, kernel.Fail(errors.New("id source returned an id unusable in an API key"))
	}
	secret := s.IDs.Secret(keySecretBits)
	full := contracts.APIKeyPrefix + id + "_" + secret
	view := contracts.APIKeyView{ID: id, Name: name, Scopes: sc, Hint: full[len(full)-keyHintLen:], CreatedAt: now}
	if expiresIn != 0 {
		exp := now.Add(expiresIn)
		view.ExpiresAt = &exp
	}
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		row := ports.APIKeyRow{APIKeyView: view, UserID: p.UserID, Hash: s.keyHash(secret)}
		if max := s.Cfg.Limits.MaxKeys; max >= 0 {
			held, created, err := tx.Keys().CreateKeyWithin(ctx, row, max)
			if err != nil {
				return kernel.Fail(err)
			}
			if !created {
				return s.Refuse(contracts.LimitKeys, 0,
					"key limit reached: the account holds %d live API keys, the limit is %d; revoke keys you no longer use on the keys page, then mint a new one",
					held, max)
			}
		} else if err := tx.Keys().CreateKey(ctx, row); err != nil {
			return kernel.Fail(err)
		}
		return kernel.RecordEvent(ctx, tx, s.IDs, now, p, contracts.AuditCreateKey,
			map[string]any{"name": name, "scopes": sc, "hint": view.Hint, "expiresAt": view.ExpiresAt}, id)
	})
	if err != nil {
		return contracts.NewAPIKey{}, err
	}
	return contracts.NewAPIKey{Key: view, Secret: full}, nil
}

func cleanScopes(scopes []contracts.Scope) ([]contracts.Scope, error) {
	if len(scopes) == 0 {
		return nil, contracts.Errorf(contracts.KindInvalid, "give at least one scope; valid scopes are %s", contracts.JoinScopes(contracts.AllScopes, ", "))
	}
	return contracts.ParseScopes(contracts.JoinScopes(scopes, ","))
}

// ListKeys lists the user's keys, newest first, revoked ones included.
func (s *KeyService) ListKeys(ctx context.Context) ([]contracts.APIKeyView, error) {
	p, err := keyManager(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.Keys().ListKeys(ctx, p.UserID)
	if err != nil {
		return nil, kernel.Fail(err)
	}
	out := make([]contracts.APIKeyView, len(rows))
	for i, r := range rows {
		out[i] = r.APIKeyView
	}
	return out, nil
}

// RevokeKey revokes one of the user's keys. Revoking a revoked key is not an error.
func (s *KeyService) RevokeKey(ctx context.Context, keyID string) error {
	p, err := keyManager(ctx)
	if err != nil {
		return err
	}
	if !kernel.PlausibleID(keyID) {
		return kernel.NotFound("API key", keyID)
	}
	return s.Store.InTx(ctx, func(tx ports.Stores) error {
		now := s.Now()
		err := tx.Keys().RevokeKey(ctx, p.UserID, keyID, now)
		if contracts.IsKind(err, contracts.KindNotFound) {
			return kernel.NotFound("API key", keyID)
		}
		if err != nil {
			return kernel.Fail(err)
		}
		return kernel.RecordEvent(ctx, tx, s.IDs, now, p, contracts.AuditRevokeKey, map[string]any{"keyId": keyID}, keyID)
	})
}

// SetKeyTrusted marks one of the person's keys trusted (its calls skip
// the person's confirmation of big calls) or not. Not found when absent
// or another user's.
func (s *KeyService) SetKeyTrusted(ctx context.Context, keyID string, trusted bool) error {
	p, err := keyManager(ctx)
	if err != nil {
		return err
	}
	if !kernel.PlausibleID(keyID) {
		return kernel.NotFound("API key", keyID)
	}
	return s.Store.InTx(ctx, func(tx ports.Stores) error {
		err := tx.Keys().SetKeyTrusted(ctx, p.UserID, keyID, trusted)
		if contracts.IsKind(err, contracts.KindNotFound) {
			return kernel.NotFound("API key", keyID)
		}
		if err != nil {
			return kernel.Fail(err)
		}
		return kernel.RecordEvent(ctx, tx, s.IDs, s.Now(), p, contracts.AuditTrust, map[string]any{"keyId": keyID, "trusted": trusted}, keyID)
	})
}

// Authenticate checks a presented key and returns its principal. Every
// failure is the same unauthenticated error, which never echoes the key.
func (s *KeyService) Authenticate(ctx context.Context, key string) (contracts.Principal, error) {
	denied := contracts.Errorf(contracts.KindUnauthenticated, "invalid API key")
	id, secret, ok := parseKey(key)
	if !ok {
		return contracts.Principal{}, denied
	}
	row, err := s.Store.Keys().KeyByID(ctx, id)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.Principal{}, denied
	}
	if err != nil {
		return contracts.Principal{}, kernel.Fail(err)
	}
	if subtle.ConstantTimeCompare(row.Hash, s.keyHash(secret)) != 1 {
		return contracts.Principal{}, denied
	}
	now := s.Now()
	if row.RevokedAt != nil || (row.ExpiresAt != nil && !now.Before(*row.ExpiresAt)) {
		return contracts.Principal{}, denied
	}
	if row.LastUsedAt == nil || now.Sub(*row.LastUsedAt) >= s.Cfg.KeyTouchInterval {
		// Best effort: a failed touch does not refuse a valid key.
		_ = s.Store.Keys().TouchKey(ctx, row.ID, now)
	}
	return contracts.Principal{UserID: row.UserID, Scopes: row.Scopes, CredentialKind: contracts.CredentialAPIKey, CredentialID: row.ID,
		Trusted: row.Trusted, Exposure: row.Exposure}, nil
}

// parseKey splits "tbk_<id>_<secret>"; ids never contain '_', secrets may.
func parseKey(key string) (id, secret string, ok bool) {
	key = strings.TrimSpace(key)
	if len(key) > maxKeyLen {
		return "", "", false
	}
	rest, ok := strings.CutPrefix(key, contracts.APIKeyPrefix)
	if !ok {
		return "", "", false
	}
	id, secret, ok = strings.Cut(rest, "_")
	if !ok || !kernel.PlausibleID(id) || secret == "" {
		return "", "", false
	}
	return id, secret, true
}

// keyHash is SHA-256 of the secret, or HMAC-SHA-256 keyed with the
// configured pepper.
func (s *KeyService) keyHash(secret string) []byte {
	if len(s.Cfg.KeyPepper) == 0 {
		sum := sha256.Sum256([]byte(secret))
		return sum[:]
	}
	m := hmac.New(sha256.New, s.Cfg.KeyPepper)
	m.Write([]byte(secret))
	return m.Sum(nil)
}
