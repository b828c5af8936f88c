package apiserver

import (
	"context"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/ports"
)

// devAccounts is the domain's account service, except that it also finds
// and creates accounts whose email the domain refuses as not plain enough:
// the development owner's default address, owner@localhost, has no dot in
// its domain.
//
// TODO(domain): drop this wrapper once the domain accepts owner@localhost.
type devAccounts struct {
	ports.AccountService
	users ports.UserStore
}

func newDevAccounts(svc *domain.Services, store ports.Store) *devAccounts {
	return &devAccounts{AccountService: svc.Accounts, users: store.Users()}
}

// UserByEmail implements ports.AccountService.
func (a *devAccounts) UserByEmail(ctx context.Context, email string) (contracts.User, error) {
	u, err := a.AccountService.UserByEmail(ctx, email)
	if contracts.IsKind(err, contracts.KindInvalid) && localhostEmail(email) {
		return a.users.UserByEmail(ctx, strings.ToLower(strings.TrimSpace(email)))
	}
	return u, err
}

// EnsureUser implements ports.AccountService.
func (a *devAccounts) EnsureUser(ctx context.Context, email, name string) (contracts.User, bool, error) {
	u, created, err := a.AccountService.EnsureUser(ctx, email, name)
	if !contracts.IsKind(err, contracts.KindInvalid) || !localhostEmail(email) {
		return u, created, err
	}
	if u, err = a.UserByEmail(ctx, email); !contracts.IsKind(err, contracts.KindNotFound) {
		return u, false, err
	}
	u = contracts.User{
		ID: domain.RandomIDs{}.NewID(), Email: strings.ToLower(strings.TrimSpace(email)), Name: name,
		CreatedAt: time.Now().UTC().Truncate(time.Millisecond),
	}
	if err := a.users.CreateUser(ctx, u); err != nil {
		if contracts.IsKind(err, contracts.KindConflict) {
			u, err = a.UserByEmail(ctx, email)
			return u, false, err
		}
		return u, false, err
	}
	return u, true, nil
}

// localhostEmail reports whether email is name@localhost.
func localhostEmail(email string) bool {
	local, host, ok := strings.Cut(strings.ToLower(strings.TrimSpace(email)), "@")
	return ok && local != "" && !strings.ContainsAny(local, " <>\"") && host == "localhost"
}
