package surface

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
	"github.com/takhtabush/takhtabush/ports"
)

// The person confirms big and destructive calls (issue 26 §3). A tool the
// catalog gives a ConfirmRule is gated here, before its call runs: its dry
// run counts what the call would change, and past the account's threshold
// (a trusted key or grant has none) the call runs only on the person's
// yes, asked by an elicitation form when the client declared elicitation
// (2026-07-28 input requests, or a request on stdio), else by a link to a
// page of the web app whose id the agent's retry carries in ConfirmArg.
// The rooms know only the dry run and the call.

// confirmKey keys the elicitation answer in inputResponses.
const confirmKey = "confirm"

// confirmState is the requestState the question is signed with; a
// modern answer counts only with it (so an answer cannot come unasked).
var confirmState = []byte("takhtabush/confirm")

// declined is the result of a call the person said no to.
func declined(tool string) *mcpcore.CallToolResult {
	res := mcpcore.ErrorResult("The person declined this " + tool + " call. Nothing changed; do not retry it unless they ask.")
	res.Meta = map[string]any{metaErrorKind: "declined"}
	return res
}

// confirmGate decides whether a call runs now. It returns the arguments to
// run with (ConfirmArg taken out), or a result to answer instead (a
// refusal, a decline, a link), or an error (an input request).
func (s *Tools) confirmGate(ctx context.Context, def contracts.ToolDef, req *mcpcore.CallRequest, run func(context.Context, ports.McpServices, json.RawMessage) (any, error)) (json.RawMessage, *mcpcore.CallToolResult, error) {
	args := req.Arguments
	if def.Confirm == "" {
		return args, nil, nil
	}
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	if d.Decode(&m) != nil {
		return args, nil, nil
	}
	id, given := m[contracts.ConfirmArg].(string)
	if _, ok := m[contracts.ConfirmArg]; ok {
		delete(m, contracts.ConfirmArg)
		b, err := json.Marshal(m)
		if err != nil {
			return nil, nil, err
		}
		args = b
	}
	if isDryRun(args) {
		return args, nil, nil
	}
	canon, err := json.Marshal(m) // keys sorted: a re-encoded retry hashes alike
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256(canon)
	creq := contracts.ConfirmRequest{Tool: def.Name, ArgsHash: sum[:]}
	if given {
		st, err := s.svc.UseConfirm(ctx, id, creq)
		switch {
		case err != nil:
			return nil, s.errorResult(ctx, def.Name, err), nil
		case st == contracts.ConfirmDeclined:
			return nil, declined(def.Name), nil
		}
		return args, nil, nil
	}
	if p, _ := contracts.PrincipalFrom(ctx); p.Trusted {
		return args, nil, nil
	}
	settings, err := s.svc.Exposure(ctx)
	if err != nil {
		return nil, s.errorResult(ctx, def.Name, err), nil
	}
	th := settings.ConfirmOrDefault()
	if th.For(def.Confirm) == 0 {
		return args, nil, nil
	}
	m["dryRun"] = true
	dry, err := json.Marshal(m)
	if err != nil {
		return nil, nil, err
	}
	out, err := run(ctx, s.svc, dry)
	if err != nil {
		// The call would fail as its dry run did: that error is the
		// answer (audited as the failed call), and the call does not run
		// unconfirmed.
		res := s.errorResult(ctx, def.Name, err)
		s.audit(ctx, project(ctx, def, req, nil, err), res)
		return nil, res, nil
	}
	if j, ok := out.(contracts.Job); ok && j.ID != "" && j.Status != contracts.JobSucceeded {
		return nil, previewNotDone(def, j), nil // nothing to count yet: the call waits for its preview
	}
	if !th.Needs(def.Confirm, contracts.ConfirmCount(out)) {
		return args, nil, nil
	}
	creq.Preview = contracts.PreviewOf(out)
	if creq.Preview.DeckID != "" {
		if deck, err := s.svc.GetDeck(ctx, contracts.GetDeckArgs{DeckID: creq.Preview.DeckID}); err == nil {
			creq.Preview.DeckName = deck.Name
		}
	}
	if has, _ := req.HasClientCapability("elicitation"); has {
		return s.elicitConfirm(ctx, def, req, creq, args)
	}
	c, err := s.svc.AskConfirm(ctx, creq)
	if err != nil {
		return nil, s.errorResult(ctx, def.Name, err), nil
	}
	return nil, s.confirmLink(def, c), nil
}

// previewNotDone is the result of a call whose dry run is a job (an
// import's preview of a big package) that has not succeeded: the call
// waits for it, so the count is known before anything runs. isError,
// so that no host takes it for done.
func previewNotDone(def contracts.ToolDef, j contracts.Job) *mcpcore.CallToolResult {
	text := "Not run yet: what this call would change is being checked by job " + j.ID + " (a preview; nothing changes), which takes longer than a call. " +
		"Poll get_job " + j.ID + " until it has ended, then call " + def.Name + " again with the same arguments."
	if j.Status.Final() {
		text = "Not run: its preview, job " + j.ID + ", ended " + string(j.Status) + ": " + j.Error + ". Nothing changed; calling " + def.Name + " again previews it anew."
	}
	res := mcpcore.ErrorResult(text)
	res.Meta = map[string]any{metaErrorKind: "preview_pending", "takhtabush/preview": map[string]any{"jobId": j.ID, "status": j.Status}}
	return res
}

// elicitConfirm asks the person yes or no through the client.
func (s *Tools) elicitConfirm(ctx context.Context, def contracts.ToolDef, req *mcpcore.CallRequest, creq contracts.ConfirmRequest, args json.RawMessage) (json.RawMessage, *mcpcore.CallToolResult, error) {
	if req.Modern() {
		if _, answered := req.InputResponses()[confirmKey]; answered && !bytes.Equal(req.State(), confirmState) {
			return nil, mcpcore.ErrorResult("The answer to the confirmation came without its signed requestState. Nothing changed."), nil
		}
	}
	msg := "An agent asks to " + creq.Preview.Summary(def.Name) + " (" + def.Name + "). Allow it?"
	ans, err := req.Ask(ctx, map[string]mcpcore.InputRequest{confirmKey: mcpcore.ElicitationRequest(mcpcore.ElicitParams{
		Message: msg,
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
			"allow": map[string]any{"type": "boolean", "title": "Allow", "description": "Yes: " + creq.Preview.Summary(def.Name) + "."},
		}, "required": []string{"allow"}},
	})}, confirmState)
	if err != nil {
		return nil, nil, err
	}
	var er mcpcore.ElicitResult
	if json.Unmarshal(ans[confirmKey], &er) != nil {
		return nil, mcpcore.ErrorResult("The confirmation answer was malformed. Nothing changed."), nil
	}
	if er.Action == "accept" && er.Content["allow"] == true {
		return args, nil, nil
	}
	return nil, declined(def.Name), nil
}

// confirmLink is the result of a call that waits for the person's yes on
// the web app: isError, so that no host takes it for done.
func (s *Tools) confirmLink(def contracts.ToolDef, c contracts.Confirmation) *mcpcore.CallToolResult {
	url := strings.TrimRight(s.cfg.BaseURL, "/") + "/confirm/" + c.ID
	text := "Not run yet: this call would " + c.Preview.Summary(def.Name) + ", which needs the person's yes. Nothing changed. " +
		"Ask the person to open " + url + " (signed in to Takhtabush) within 10 minutes and approve it; then call " + def.Name +
		" again with the same arguments and \"" + contracts.ConfirmArg + "\": \"" + c.ID + "\"."
	res := mcpcore.ErrorResult(text)
	res.Meta = map[string]any{metaErrorKind: "confirmation_required", "takhtabush/confirmation": map[string]any{"id": c.ID, "url": url}}
	return res
}
