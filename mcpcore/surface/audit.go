package surface

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// auditTimeout bounds an audit write that outlives its request.
const auditTimeout = 10 * time.Second

// MetaAuditFailed is the _meta key set on a result whose audit row could not
// be written. The mutation itself stays applied.
const MetaAuditFailed = contracts.MetaAuditFailed

// project builds the audit event of a mutating call from what the engine
// knows: the principal, the tool, the arguments, the result and the outcome.
func project(ctx context.Context, def contracts.ToolDef, req *mcpcore.CallRequest, result any, err error) contracts.AuditEvent {
	e := contracts.AuditEvent{
		Tool:         def.Name,
		Action:       def.AuditAction,
		InputSummary: Summarize(req.Arguments, contracts.MaxAuditSummaryBytes),
		AffectedIDs:  AffectedIDs(result, req.Arguments),
		Outcome:      contracts.AuditOK,
		RequestID:    string(req.ID()),
	}
	if p, ok := contracts.PrincipalFrom(ctx); ok {
		e.UserID, e.CredentialKind, e.CredentialID = p.UserID, p.CredentialKind, p.CredentialID
	}
	e.OperationID, _ = contracts.OperationIDFrom(ctx)
	if err != nil {
		e.Outcome, e.ErrorKind = contracts.AuditError, contracts.KindOf(err)
	}
	return e
}

// audit writes the event of a call that failed (its row could not share
// the mutation's transaction); when that fails, the result stays as it is
// and carries a marker in _meta.
func (s *Tools) audit(ctx context.Context, e contracts.AuditEvent, res *mcpcore.CallToolResult) {
	// The call is over: its row is written even when the caller has gone
	// (a closed stream cancels ctx in the modern era).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), auditTimeout)
	defer cancel()
	if err := s.svc.WriteAudit(ctx, e); err != nil {
		s.auditFailed(ctx, e, err, res)
	}
}

// auditFailed reports an audit row that could not be written: it is
// logged and the result, left as it is, carries a marker in _meta.
func (s *Tools) auditFailed(ctx context.Context, e contracts.AuditEvent, err error, res *mcpcore.CallToolResult) {
	s.log.LogAttrs(ctx, slog.LevelError, "audit write failed",
		slog.String("tool", e.Tool), slog.String("user_id", e.UserID), slog.Any("err", err))
	if res.Meta == nil {
		res.Meta = map[string]any{}
	}
	res.Meta[MetaAuditFailed] = true
}

// AffectedIDs takes the ids a call touched from its result, or, when the
// call failed, from the ids named in its arguments (also the REST API's
// audit rows, which are the matching tool's).
func AffectedIDs(result any, args json.RawMessage) []string {
	ids := []string{}
	add := func(id string) {
		if id != "" {
			ids = append(ids, id)
		}
	}
	switch r := result.(type) {
	case contracts.Deck:
		add(r.ID)
	case contracts.DeleteResult:
		add(r.ID)
	case contracts.BulkResult:
		add(r.DeckID)
		for _, it := range r.Items {
			if it.Status == contracts.OutcomeCreated || it.Status == contracts.OutcomeUpdated || it.Status == contracts.OutcomeDeleted {
				add(it.ID)
			}
		}
	case contracts.RestoreResult:
		for _, it := range append(append([]contracts.ItemOutcome{}, r.Decks...), r.Cards...) {
			if it.Status == contracts.OutcomeRestored {
				add(it.ID)
			}
		}
	case contracts.UndoChangesResult:
		for _, it := range r.Items {
			if it.Status == contracts.UndoUndone {
				add(it.ID)
			}
		}
	case contracts.FilteredDeck:
		add(r.DeckID)
	case contracts.StudySession:
		add(r.ID)
		add(r.DeckID)
	case contracts.ReviewResult:
		add(r.SessionID)
		add(r.CardID)
	case contracts.UndoResult:
		add(r.Session.ID)
		add(r.CardID)
	case contracts.MediaUploadIntent:
		add(r.MediaID)
	case contracts.Job:
		add(r.ID)
	case contracts.AccountSettings:
		add("settings") // the account's own settings; the row's user id names the account
	default:
		var named struct {
			DeckID    string   `json:"deckId"`
			SessionID string   `json:"sessionId"`
			CardID    string   `json:"cardId"`
			CardIDs   []string `json:"cardIds"`
			JobID     string   `json:"jobId"`
		}
		_ = json.Unmarshal(args, &named)
		add(named.DeckID)
		add(named.SessionID)
		add(named.CardID)
		add(named.JobID)
		for _, id := range named.CardIDs {
			add(id)
		}
	}
	const maxIDs = 100
	if len(ids) > maxIDs {
		ids = ids[:maxIDs]
	}
	return ids
}

// Summarize returns a JSON summary of args no longer than max bytes: long
// strings are cut, long arrays keep their first items and say how many
// were left out. It never fails: unreadable input becomes a note.
func Summarize(args json.RawMessage, max int) json.RawMessage {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return json.RawMessage(`{"unreadable":true}`)
	}
	for _, lim := range []struct{ str, items int }{{200, 20}, {80, 5}, {24, 2}, {8, 1}} {
		b, err := json.Marshal(shrink(v, lim.str, lim.items))
		if err == nil && len(b) <= max {
			return b
		}
	}
	b, _ := json.Marshal(map[string]any{"truncated": true, "bytes": len(args)})
	return b
}

func shrink(v any, maxStr, maxItems int) any {
	switch x := v.(type) {
	case string:
		if utf8.RuneCountInString(x) <= maxStr {
			return x
		}
		runes := []rune(x)
		return string(runes[:maxStr]) + "…"
	case []any:
		n := min(len(x), maxItems)
		out := make([]any, 0, n+1)
		for _, item := range x[:n] {
			out = append(out, shrink(item, maxStr, maxItems))
		}
		if len(x) > n {
			out = append(out, map[string]any{"omitted": len(x) - n})
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			if len(k) > 64 {
				k = strings.ToValidUTF8(k[:64], "")
			}
			out[k] = shrink(item, maxStr, maxItems)
		}
		return out
	default:
		return v
	}
}
