package ports

import (
	"context"
	"io"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// Driving ports. Every method acts for the principal in ctx
// (contracts.PrincipalFrom) and fails unauthenticated without one, unless
// its comment says otherwise.

// DeckService manages the acting user's decks.
type DeckService interface {
	// CreateDeck creates a deck. Invalid for a bad name or setting, conflict
	// when the user already has a deck of that name.
	CreateDeck(ctx context.Context, args contracts.CreateDeckArgs) (contracts.Deck, error)
	// GetDeck returns one deck with its counts. Not found when absent.
	GetDeck(ctx context.Context, deckID string) (contracts.Deck, error)
	// ListDecks returns a page of decks ordered by creation. Invalid for a
	// bad cursor or limit.
	ListDecks(ctx context.Context, args contracts.ListDecksArgs) (contracts.DeckPage, error)
	// UpdateDeck changes the fields given. Not found, invalid, or conflict on
	// a duplicate name.
	UpdateDeck(ctx context.Context, args contracts.UpdateDeckArgs) (contracts.Deck, error)
	// DeleteDeck moves a deck with its cards and reviews to the trash for
	// contracts.TrashDays (its sessions end). Not found when absent. With
	// DryRun nothing is written: the result is the real call's.
	DeleteDeck(ctx context.Context, args contracts.DeleteDeckArgs) (contracts.DeleteResult, error)
	// ListPresets returns the user's presets (scheduling settings shared
	// by decks), each with the number of decks using it.
	ListPresets(ctx context.Context) ([]contracts.Preset, error)
	// OptimizeParameters queues a job (kind optimize_parameters) that fits
	// a preset's FSRS weights to the user's reviews of its decks and
	// applies them only when they predict held-out reviews better; its
	// result is a contracts.OptimizeReport. Not found for an unknown deck
	// or preset; invalid when neither is given and the account has more
	// than one preset (or none).
	OptimizeParameters(ctx context.Context, args contracts.OptimizeParametersArgs) (contracts.Job, error)
}

// TrashService shows and restores the acting user's deleted decks and
// cards, kept contracts.TrashDays in the trash.
type TrashService interface {
	// ListTrash returns a page of the trash, newest first. Invalid for a
	// bad cursor or limit.
	ListTrash(ctx context.Context, args contracts.ListTrashArgs) (contracts.TrashPage, error)
	// RestoreItems brings decks, then cards, back with their reviews, one
	// outcome per item (restored, not_found, duplicate, conflict, each with
	// a reason when not restored). Invalid for too many ids.
	RestoreItems(ctx context.Context, args contracts.RestoreItemsArgs) (contracts.RestoreResult, error)
}

// CardService manages the acting user's cards. Bulk methods report one
// outcome per item and fail as a whole only for a problem with the whole
// request (a missing deck: not_found; too many items: invalid; an
// idempotency key reused with different content: conflict).
type CardService interface {
	// AddCards adds up to contracts.MaxBulkItems cards in one transaction.
	AddCards(ctx context.Context, args contracts.AddCardsArgs) (contracts.BulkResult, error)
	// ImportCards parses pasted CSV, TSV or Anki text and adds the cards as AddCards does.
	ImportCards(ctx context.Context, args contracts.ImportCardsArgs) (contracts.BulkResult, error)
	// PreviewImport reports what ImportCards would do with args, item by
	// item, without changing anything (created outcomes carry no id). It
	// fails as ImportCards does for the whole request.
	PreviewImport(ctx context.Context, args contracts.ImportCardsArgs) (contracts.BulkResult, error)
	// UpdateCards edits, suspends or moves cards.
	UpdateCards(ctx context.Context, args contracts.UpdateCardsArgs) (contracts.BulkResult, error)
	// DeleteCards moves cards with their reviews to the trash for
	// contracts.TrashDays.
	DeleteCards(ctx context.Context, args contracts.DeleteCardsArgs) (contracts.BulkResult, error)
	// GetCard returns one card. Not found when absent.
	GetCard(ctx context.Context, cardID string) (contracts.Card, error)
	// SearchCards runs a full-text search with filters. Invalid for a bad
	// cursor, state or limit.
	SearchCards(ctx context.Context, args contracts.SearchCardsArgs) (contracts.CardPage, error)
	// CardHistory returns a card's review history, newest first. Not found
	// when the card is absent or another user's.
	CardHistory(ctx context.Context, cardID string) ([]contracts.CardReview, error)
}

// NoteService manages the acting user's notes: fields of a note type from
// which cards are made. Bulk methods report one outcome per note and fail
// as a whole only as CardService's do.
type NoteService interface {
	// AddNotes adds notes to a deck, each with the cards its note type (a
	// stock type by name, or one of the user's own by id or name) makes,
	// in one transaction. An unknown type, a field the type lacks, or a
	// note without any field its cards ask fails the call (invalid,
	// nothing added); a note that makes no card is invalid; one whose
	// cards duplicate cards of the deck is a duplicate (ExistingID names
	// one of them).
	AddNotes(ctx context.Context, args contracts.AddNotesArgs) (contracts.BulkResult, error)
	// UpdateNotes changes notes' fields and tags and re-makes their cards,
	// which keep their scheduling and review history. Per-note not_found,
	// invalid, or conflict (a re-made card would duplicate another card of
	// its deck).
	UpdateNotes(ctx context.Context, args contracts.UpdateNotesArgs) (contracts.BulkResult, error)
	// GetNote returns one note with its cards. Not found when absent.
	GetNote(ctx context.Context, noteID string) (contracts.Note, error)
	// NoteTypes lists the note types a note can be added with: the stock
	// types in Anki's order, then the user's own by name.
	NoteTypes(ctx context.Context) ([]contracts.NoteTypeInfo, error)
	// PreviewNote renders the cards a note of noteType (a stock type's name
	// or an own type's id) with fields (by name) would make, as AddNotes
	// makes them, storing nothing. Invalid for an unknown type, field or a
	// value over the limits; not found for an own type that is gone.
	PreviewNote(ctx context.Context, noteType string, fields map[string]string) ([]contracts.NewCard, error)
	// CardStyle returns the CSS of a card's note type made safe for a
	// page: confined to the elements inside the container scope matches
	// (a class selector, e.g. ".nt-card") and stripped of anything that
	// loads (see notes.ScopeCSS). "" for a card of a stock type, without
	// a note, or whose type has no CSS. Not found when the card is not
	// the user's.
	CardStyle(ctx context.Context, cardID, scope string) (string, error)
}

// StudyService runs study sessions. Every session it returns carries its
// absolute web link (StudyURL) when the service knows the public origin.
type StudyService interface {
	// StartSession builds a session queue for a deck. Not found for an unknown deck.
	StartSession(ctx context.Context, args contracts.StartStudySessionArgs) (contracts.StudySession, error)
	// GetSession returns a session with its current card. Not found when the
	// handle is unknown, expired or another user's.
	GetSession(ctx context.Context, sessionID string) (contracts.StudySession, error)
	// SubmitReview rates a card of a session, updates its schedule and
	// appends a review log in one transaction. Not found for an unknown
	// session; conflict when the card is not pending in the session or was
	// just reviewed by a concurrent call (never applied twice); invalid for
	// a bad rating.
	SubmitReview(ctx context.Context, args contracts.SubmitReviewArgs) (contracts.ReviewResult, error)
	// SubmitQueuedReview is SubmitReview of a review given ago before now
	// and sent later (the web app's reviews queued offline; the age, not a
	// time, so the device's clock need not agree with the service's):
	// scheduled and logged at the time it was given. Invalid for a negative
	// age, one over contracts.MaxQueuedReviewAge or a time before the
	// session started; conflict when the card was reviewed at or after that
	// time. Sent again with the same position and rating it is answered as
	// first answered (Replayed), never applied twice.
	SubmitQueuedReview(ctx context.Context, args contracts.SubmitReviewArgs, ago time.Duration) (contracts.ReviewResult, error)
	// Upcoming lists the cards a session shows next, in order, from its
	// current card on, up to limit (at most contracts.MaxUpcomingCards):
	// what a page may study offline. Cards today's limits no longer allow,
	// suspended and buried ones and learning steps due later than the
	// learn-ahead limit are left out. Not found for an unknown or expired
	// session.
	Upcoming(ctx context.Context, sessionID string, limit int) ([]contracts.StudyCard, error)
	// RenderSession is render_study_session: exactly one of a session id
	// (read) and a deck id (starts a session, as StartSession); the session
	// with its study link, its current card rendered (sanitised HTML) with
	// each rating's next interval, and the tool text's leading sentence.
	// Invalid unless exactly one id is given; else GetSession's or
	// StartSession's errors.
	RenderSession(ctx context.Context, args contracts.RenderStudySessionArgs) (contracts.StudyView, error)
	// PreviewRatings reports what each of the four ratings (again, hard,
	// good, easy, in that order) of the card waiting in a session would
	// schedule if given now, exactly as SubmitReview would; it changes
	// nothing. Empty for a cram session (its ratings keep the schedule).
	// Not found for an unknown or expired session or a deleted card;
	// conflict when the card is not waiting in the session.
	PreviewRatings(ctx context.Context, sessionID, cardID string) ([]contracts.RatingPreview, error)
	// Studied lists the ratings given in a session in the order given, each
	// with the card's front and when it comes back; the last is marked
	// undoable when UndoLastReview can take it back. Not found for an
	// unknown or expired session.
	Studied(ctx context.Context, sessionID string) ([]contracts.StudiedCard, error)
	// UndoLastReview takes back the last rating given in a session, in one
	// transaction: the card's schedule is restored as it was before the
	// rating, the review log is deleted, the queue item is pending again
	// and a learning step the rating re-queued is removed. Not found for
	// an unknown or expired session or a deleted card; conflict when the
	// session has no rating to undo, the rating predates undo, or the card
	// changed since (rated elsewhere, rescheduled).
	UndoLastReview(ctx context.Context, sessionID string) (contracts.UndoResult, error)
	// RescheduleCards sets cards' due dates or resets them to new, with a
	// manual review-log entry per card and a per-item outcome. Invalid for
	// a bad date, range or combination of modes.
	RescheduleCards(ctx context.Context, args contracts.RescheduleCardsArgs) (contracts.BulkResult, error)
	// Snapshot reports what a deck offers right now. Not found for an unknown deck.
	Snapshot(ctx context.Context, deckID string) (contracts.StudySnapshot, error)
	// BuryCards buries cards until the learner's next day, with a
	// per-item outcome (updated, not_found, duplicate). Invalid for an
	// empty or oversized batch.
	BuryCards(ctx context.Context, args contracts.BuryCardsArgs) (contracts.BulkResult, error)
	// Unbury brings back the buried cards of a deck (every deck when
	// args.DeckID is ""). Not found for an unknown deck.
	Unbury(ctx context.Context, args contracts.UnburyArgs) (contracts.UnburyResult, error)
}

// StatsService reports statistics and plans.
type StatsService interface {
	// Stats returns review statistics for a deck or, with no deck id, the
	// whole account. Not found for an unknown deck; invalid for bad days.
	Stats(ctx context.Context, args contracts.GetStatsArgs) (contracts.Stats, error)
	// Plan forecasts due cards and fits new cards to a time budget. Not
	// found for an unknown deck; invalid for bad days or minutes.
	Plan(ctx context.Context, args contracts.GetStudyPlanArgs) (contracts.StudyPlan, error)
	// RetentionAdvice simulates a deck's workload and knowledge at several
	// desired retentions under its preset and finds the minimum
	// recommended retention (the desired-retention advisor,
	// get_retention_advice). Not found for an unknown deck; invalid
	// without a deck or for days out of range.
	RetentionAdvice(ctx context.Context, args contracts.GetRetentionAdviceArgs) (contracts.RetentionAdvice, error)
	// Distribution counts a deck's (every deck's when args.DeckID is "")
	// scheduled cards by interval, stability and difficulty, and the answer
	// buttons of the last args.Days days by card age. Not found for an
	// unknown deck; invalid for bad days.
	Distribution(ctx context.Context, args contracts.GetStatsArgs) (contracts.CardDistribution, error)
}

// MediaService issues upload intents and accepts the uploads.
type MediaService interface {
	// RequestUpload records an upload intent and returns where to upload.
	// Invalid for a type or size outside the limits; forbidden when the
	// account's storage quota would be exceeded; rate limited when the
	// account has too many open intents.
	RequestUpload(ctx context.Context, args contracts.RequestMediaUploadArgs) (contracts.MediaUploadIntent, error)
	// AcceptUpload stores the bytes of an intent. It needs no principal: the
	// intent's token authenticates it, once. Unauthenticated for a wrong
	// token; not found for an unknown or expired intent; conflict when the
	// token was already used; forbidden when the credential that asked
	// was revoked, the account switched agents to read-only, or the quota
	// is full; invalid for a wrong content type or too many bytes.
	AcceptUpload(ctx context.Context, mediaID, token, contentType string, body io.Reader) error
	// OpenMedia opens one of the acting user's uploaded files for serving.
	// Not found for another user's, an unfinished or an unknown one. The
	// caller closes the file's Body.
	OpenMedia(ctx context.Context, mediaID string) (MediaFile, error)
	// OpenSignedMedia opens a file through a signed URL's parameters
	// (expires and sig from its query). It needs no principal. Not found
	// when the signature is wrong or expired, as for an unknown file.
	OpenSignedMedia(ctx context.Context, mediaID, expires, sig string) (MediaFile, error)
}

// MediaFile is an uploaded file opened for serving.
type MediaFile struct {
	ID          string
	ContentType string // the stored (declared and sniffed) type
	Filename    string // "" when none was given
	Size        int64
	UploadedAt  time.Time
	// Inline is true for the image and audio types pages may show; any
	// other file is served as an attachment only.
	Inline bool
	Body   Blob
}

// AccountService manages accounts. These are operator and sign-in actions:
// they need no principal.
type AccountService interface {
	// CreateUser creates an account. Invalid for a bad email; conflict when
	// the email is taken.
	CreateUser(ctx context.Context, email, name string) (contracts.User, error)
	// EnsureUser returns the account with this email, creating it if absent.
	EnsureUser(ctx context.Context, email, name string) (user contracts.User, created bool, err error)
	// UserByEmail finds an account. Not found when absent.
	UserByEmail(ctx context.Context, email string) (contracts.User, error)
	// UserByID finds an account. Not found when absent.
	UserByID(ctx context.Context, id string) (contracts.User, error)
}

// KeyService mints, lists, revokes and checks API keys. Minting, listing
// and revoking act for the principal in ctx and are forbidden when that
// principal is itself an API key: a key is never a login.
type KeyService interface {
	// CreateKey mints a key; the secret is in the result and nowhere else.
	// Invalid for no scopes, an unknown scope or a bad expiry.
	CreateKey(ctx context.Context, name string, scopes []contracts.Scope, expiresIn time.Duration) (contracts.NewAPIKey, error)
	// ListKeys lists the user's keys, newest first, revoked ones included.
	ListKeys(ctx context.Context) ([]contracts.APIKeyView, error)
	// RevokeKey revokes a key. Not found when absent or another user's.
	RevokeKey(ctx context.Context, keyID string) error
	// SetKeyTrusted marks a key trusted (its calls skip the person's
	// confirmation of big calls) or not. Not found when absent or another
	// user's.
	SetKeyTrusted(ctx context.Context, keyID string, trusted bool) error
	// Authenticate checks a presented key and returns its principal. It
	// needs no principal in ctx. Unauthenticated for a malformed, unknown,
	// wrong, expired or revoked key, with a message that never echoes it.
	Authenticate(ctx context.Context, secret string) (contracts.Principal, error)
}

// WebSessionService signs people in to the web app.
type WebSessionService interface {
	// CreateLoginLink returns a one-time sign-in token for a user (single
	// use, short-lived). Not found for an unknown email.
	CreateLoginLink(ctx context.Context, email string) (token string, expiresAt time.Time, err error)
	// SignInLink is CreateLoginLink for the sign-in form. For an unknown
	// email, signup is asked (nil: no open sign-up); when it answers true
	// the token is a sign-up link, which creates the account when it is
	// used (ConsumeLoginLink), else the email is not found. Invalid for a
	// malformed email.
	SignInLink(ctx context.Context, email string, signup func() bool) (token string, expiresAt time.Time, err error)
	// PeekLoginLink returns the account a sign-in token would sign in,
	// without spending it (for a sign-up link, a User with only the email:
	// the account does not exist yet). Unauthenticated for an unknown, used
	// or expired token.
	PeekLoginLink(ctx context.Context, token string) (contracts.User, error)
	// ConsumeLoginLink spends a sign-in token (a sign-up link creates its
	// account now) and opens a web session,
	// returning the session token for the cookie. Unauthenticated for an
	// unknown, used or expired token.
	ConsumeLoginLink(ctx context.Context, token string) (sessionToken string, user contracts.User, err error)
	// Authenticate checks a session token and returns its principal, with
	// every scope. Unauthenticated for an unknown or expired session.
	Authenticate(ctx context.Context, sessionToken string) (contracts.Principal, error)
	// SignOut ends a session. Ending an unknown session is not an error.
	SignOut(ctx context.Context, sessionToken string) error
}

// ExposureService reads and changes which tools agents may use.
type ExposureService interface {
	// Exposure returns the acting user's settings (every tool on by
	// default; Toolsets nil when the account never chose its default sets).
	Exposure(ctx context.Context) (contracts.ExposureSettings, error)
	// SetExposure replaces the settings; Toolsets nil keeps the account's
	// choice of default toolsets. Forbidden for an API-key or OAuth
	// principal; invalid for an unknown tool or toolset name or an empty
	// (non-nil) Toolsets.
	SetExposure(ctx context.Context, s contracts.ExposureSettings) (contracts.ExposureSettings, error)
}

// SettingsService reads and changes the acting account's settings of the
// learner's day, and tells the learner's day of the account.
type SettingsService interface {
	// Settings returns the settings, the defaults when never set (UTC,
	// rollover hour 4, learn-ahead 20 minutes, no account-wide caps), with
	// today's date and bounds filled in.
	Settings(ctx context.Context) (contracts.AccountSettings, error)
	// UpdateSettings changes the fields given. Invalid for an unknown
	// timezone or a value out of range; nothing changes then.
	UpdateSettings(ctx context.Context, args contracts.UpdateSettingsArgs) (contracts.AccountSettings, error)
	// AdoptTimezone sets the timezone (a browser's, at sign-in) only when
	// the account never had settings stored, and reports whether it did.
	// Invalid for an unknown timezone.
	AdoptTimezone(ctx context.Context, timezone string) (bool, error)
}

// AuditService records and lists what agents changed.
type AuditService interface {
	// Record appends an event for the acting user; the event's UserID is
	// forced to that user.
	Record(ctx context.Context, e contracts.AuditEvent) error
	// List returns the acting user's events, newest first. Invalid for a bad cursor or limit.
	List(ctx context.Context, f contracts.AuditFilter, cursor string, limit int) (contracts.Page[contracts.AuditEvent], error)
}

// UndoService undoes what earlier mutations changed, from their change
// records (ports.ChangeStore).
type UndoService interface {
	// UndoChanges applies the inverses of the acting user's pending change
	// records of the operations named, or of one credential (the caller's
	// own when none is named) since a time, newest first, at most
	// contracts.MaxUndoItems a call (NextCursor continues), in short
	// transactions. An item changed since its record (a version check),
	// gone, or out of the caller's scopes is skipped with a reason; the
	// undo's own records make it undoable. With DryRun nothing is written.
	// Invalid unless operationIds or since is given, for a bad time range
	// or cursor.
	UndoChanges(ctx context.Context, args contracts.UndoChangesArgs) (contracts.UndoChangesResult, error)
	// OperationStates returns, for the acting user's operations among ids
	// that have change records or reviews, how many they have, how many
	// are undone, and how many of their live reviews are too old for
	// UndoChanges to take back (the audit page's Undo).
	OperationStates(ctx context.Context, ids []string) (map[string]OperationState, error)
}

// FilteredDeckService keeps filtered decks (issue 28 §4): saved searches
// that gather cards from their home decks into a deck to study.
type FilteredDeckService interface {
	// FilteredDeck runs filtered_deck's action: create gathers the cards
	// the search finds (in the order, up to the limit; not suspended,
	// buried or in another filtered deck) into a new deck; rebuild sends
	// the deck's cards home and gathers again with the options given;
	// empty sends them home. Each gathering writes a card.update change
	// record per card (undo_changes sends it home). Invalid for a bad
	// search, limit, order or action; not found for a deck that is not a
	// filtered deck of the user; conflict on a taken name.
	FilteredDeck(ctx context.Context, args contracts.FilteredDeckArgs) (contracts.FilteredDeck, error)
	// FilteredDecks lists the user's filtered decks with their cards.
	FilteredDecks(ctx context.Context) ([]contracts.FilteredDeck, error)
	// Filtered returns one filtered deck's search, options and the cards
	// it holds (the web's deck page). Not found when deckID is not a
	// filtered deck of the user (a plain deck included).
	Filtered(ctx context.Context, deckID string) (contracts.FilteredDeck, error)
}

// AccountDataService gives the acting person their data and deletes their
// account. Both are forbidden for an API key or a connected app.
type AccountDataService interface {
	// Export writes a zip archive of everything the account holds: a JSON
	// document (account, exposure, API keys without secrets, decks, cards,
	// review log, audit trail, media list) and the media files. An error
	// after the first byte leaves w with a broken archive.
	Export(ctx context.Context, w io.Writer) error
	// DeleteAccount deletes the account and everything of it, credentials
	// first; only an anonymous record of the deletion stays. Invalid when
	// confirmation is not the account's email.
	DeleteAccount(ctx context.Context, confirmation string) error
}

// JobService reports on and cancels the acting user's long jobs. A job is
// visible only to its user, and only through a credential that carries the
// job's own scope (forbidden otherwise).
type JobService interface {
	// Submit queues a job of a registered kind for the acting user with
	// input (marshalled to JSON) and returns it, stored, so any instance
	// can report on it. Invalid for an unregistered kind; forbidden when
	// the credential lacks the kind's scope.
	Submit(ctx context.Context, kind string, input any) (contracts.Job, error)
	// GetJob returns a job. When ctx carries a progress receiver
	// (contracts.ProgressFrom) and the job has not ended, it waits for the
	// job to end, reporting progress, until shortly before ctx's deadline,
	// and returns the job as it is then. Not found when absent.
	GetJob(ctx context.Context, jobID string) (contracts.Job, error)
	// CancelJob cancels a job (see ports.JobStore.RequestCancel) and
	// returns it. Not found when absent.
	CancelJob(ctx context.Context, jobID string) (contracts.Job, error)
}

// ExportService exports the acting user's decks as Anki packages.
type ExportService interface {
	// ExportDeck returns a signed link that downloads the deck (with its
	// subdecks) as an .apkg for 10 minutes. Not found for an unknown deck;
	// unavailable when exports are off.
	ExportDeck(ctx context.Context, args contracts.ExportDeckArgs) (contracts.ExportLink, error)
	// Download serves a link's token without a principal (the token is
	// the capability): it calls open with the file name and writes the
	// package to the writer open returns. Not found for a token that is
	// not valid or has expired, before open is called.
	Download(ctx context.Context, token string, open func(filename string) io.Writer) error
}

// ImportService imports Anki packages and large text exports for the
// acting user.
type ImportService interface {
	// ImportPackage starts an import of an uploaded file (args.UploadID, an
	// upload of type application/zip or a text type that has been PUT) as
	// a long job and returns the queued job at once, never waiting for it
	// (the job's result is a contracts.ImportReport). Not found for an
	// unknown upload or deck; invalid for an upload not yet sent or of a
	// type that is no package or text; unavailable when imports are off.
	ImportPackage(ctx context.Context, args contracts.ImportPackageArgs) (contracts.Job, error)
}
