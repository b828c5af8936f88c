package identity

import (
	"context"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/textrule"
	"github.com/takhtabush/takhtabush/ports"
)

const (
	maxEmailLen = 254
	maxNameLen  = 200
)

// AccountService manages accounts. Its methods are operator and sign-in
// actions and need no principal.
type AccountService struct{ *kernel.Deps }

var _ ports.AccountService = (*AccountService)(nil)

// CreateUser creates an account with a lower-cased email.
func (s *AccountService) CreateUser(ctx context.Context, email, name string) (contracts.User, error) {
	email, err := cleanEmail(email)
	if err != nil {
		return contracts.User{}, err
	}
	if name, err = textrule.Clean("name", name, textrule.Label); err != nil {
		return contracts.User{}, contracts.Errorf(contracts.KindInvalid, "%s", err.Error())
	}
	name = strings.Join(strings.Fields(name), " ")
	if utf8.RuneCountInString(name) > maxNameLen || !utf8.ValidString(name) {
		return contracts.User{}, contracts.Errorf(contracts.KindInvalid, "name must be at most %d characters", maxNameLen)
	}
	u := contracts.User{ID: s.IDs.NewID(), Email: email, Name: name, CreatedAt: s.Now()}
	if err := s.Store.Users().CreateUser(ctx, u); err != nil {
		if contracts.IsKind(err, contracts.KindConflict) {
			return contracts.User{}, contracts.Errorf(contracts.KindConflict, "an account with email %s already exists", email)
		}
		return contracts.User{}, kernel.Fail(err)
	}
	return u, nil
}

// EnsureUser returns the account with this email, creating it if absent.
func (s *AccountService) EnsureUser(ctx context.Context, email, name string) (contracts.User, bool, error) {
	u, err := s.UserByEmail(ctx, email)
	if err == nil || !contracts.IsKind(err, contracts.KindNotFound) {
		return u, false, err
	}
	u, err = s.CreateUser(ctx, email, name)
	if contracts.IsKind(err, contracts.KindConflict) { // created concurrently
		u, err = s.UserByEmail(ctx, email)
		return u, false, err
	}
	return u, err == nil, err
}

// UserByEmail finds an account by email, case-insensitively.
func (s *AccountService) UserByEmail(ctx context.Context, email string) (contracts.User, error) {
	email, err := cleanEmail(email)
	if err != nil {
		return contracts.User{}, err
	}
	u, err := s.Store.Users().UserByEmail(ctx, email)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return u, contracts.Errorf(contracts.KindNotFound, "no account with email %s", email)
	}
	return u, kernel.Fail(err)
}

// UserByID finds an account by id.
func (s *AccountService) UserByID(ctx context.Context, id string) (contracts.User, error) {
	if !kernel.PlausibleID(id) {
		return contracts.User{}, kernel.NotFound("user", id)
	}
	u, err := s.Store.Users().UserByID(ctx, id)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return u, kernel.NotFound("user", id)
	}
	return u, kernel.Fail(err)
}

// cleanEmail trims, lower-cases and checks an email address.
func cleanEmail(email string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	bad := contracts.Errorf(contracts.KindInvalid, "email must be a plain address like name@example.com")
	if email == "" || len(email) > maxEmailLen {
		return "", bad
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" {
		return "", bad
	}
	local, domain, ok := strings.Cut(email, "@")
	// A domain needs a dot, except localhost: the development owner is
	// owner@localhost.
	if !ok || local == "" || (domain != "localhost" && !strings.Contains(domain, ".")) || strings.HasSuffix(domain, ".") || strings.HasPrefix(domain, ".") {
		return "", bad
	}
	return email, nil
}
