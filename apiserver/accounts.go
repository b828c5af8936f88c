package apiserver

import (
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/ports"
)

// provideAccounts returns the domain's account service.
func provideAccounts(svc *domain.Services) ports.AccountService { return svc.Accounts }
