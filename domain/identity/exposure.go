package identity

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// ExposureService reads and changes which tools agents may use.
type ExposureService struct{ *kernel.Deps }

var _ ports.ExposureService = (*ExposureService)(nil)

// Exposure returns the acting user's settings; everything is on until
// changed. DisabledTools is never nil.
func (s *ExposureService) Exposure(ctx context.Context) (contracts.ExposureSettings, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.ExposureSettings{}, err
	}
	e, err := s.Store.Exposure().GetExposure(ctx, uid)
	if err != nil {
		return contracts.ExposureSettings{}, kernel.Fail(err)
	}
	if e.DisabledTools == nil {
		e.DisabledTools = []string{}
	}
	return e, nil
}

// SetExposure replaces the settings. Agents cannot change their own
// reach: an API-key or OAuth principal is forbidden. Disabled tools are
// stored once each, in catalog order. Toolsets nil keeps the account's
// stored choice of default toolsets (so a change of read-only mode or
// switches from a client that knows nothing of toolsets does not reset
// it); given, it is checked and stored as ChooseToolsets returns it.
// Confirm nil keeps the account's thresholds too.
func (s *ExposureService) SetExposure(ctx context.Context, e contracts.ExposureSettings) (contracts.ExposureSettings, error) {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return contracts.ExposureSettings{}, err
	}
	if p.CredentialKind == contracts.CredentialAPIKey || p.CredentialKind == contracts.CredentialOAuth {
		return contracts.ExposureSettings{}, contracts.Errorf(contracts.KindForbidden, "API keys and connected apps cannot change tool exposure; sign in to the web app")
	}
	disabled := map[string]bool{}
	for _, name := range e.DisabledTools {
		if _, ok := contracts.Tool(name); !ok {
			return contracts.ExposureSettings{}, contracts.Errorf(contracts.KindInvalid, "unknown tool %q in disabledTools; tool names are those of tools/list, e.g. %s", name, contracts.ToolAddCards)
		}
		disabled[name] = true
	}
	out := contracts.ExposureSettings{ReadOnly: e.ReadOnly, DisabledTools: []string{}, UpdatedAt: s.Now()}
	for _, t := range contracts.Catalog() {
		if disabled[t.Name] {
			out.DisabledTools = append(out.DisabledTools, t.Name)
		}
	}
	if e.Toolsets != nil {
		if out.Toolsets, err = contracts.ChooseToolsets(e.Toolsets); err != nil {
			return contracts.ExposureSettings{}, err
		}
	}
	if e.Confirm != nil {
		if err := e.Confirm.Valid(); err != nil {
			return contracts.ExposureSettings{}, err
		}
		th := *e.Confirm
		out.Confirm = &th
	}
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		if e.Toolsets == nil || e.Confirm == nil {
			old, err := tx.Exposure().GetExposure(ctx, p.UserID)
			if err != nil {
				return kernel.Fail(err)
			}
			if e.Toolsets == nil {
				out.Toolsets = old.Toolsets
			}
			if e.Confirm == nil {
				out.Confirm = old.Confirm
			}
		}
		if err := tx.Exposure().PutExposure(ctx, p.UserID, out); err != nil {
			return kernel.Fail(err)
		}
		return kernel.RecordEvent(ctx, tx, s.IDs, out.UpdatedAt, p, contracts.AuditSetExposure,
			map[string]any{"readOnly": out.ReadOnly, "disabledTools": out.DisabledTools, "toolsets": out.ToolsetsOrDefault(), "confirm": out.ConfirmOrDefault()})
	})
	if err != nil {
		return contracts.ExposureSettings{}, err
	}
	return out, nil
}
