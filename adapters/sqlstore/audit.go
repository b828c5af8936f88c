package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/takhtabush/takhtabush/contracts"
)

const auditCols = `id, user_id, credential_kind, credential_id, tool, action, input_summary, affected_ids, outcome, error_kind, request_id, at`

// AppendAudit appends an event. Conflict on a duplicate id; not found when
// the user does not exist. The input summary is stored as given (callers
// bound it to contracts.MaxAuditSummaryBytes).
func (s auditStore) AppendAudit(ctx context.Context, e contracts.AuditEvent) error {
	var summary any
	if len(e.InputSummary) > 0 {
		summary = string(e.InputSummary)
	}
	_, err := s.exec(ctx, `INSERT INTO mcp_audit_events (`+auditCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		e.ID, e.UserID, string(e.CredentialKind), e.CredentialID, e.Tool, e.Action, summary, stringsJSON(e.AffectedIDs),
		string(e.Outcome), string(e.ErrorKind), e.RequestID, ms(e.At))
	return s.fail(ctx, err, "append audit", failMsgs{unique: "an audit event with this id already exists", fk: "user not found"})
}

// ListAudit returns up to limit of a user's events matching f, newest
// (highest id) first, with ids below beforeID (from the newest when "").
func (s auditStore) ListAudit(ctx context.Context, userID string, f contracts.AuditFilter, beforeID string, limit int) ([]contracts.AuditEvent, error) {
	out := []contracts.AuditEvent{}
	if limit <= 0 {
		return out, nil
	}
	var a args
	q := `SELECT ` + auditCols + ` FROM mcp_audit_events WHERE user_id = ` + a.add(userID)
	if f.Tool != "" {
		q += ` AND tool = ` + a.add(f.Tool)
	}
	if f.CredentialID != "" {
		q += ` AND credential_id = ` + a.add(f.CredentialID)
	}
	if !f.Since.IsZero() {
		q += ` AND at >= ` + a.add(ms(f.Since))
	}
	if !f.Until.IsZero() {
		q += ` AND at < ` + a.add(ms(f.Until))
	}
	if beforeID != "" {
		q += ` AND id < ` + a.add(beforeID)
	}
	q += ` ORDER BY id DESC LIMIT ` + a.add(limit)
	rows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "list audit")
	}
	defer rows.Close()
	for rows.Next() {
		var e contracts.AuditEvent
		var kind, outcome, errKind, affected string
		var summary sql.NullString
		var at int64
		if err := rows.Scan(&e.ID, &e.UserID, &kind, &e.CredentialID, &e.Tool, &e.Action, &summary, &affected,
			&outcome, &errKind, &e.RequestID, &at); err != nil {
			return nil, s.s.wrap(ctx, err, "list audit")
		}
		if e.AffectedIDs, err = parseStrings(affected); err != nil {
			return nil, s.s.wrap(ctx, err, "list audit")
		}
		if summary.Valid {
			e.InputSummary = json.RawMessage(summary.String)
		}
		e.CredentialKind, e.Outcome, e.ErrorKind = contracts.CredentialKind(kind), contracts.AuditOutcome(outcome), contracts.ErrorKind(errKind)
		e.At = fromMs(at)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "list audit")
	}
	return out, nil
}
