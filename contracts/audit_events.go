package contracts

// Audit events that are not tool calls: account-security events and
// web-app actions without a tool. They are AuditEvent.Tool values next to
// the tool names, so the audit trail filters them the same way.
const (
	AuditSignIn        = "sign_in"        // a web session opened (sign-in link used)
	AuditCreateKey     = "create_key"     // an API key minted (its id and scopes, never the secret)
	AuditRevokeKey     = "revoke_key"     // an API key revoked
	AuditApproveGrant  = "approve_grant"  // an OAuth client approved on the consent page
	AuditRevokeGrant   = "revoke_grant"   // a connected app's grant revoked
	AuditSetExposure   = "set_exposure"   // tool exposure or read-only mode changed
	AuditExportAccount = "export_account" // the account's data downloaded
	AuditUndoReview    = "undo_review"    // a study session's last rating undone
	AuditImportDone    = "import_done"    // an import_package job ended (its report, or why it failed)
	AuditAnswerCall    = "answer_call"    // the person approved or declined an agent's call waiting for their yes
	AuditTrust         = "trust"          // an API key or connected app marked trusted (no confirmation) or not
	AuditOptimized     = "optimized"      // an optimize_parameters job applied fitted weights to a preset
)

// AuditEventInfo describes an audit event that is not a tool call.
type AuditEventInfo struct {
	Name   string
	Action string // the AuditEvent.Action its rows carry
	Title  string
	// Security is set for account-security events (issue 10 §3).
	Security bool
}

// AuditEvents lists the audit events that are not tool calls, in the
// order the audit page offers them.
func AuditEvents() []AuditEventInfo {
	return []AuditEventInfo{
		{AuditSignIn, "account.sign_in", "Signed in", true},
		{AuditCreateKey, "keys.create", "API key created", true},
		{AuditRevokeKey, "keys.revoke", "API key revoked", true},
		{AuditApproveGrant, "oauth.approve", "App connected", true},
		{AuditRevokeGrant, "oauth.revoke", "App disconnected", true},
		{AuditSetExposure, "exposure.set", "Agent tools changed", true},
		{AuditExportAccount, "account.export", "Account data exported", true},
		{AuditUndoReview, "study.undo", "Rating undone", false},
		{AuditImportDone, "package.import_done", "Import finished", false},
		{AuditAnswerCall, "agent.answer", "Agent call answered", true},
		{AuditTrust, "credential.trust", "Key or app trust changed", true},
		{AuditOptimized, "preset.optimized", "Weights optimised", false},
	}
}

// AuditEventByName returns the event named name and whether it exists.
func AuditEventByName(name string) (AuditEventInfo, bool) {
	for _, e := range AuditEvents() {
		if e.Name == name {
			return e, true
		}
	}
	return AuditEventInfo{}, false
}
