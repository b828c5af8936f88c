package identity

import (
	"context"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// Audit listing limits.
const (
	DefaultAuditPage = 50
	MaxAuditPage     = 200
)

// AuditService records and lists what agents changed.
type AuditService struct{ *kernel.Deps }

var _ ports.AuditService = (*AuditService)(nil)

// Record appends an event for the acting user. It forces UserID to that
// user, fills ID, At and the credential when empty, and bounds the input
// summary to contracts.MaxAuditSummaryBytes of valid JSON.
func (s *AuditService) Record(ctx context.Context, e contracts.AuditEvent) error {
	p, err := kernel.Actor(ctx)
	if err != nil {
		return err
	}
	e.UserID = p.UserID
	if e.ID == "" {
		e.ID = s.IDs.NewID()
	}
	if e.At.IsZero() {
		e.At = s.Now()
	}
	if e.CredentialKind == "" {
		e.CredentialKind, e.CredentialID = p.CredentialKind, p.CredentialID
	}
	if e.AffectedIDs == nil {
		e.AffectedIDs = []string{}
	}
	e.InputSummary = kernel.BoundSummary(e.InputSummary, contracts.MaxAuditSummaryBytes)
	return kernel.Fail(s.Store.Audit().AppendAudit(ctx, e))
}

// List returns the acting user's events, newest first.
func (s *AuditService) List(ctx context.Context, f contracts.AuditFilter, cursor string, limit int) (contracts.Page[contracts.AuditEvent], error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.Page[contracts.AuditEvent]{}, err
	}
	limit, err = kernel.PageLimit(limit, DefaultAuditPage, MaxAuditPage)
	if err != nil {
		return contracts.Page[contracts.AuditEvent]{}, err
	}
	before, err := kernel.DecodeCursor(cursor)
	if err != nil {
		return contracts.Page[contracts.AuditEvent]{}, err
	}
	events, err := s.Store.Audit().ListAudit(ctx, uid, f, before, limit+1)
	if err != nil {
		return contracts.Page[contracts.AuditEvent]{}, kernel.Fail(err)
	}
	return kernel.Page(events, limit, func(e contracts.AuditEvent) string { return e.ID }), nil
}
