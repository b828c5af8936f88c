package contracts

import (
	"encoding/json"
	"time"
)

// User is an account.
type User struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Name      string    `json:"name,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// APIKeyPrefix starts every API key, so a leaked key is recognisable.
const APIKeyPrefix = "tbk_"

// APIKeyView is what may be shown about an API key after its creation:
// never the secret.
type APIKeyView struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Scopes     []Scope    `json:"scopes"`
	Hint       string     `json:"hint"` // the key's last six characters
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  *time.Time `json:"expiresAt,omitempty"`
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty"`
	RevokedAt  *time.Time `json:"revokedAt,omitempty"`
	// Trusted keys skip the person's confirmation of big calls.
	Trusted bool `json:"trusted,omitempty"`
}

// NewAPIKey is the result of minting a key: the only time the secret is shown.
type NewAPIKey struct {
	Key    APIKeyView `json:"key"`
	Secret string     `json:"secret"`
}

// ExposureSettings say which tools agents may use on an account. The zero
// value exposes everything.
type ExposureSettings struct {
	ReadOnly      bool     `json:"readOnly"`      // hide every mutating tool
	DisabledTools []string `json:"disabledTools"` // tools switched off
	// Toolsets are the sets an agent gets when its URL and headers choose
	// none (["all"] for every tool); empty means LeanToolsets, an account
	// made since toolsets that never chose. Accounts that existed before
	// toolsets have ["all"] (a migration recorded it). Given to
	// SetExposure, nil keeps the account's choice.
	Toolsets []string `json:"toolsets,omitempty"`
	// Confirm are the thresholds past which an agent's call needs the
	// person's yes; nil is DefaultConfirmThresholds. Given to
	// SetExposure, nil keeps the account's choice.
	Confirm   *ConfirmThresholds `json:"confirm,omitempty"`
	UpdatedAt time.Time          `json:"updatedAt,omitzero"`
}

// ToolsetsOrDefault returns the account's default toolsets: Toolsets, or
// LeanToolsets when it never chose.
func (s ExposureSettings) ToolsetsOrDefault() []string {
	if len(s.Toolsets) == 0 {
		return LeanToolsets
	}
	return s.Toolsets
}

// ConfirmOrDefault returns the account's confirmation thresholds.
func (s ExposureSettings) ConfirmOrDefault() ConfirmThresholds {
	if s.Confirm == nil {
		return DefaultConfirmThresholds
	}
	return *s.Confirm
}

// Allows reports whether the settings expose the tool.
func (s ExposureSettings) Allows(tool ToolDef) bool {
	if s.ReadOnly && tool.Mutates {
		return false
	}
	for _, d := range s.DisabledTools {
		if d == tool.Name {
			return false
		}
	}
	return true
}

// AuditOutcome is how an audited call ended.
type AuditOutcome string

// The audit outcomes.
const (
	AuditOK    AuditOutcome = "ok"
	AuditError AuditOutcome = "error"
)

// MaxAuditSummaryBytes bounds an audit event's input summary.
const MaxAuditSummaryBytes = 2048

// AuditEvent records one mutation an agent made.
type AuditEvent struct {
	ID             string          `json:"id"`
	UserID         string          `json:"userId"`
	CredentialKind CredentialKind  `json:"credentialKind"`
	CredentialID   string          `json:"credentialId,omitempty"`
	Tool           string          `json:"tool"`
	Action         string          `json:"action"`
	InputSummary   json.RawMessage `json:"inputSummary"`
	AffectedIDs    []string        `json:"affectedIds"`
	Outcome        AuditOutcome    `json:"outcome"`
	ErrorKind      ErrorKind       `json:"errorKind,omitempty"`
	RequestID      string          `json:"requestId,omitempty"`
	// OperationID is the mutation's operation id, shared with its change
	// records (undo_changes takes it); empty for events that change nothing.
	OperationID string    `json:"operationId,omitempty"`
	At          time.Time `json:"at"`
}

// AuditFilter narrows an audit listing.
type AuditFilter struct {
	Tool         string
	CredentialID string
	Since        time.Time // events at or after it (zero: no bound)
	Until        time.Time // events before it (zero: no bound)
}

// MediaUploadIntent tells a client where and how to upload one media file.
type MediaUploadIntent struct {
	MediaID      string            `json:"mediaId"`
	UploadURL    string            `json:"uploadUrl"`
	Method       string            `json:"method"`
	Headers      map[string]string `json:"headers"`
	ExpiresAt    time.Time         `json:"expiresAt"`
	MaxBytes     int64             `json:"maxBytes"`
	ContentType  string            `json:"contentType"`
	AllowedTypes []string          `json:"allowedTypes"`
}

// Media limits.
const (
	// MaxMediaBytes bounds an image or audio file.
	MaxMediaBytes = 10 << 20
	// MaxAttachmentBytes bounds a package or text upload (AttachmentTypes)
	// by default; a server may lower it.
	MaxAttachmentBytes = 512 << 20
	MediaIntentTTL     = 15 * time.Minute
)

// AllowedMediaTypes are the image and audio types cards show; they are
// the only types ever served inline.
var AllowedMediaTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp", "audio/mpeg", "audio/ogg", "audio/wav", "audio/mp4"}

// AttachmentTypes are the other types an upload may have: Anki packages
// and text files for import_package. They are stored and served only as
// attachments.
var AttachmentTypes = []string{"application/zip", "text/plain", "text/csv", "text/tab-separated-values"}

// UploadTypes are every type an upload may have.
func UploadTypes() []string {
	return append(append([]string{}, AllowedMediaTypes...), AttachmentTypes...)
}
