package web

import (
	"encoding/json"
	"net/http"

	"github.com/takhtabush/takhtabush/apiserver/internal/obs"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Audited writes the audit row of a page action that does what a tool
// does (create a deck, rate a card, …), so the audit trail shows the web
// app's changes beside the agents': the tool's name and action, the
// request's id, and the web session as the credential (the audit service
// takes it from the principal). As for agents, a failed write is logged
// and the action stays applied.
func (s *Site) Audited(r *http.Request, audit ports.AuditService, tool string, input any, affected ...string) {
	def, ok := contracts.Tool(tool)
	if !ok {
		s.log.ErrorContext(r.Context(), "web audit: unknown tool", "tool", tool)
		return
	}
	raw, err := json.Marshal(input)
	if err != nil {
		s.log.ErrorContext(r.Context(), "web audit: input summary", "tool", tool, "err", err)
		return
	}
	if affected == nil {
		affected = []string{}
	}
	e := contracts.AuditEvent{Tool: tool, Action: def.AuditAction, InputSummary: raw, AffectedIDs: affected,
		Outcome: contracts.AuditOK, RequestID: obs.RequestID(r.Context())}
	e.OperationID, _ = contracts.OperationIDFrom(r.Context())
	if err := audit.Record(r.Context(), e); err != nil {
		s.log.ErrorContext(r.Context(), "web audit write failed; the action stays applied", "tool", tool, "err", err)
	}
}
