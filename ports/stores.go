package ports

import (
	"context"
	"io"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// Driven ports. Stores take the owning user's id explicitly and scope every
// read and write to it. Times are stored with millisecond precision (UTC).

// Clock tells the time. The domain never calls time.Now itself.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
}

// IDSource makes identifiers and secrets.
type IDSource interface {
	// NewID returns a new, time-ordered unique id (a UUIDv7 string).
	NewID() string
	// Secret returns a URL-safe random string carrying at least bits bits
	// of entropy (at least 128).
	Secret(bits int) string
}

// Scheduler computes a card's next state from a rating. It is pure: the
// same inputs give the same output.
type Scheduler interface {
	// Review returns the state after rating a card at now under the deck's
	// settings. Invalid for an unknown rating or a corrupt state.
	Review(state contracts.CardState, settings contracts.DeckSettings, now time.Time, rating contracts.Rating) (contracts.CardState, error)
	// ReviewOn is Review with elapsed days counted in the learner's day,
	// and review-phase cards due from the start of their due day in it.
	ReviewOn(state contracts.CardState, settings contracts.DeckSettings, day contracts.LearnerDay, now time.Time, rating contracts.Rating) (contracts.CardState, error)
}

// SettingsBinder is a Scheduler that can bind one deck's settings once,
// for a simulation that reviews many cards under the same settings (the
// workload forecast); a Scheduler without it is called per review.
type SettingsBinder interface {
	Scheduler
	// Bind returns the scheduler bound to settings. Invalid for
	// out-of-range settings.
	Bind(settings contracts.DeckSettings) (BoundScheduler, error)
}

// BoundScheduler reviews cards under the settings it was bound to.
type BoundScheduler interface {
	// ReviewFuzzed is Scheduler.ReviewOn under the bound settings, with
	// the interval fuzz drawn by the caller where the scheduler can take
	// it: u, uniform in [0, 1), replaces the scheduler's own draw.
	ReviewFuzzed(state contracts.CardState, day contracts.LearnerDay, now time.Time, rating contracts.Rating, u float64) (contracts.CardState, error)
}

// Database is the whole storage: its stores, a transaction runner, and its
// lifecycle. Calls made on a Database itself run outside a transaction.
//
// Rules every store method keeps, in or out of a transaction:
//   - A call that fails with a documented kind leaves no partial effect,
//     and the caller's transaction stays usable (bulk operations report
//     per-item outcomes inside one transaction).
//   - Every row belongs to a user that exists; writing a row for an
//     unknown user, or naming another user's deck or card, is not_found.
//   - A limit of 0 or less returns an empty list.
type Database interface {
	Stores
	TxRunner
	// Ping checks the database answers. Unavailable when it does not.
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
}

// TxRunner runs work in one transaction.
type TxRunner interface {
	// InTx runs fn in a transaction and commits when fn returns nil. When fn
	// returns an error or panics, everything it wrote is rolled back and the
	// error is returned unchanged. tx must not be used after fn returns.
	// Writers are serialised where the database needs it (SQLite); a
	// transaction that cannot proceed because of a concurrent one fails with
	// conflict or unavailable, never with partial effects.
	InTx(ctx context.Context, fn func(tx Stores) error) error
	// InCallTx runs fn in one transaction that every store call made with
	// fn's ctx joins: calls on the Database run in it, and InTx inside it
	// runs under a savepoint (when its fn fails, only its own writes are
	// rolled back and the transaction stays usable). It commits when fn
	// returns nil; when fn returns an error or panics, everything is rolled
	// back, as InTx. A failed commit is returned (nothing was applied).
	// Inside another call transaction fn joins that one. It lets one
	// request (a mutation and its audit row) cost one commit.
	//
	// When ctx also says a failure ends the call (FailureEndsCall), InTx
	// joins the call transaction without a savepoint: its fn's writes
	// cannot be rolled back alone, so when fn fails, InTx returns its
	// error and InCallTx rolls everything back and returns that error even
	// if its own fn returns nil.
	InCallTx(ctx context.Context, fn func(ctx context.Context) error) error
}

// failureEndsCallKey is the context key of FailureEndsCall.
type failureEndsCallKey struct{}

// FailureEndsCall returns ctx saying whether a failed InTx made with it
// ends the call transaction it runs in (see TxRunner.InCallTx): true for
// a call's own work, whose failure fails the call; false for work whose
// failure the call survives (its audit row).
func FailureEndsCall(ctx context.Context, ends bool) context.Context {
	return context.WithValue(ctx, failureEndsCallKey{}, ends)
}

// FailureEndsCallOf reports what FailureEndsCall set on ctx (false when
// nothing was set).
func FailureEndsCallOf(ctx context.Context) bool {
	ends, _ := ctx.Value(failureEndsCallKey{}).(bool)
	return ends
}

// Stores groups the individual stores.
type Stores interface {
	Users() UserStore
	Decks() DeckStore
	Presets() PresetStore
	Cards() CardStore
	Notes() NoteStore
	Reviews() ReviewStore
	Sessions() StudySessionStore
	Keys() APIKeyStore
	WebSessions() WebSessionStore
	Exposure() ExposureStore
	Settings() SettingsStore
	Audit() AuditStore
	Idempotency() IdempotencyStore
	Media() MediaStore
	OAuth() OAuthStore
	Jobs() JobStore
	Expiry() ExpiryStore
	Usage() UsageStore
	Trash() TrashStore
	ImportStages() ImportStageStore
	NoteTypes() NoteTypeStore
	Changes() ChangeStore
	Confirmations() ConfirmationStore
	Filtered() FilteredStore
}

// UserStore keeps accounts.
type UserStore interface {
	// CreateUser inserts a user. Conflict when the email is taken
	// (emails compare case-insensitively; store them lower-cased).
	CreateUser(ctx context.Context, u contracts.User) error
	// UserByID returns a user. Not found when absent.
	UserByID(ctx context.Context, id string) (contracts.User, error)
	// UserByEmail returns a user. Not found when absent.
	UserByEmail(ctx context.Context, email string) (contracts.User, error)
	// DeleteUser deletes an account and every row that belongs to it, its
	// API keys and web sessions (and any other credential) first, and
	// records the deletion anonymously under recordID (no user id, email
	// or name). Not found when the user does not exist; nothing changes then.
	DeleteUser(ctx context.Context, userID, recordID string, at time.Time) error
	// CountDeletions counts the anonymous records of deleted accounts.
	CountDeletions(ctx context.Context) (int, error)
}

// DeckStore keeps decks. Counts are computed at the given time, over the
// deck's cards and those of the decks below it (named deck::…, at any
// depth: the deck tree, issue 27 §4). A deck's
// Settings.PresetID names the preset it uses (empty: none); reads fill the
// preset's fields into Settings (contracts.DeckSettings.WithPreset), and
// writes keep them in the preset only.
type DeckStore interface {
	// CreateDeck inserts a deck (its Counts are ignored). Conflict when the
	// user has a deck with the same name; not found when the preset it
	// names is absent (or another user's).
	CreateDeck(ctx context.Context, userID string, d contracts.Deck) error
	// GetDeck returns a deck with counts as of now. Not found when absent.
	GetDeck(ctx context.Context, userID, deckID string, now time.Time) (contracts.Deck, error)
	// DeckWithoutCounts returns a deck with zero Counts, for hot paths that
	// need only its existence or settings (counting reads every card). Not
	// found when absent.
	DeckWithoutCounts(ctx context.Context, userID, deckID string) (contracts.Deck, error)
	// DeckTree returns, without counts, the deck and the decks below it
	// (named deck::…, at any depth; filtered decks aside): the deck first.
	// Not found when the deck is absent.
	DeckTree(ctx context.Context, userID, deckID string) ([]contracts.Deck, error)
	// DeckIDByName returns the id of the user's deck with exactly this
	// name (names are unique per user). Not found when absent.
	DeckIDByName(ctx context.Context, userID, name string) (string, error)
	// ListDecks returns up to limit decks with ids greater than afterID
	// (all when afterID is ""), ordered by id, with counts as of now.
	ListDecks(ctx context.Context, userID, afterID string, limit int, now time.Time) ([]contracts.Deck, error)
	// UpdateDeck stores name, description, settings (with the preset id)
	// and UpdatedAt. Not found when the deck, or the preset it names, is
	// absent (or another user's); conflict on a duplicate name.
	UpdateDeck(ctx context.Context, userID string, d contracts.Deck) error
	// RenameSubtree renames the user's decks below the deck named from
	// (named from::…) to lie below to (to::…), sets their UpdatedAt to
	// now, and returns how many it renamed. Conflict, with nothing
	// renamed, when a new name is another deck's.
	RenameSubtree(ctx context.Context, userID, from, to string, now time.Time) (int, error)
	// LockDeck holds a write lock on the deck until the transaction ends,
	// so reviews of one deck that check its daily limits run one after
	// the other. Not found when absent.
	LockDeck(ctx context.Context, userID, deckID string) error
	// TrashDeck moves a deck with its cards and their reviews to the trash
	// (TrashStore), deleted at at (first the cards a filtered deck holds
	// go home: a filtered deck's own, and this deck's cards held away,
	// which then go with it), and deletes them and its sessions with
	// their queues, in one transaction; no read but the TrashStore's sees
	// them after. Its preset is deleted when no other deck uses it (the
	// trashed deck keeps the preset's settings). Returns how many cards went
	// with it. Not found when absent.
	TrashDeck(ctx context.Context, userID, deckID string, at time.Time) (cards int, err error)
}

// CardRow is a card as stored: the record plus its content hash (unique
// per deck) and a version bumped by every write (optimistic concurrency).
type CardRow struct {
	contracts.Card // NoteID and Ord name the card's note, when it has one
	Hash           string
	Version        int64
	// BuriedUntil is when the card's burial ends (the start of the
	// learner's day after it was buried); nil when it was never buried.
	// A card is buried at t while t is before it. Written only by
	// CardStore.BuryCards and Unbury; InsertCards leaves it nil.
	BuriedUntil *time.Time
	// HomeDeckID is the deck the card belongs to while a filtered deck
	// (DeckID) holds it (Anki's odid); "" when it is at home.
	HomeDeckID string
}

// NoteRow is a stored note. NoteType is a stock type's name
// (contracts.StockNoteTypes) or, for a note of one of the user's own
// types, that type's NoteTypeRow.ID (which starts with NoteTypeIDPrefix,
// so it never reads as a stock name). Fields are in the type's field order. GUID
// is unique per user (Anki's note GUID for imported notes).
type NoteRow struct {
	ID        string
	NoteType  string
	GUID      string
	Fields    []string
	Tags      []string
	Version   int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// NoteStore keeps notes.
type NoteStore interface {
	// InsertNotes inserts notes (Version is set to 1). Conflict when a GUID
	// is already taken; nothing is inserted then.
	InsertNotes(ctx context.Context, userID string, notes []NoteRow) error
	// GetNotes returns the user's notes with these ids, in no particular
	// order; ids that are absent or another user's are left out.
	GetNotes(ctx context.Context, userID string, ids []string) ([]NoteRow, error)
	// ListNotes returns up to limit of the user's notes with ids greater
	// than afterID (all when ""), ordered by id; an empty slice when there
	// are none. Another user's notes are never among them. Any error is the
	// store's (internal, never a kind the caller can act on).
	ListNotes(ctx context.Context, userID, afterID string, limit int) ([]NoteRow, error)
	// UpdateNote stores note type, fields, tags and updatedAt when the
	// stored version is n.Version, and increments it (GUID and createdAt
	// stay). Not found when absent; conflict when
	// the version moved on.
	UpdateNote(ctx context.Context, userID string, n NoteRow) error
	// CardsOfNotes returns the cards of these notes, ordered by note and ord.
	CardsOfNotes(ctx context.Context, userID string, noteIDs []string) ([]CardRow, error)
}

// CardStore keeps cards.
type CardStore interface {
	// InsertCards inserts cards (Version is set to 1). Conflict when a
	// hash already exists in its deck; nothing is inserted then.
	InsertCards(ctx context.Context, userID string, cards []CardRow) error
	// InsertNewCards inserts the cards (Version is set to 1) whose hash
	// is not in their deck yet and returns the indexes of the cards it
	// skipped (their hash, or their id, existed), in order; nil when it
	// inserted them all. Not found, inserting nothing, when a card's deck
	// is not the user's.
	InsertNewCards(ctx context.Context, userID string, cards []CardRow) ([]int, error)
	// HashesInDeck returns, for each given hash present in the deck, the
	// id of the card carrying it.
	HashesInDeck(ctx context.Context, userID, deckID string, hashes []string) (map[string]string, error)
	// GetCards returns the cards with the given ids that exist, in no particular order.
	GetCards(ctx context.Context, userID string, ids []string) ([]CardRow, error)
	// UpdateCard stores deck, front, back, tags, suspension, hash and
	// UpdatedAt if the stored version equals c.Version, and bumps the
	// version. A card that moves takes its review logs to the new deck. Not found when absent; conflict when the version moved or
	// the hash exists in the target deck.
	UpdateCard(ctx context.Context, userID string, c CardRow) error
	// UpdateState stores a new schedule if the stored version equals
	// version, and bumps it. Not found when absent; conflict when the
	// version moved (a concurrent review won).
	UpdateState(ctx context.Context, userID, cardID string, version int64, state contracts.CardState, updatedAt time.Time) error
	// TrashCards moves the user's cards with these ids, with their
	// reviews, to the trash (TrashStore), deleted at at, and deletes them
	// and their study-session queue entries, in one transaction; returns
	// the ids moved. Ids that are absent or another user's are skipped.
	TrashCards(ctx context.Context, userID string, ids []string, at time.Time) ([]string, error)
	// Search returns up to limit cards matching f with ids greater than
	// afterID, ordered by id. f.Query is matched as full text (every word
	// must appear in front, back or tags; prefix matching on the last word).
	// f.State names a phase (unsuspended cards in it), "suspended" (any
	// phase), "buried" (cards buried at now) or "leech" (cards tagged
	// contracts.LeechTag); f.DueBy keeps unsuspended, non-new cards due at
	// or before it. Invalid for another state.
	Search(ctx context.Context, userID string, f contracts.CardFilter, afterID string, limit int, now time.Time) ([]CardRow, error)
	// DueCards returns up to limit unsuspended, non-new cards of a deck due
	// at or before now, most overdue first.
	DueCards(ctx context.Context, userID, deckID string, now time.Time, limit int) ([]CardRow, error)
	// NextDueAt returns when the next unsuspended, non-new card of a deck
	// can be studied: the earliest due time, where a card buried past now
	// counts from the end of its burial (it cannot be studied before).
	// ok is false when the deck has no such card. Errors only on storage
	// failure.
	NextDueAt(ctx context.Context, userID, deckID string, now time.Time) (at time.Time, ok bool, err error)
	// NextDueAtIn is NextDueAt over the cards of several decks. Errors
	// only on storage failure.
	NextDueAtIn(ctx context.Context, userID string, deckIDs []string, now time.Time) (at time.Time, ok bool, err error)
	// NewCards returns up to limit unsuspended new cards of a deck, oldest first.
	NewCards(ctx context.Context, userID, deckID string, limit int) ([]CardRow, error)
	// FreshCards is NewCards without the cards buried at now: the new
	// cards a study queue may show.
	FreshCards(ctx context.Context, userID, deckID string, now time.Time, limit int) ([]CardRow, error)
	// FreshCardIDs returns the ids of every card FreshCards may return (a
	// deck's unsuspended new cards not buried at now), in no particular
	// order: a random new-card order draws from all of them.
	FreshCardIDs(ctx context.Context, userID, deckID string, now time.Time) ([]string, error)
	// FreshCardDecks is FreshCardIDs over several decks in one read: each
	// card's deck by card id (an empty map when there are none). Errors
	// only on storage failure.
	FreshCardDecks(ctx context.Context, userID string, deckIDs []string, now time.Time) (map[string]string, error)
	// FreshCardsIn is FreshCards over several decks in one read: up to
	// perDeck new cards of each of deckIDs, oldest first within a deck
	// (ties by id), the decks' cards in no particular order.
	FreshCardsIn(ctx context.Context, userID string, deckIDs []string, now time.Time, perDeck int) ([]CardRow, error)
	// BuryCards buries the user's cards with these ids until until (a
	// card buried longer stays so): StudyCards and FreshCards leave them
	// out before then, and Search's state "buried" finds them. Returns
	// the ids buried, in no particular order; ids absent or another
	// user's are skipped. Suspended cards are buried too (they come back
	// buried if unsuspended the same day). Any error is the store's.
	BuryCards(ctx context.Context, userID string, ids []string, until time.Time) ([]string, error)
	// Unbury ends the burial of the user's cards buried at now, in one
	// deck or every deck when deckID is "": their BuriedUntil becomes now
	// (so the domain can tell a card unburied today). Returns how many it
	// unburied (0 for another user's deck). Any error is the store's.
	Unbury(ctx context.Context, userID, deckID string, now time.Time) (int, error)
	// BuriedCards returns, by card id, the burial of the user's cards
	// buried at now, in one deck or every deck when deckID is "": the
	// cards Unbury would unbury, read first so the change can be undone.
	BuriedCards(ctx context.Context, userID, deckID string, now time.Time) (map[string]time.Time, error)
	// SetBurial sets a card's burial to to (nil: none) when it is was
	// (nil: none), and reports whether it did: false when the card is
	// absent, another user's, or its burial changed. An undo's write.
	SetBurial(ctx context.Context, userID, cardID string, was, to *time.Time) (bool, error)
	// CountPhases counts a deck's cards (every deck when deckID is "") by
	// phase; suspended cards are counted only as suspended.
	CountPhases(ctx context.Context, userID, deckID string) (contracts.PhaseCounts, error)
	// CountPhasesIn is CountPhases over several decks together. Errors
	// only on storage failure.
	CountPhasesIn(ctx context.Context, userID string, deckIDs []string) (contracts.PhaseCounts, error)
	// CountDue counts unsuspended non-new cards due at or before t (every deck when deckID is "").
	CountDue(ctx context.Context, userID, deckID string, t time.Time) (int, error)
	// StudyCards returns the unsuspended cards of a deck, not buried at
	// q.Now, a study queue may show, as q describes: learning and relearning cards due at or before
	// q.LearnDueBy (earliest first, ties by id, no limit), then
	// review-phase cards due at or before q.ReviewDueBy in q.Order, up to
	// q.ReviewLimit. With q.Cram every non-new card counts as review-phase
	// and due. Invalid for an unknown order.
	StudyCards(ctx context.Context, userID, deckID string, q StudyQuery) (learning, review []CardRow, err error)
	// DueCounts counts unsuspended non-new cards by due time: bucket i
	// holds those due in [bounds[i], bounds[i+1]); bucket 0 also holds
	// everything due before bounds[0]. len(result) == len(bounds)-1.
	DueCounts(ctx context.Context, userID, deckID string, bounds []time.Time) ([]int, error)
	// ScheduledStates returns the states of a deck's (every deck's when
	// deckID is "") unsuspended cards that are not new, for the workload
	// simulation, ordered by id.
	ScheduledStates(ctx context.Context, userID, deckID string) ([]contracts.CardState, error)
	// ScheduledStatesByDeck returns what ScheduledStates returns for every
	// deck of the user, in one read, by deck id (a deck without such cards
	// is absent).
	ScheduledStatesByDeck(ctx context.Context, userID string) (map[string][]contracts.CardState, error)
	// DueHistogram counts unsuspended non-new cards by due day: bucket i
	// holds those due in [start+i days, start+i+1 days); bucket 0 also
	// holds everything due before start. len(result) == days.
	DueHistogram(ctx context.Context, userID, deckID string, start time.Time, days int) ([]int, error)
}

// StudyQuery selects the cards of a study queue (see CardStore.StudyCards).
type StudyQuery struct {
	LearnDueBy  time.Time
	ReviewDueBy time.Time
	ReviewLimit int
	// Order is how review-phase cards are sorted: "due" (earliest due
	// first), "retrievability" (lowest predicted recall first: the longest
	// time since the last review relative to stability), "overdueness"
	// (most overdue relative to the interval first) or "random" (by id:
	// the caller shuffles).
	Order string
	// Now is the time retrievability and overdueness are computed at.
	Now  time.Time
	Cram bool
	// WithTies, with Order "due", also returns the review-phase cards due
	// at the same time as the ReviewLimit-th (up to TieLimit cards in
	// all), so the caller breaks those ties itself: which cards a limit
	// takes is then not decided by id.
	WithTies bool
	TieLimit int
	// DeckIDs, when set, selects the cards of these decks instead of the
	// one deck named (a deck with the decks below it); ReviewLimit then
	// bounds the review-phase cards of each deck, and WithTies is
	// ignored.
	DeckIDs []string
}

// Review-log kinds.
const (
	ReviewKindReview = "review" // a rating in a normal session: fed to FSRS, counted against limits
	ReviewKindCram   = "cram"   // a rating in a cram session: the schedule did not change
	ReviewKindManual = "manual" // a reschedule or reset by the user, not a rating
	// ReviewKindUndone is a normal review taken back by undo_changes: out
	// of history and statistics, still counted against the day's limits
	// (an undo gives back no daily-limit slot).
	ReviewKindUndone = "undone"
	// ReviewKindUndoneCram is a cram rating taken back by undo_changes:
	// counted nowhere.
	ReviewKindUndoneCram = "undone-cram"
)

// ReviewLog is one recorded review.
type ReviewLog struct {
	ID         string
	UserID     string
	CardID     string
	DeckID     string
	SessionID  string
	Rating     contracts.Rating
	PrevPhase  contracts.Phase
	State      contracts.CardState // after the review
	ReviewedAt time.Time
	DurationMs int
	// Kind is ReviewKindReview (when empty), ReviewKindCram or ReviewKindManual.
	Kind string
	// Day is the learner's date of the review, in days since 1970-01-01.
	Day int
	// PrevInterval is the card's interval in days before the review.
	PrevInterval int
	// PrevState is the card's whole schedule before the review, kept so a
	// rating in a study session can be undone; nil when not recorded
	// (older logs, manual entries).
	PrevState *contracts.CardState
	// OperationID is the operation (a submit_review call) that wrote the
	// log, so undo_changes finds it; "" when none (older logs, imports,
	// reschedules, which write change records instead).
	OperationID string
	// CredentialID is the credential the operation was made with ("" for
	// none): "everything this key did since" finds its reviews by it.
	CredentialID string
	// CardVersion is the card's version right after the review, kept with
	// OperationID (0 otherwise): undoing the review checks the card is
	// still at it, so it never overwrites a later review or edit. A leech
	// marking the review made takes later versions, in change records of
	// the same operation (logs written before issue 26 §2.2 counted it in).
	CardVersion int64
}

// SessionReview is one rating given in a study session: the queue item it
// completed and its review log.
type SessionReview struct {
	Position int
	Log      ReviewLog
}

// StudiedCounts count the normal reviews of a period by the card's phase
// before the review.
type StudiedCounts struct {
	New    int // new cards introduced
	Review int // review-phase cards reviewed
	// Interday counts the ratings of learning and relearning cards whose
	// step was set before the period (their first rating in it): interday
	// learning, which counts against the review limit as in Anki.
	Interday int
}

// RetentionCounts count the normal reviews of review-phase cards of a
// period and how many passed, split by the card's interval before the
// review: young below MatureDays, mature from it.
type RetentionCounts struct {
	Young, YoungPassed   int
	Mature, MaturePassed int
}

// ReviewDay counts the reviews of one of the learner's days.
type ReviewDay struct {
	Day     time.Time // the learner's date, as midnight UTC of that date
	Reviews int
	Passed  int // rated hard, good or easy
	// DurationMs sums the durations of the day's reviews that recorded one.
	DurationMs int64
}

// ReviewStore keeps the review log.
type ReviewStore interface {
	// AppendReview appends a review. Not found when r.UserID does not own the card.
	AppendReview(ctx context.Context, r ReviewLog) error
	// ReviewDays counts reviews (not manual entries) per learner day (the
	// Day of each log; UTC days for logs without one) since since (a
	// deck's, or every deck's when deckID is ""), oldest first, days
	// without reviews omitted.
	ReviewDays(ctx context.Context, userID, deckID string, since time.Time) ([]ReviewDay, error)
	// Retention counts normal reviews since since of cards that were in
	// the review phase before the review, and how many of them passed.
	Retention(ctx context.Context, userID, deckID string, since time.Time) (total, passed int, err error)
	// NewCardsStudied counts normal reviews since since of cards that were
	// new before the review.
	NewCardsStudied(ctx context.Context, userID, deckID string, since time.Time) (int, error)
	// StudiedSince counts the normal reviews since since by the card's
	// phase before the review (a deck's, or every deck's when deckID is
	// ""), and apart the learning ratings of cards not rated since before
	// (StudiedCounts.Interday).
	StudiedSince(ctx context.Context, userID, deckID string, since time.Time) (StudiedCounts, error)
	// StudiedByDeck is StudiedSince for each of deckIDs, in one read: by
	// deck id, a deck without such reviews absent. Errors only on
	// storage failure.
	StudiedByDeck(ctx context.Context, userID string, deckIDs []string, since time.Time) (map[string]StudiedCounts, error)
	// RetentionSplit counts the normal reviews since since of review-phase
	// cards, young (interval below matureDays) and mature apart.
	RetentionSplit(ctx context.Context, userID, deckID string, since time.Time, matureDays int) (RetentionCounts, error)
	// AnswerButtons counts the ratings of the normal reviews since since
	// (cram and manual entries aside) by the card's age before each:
	// learning, young (interval below matureDays, or not recorded) and
	// mature. Errors only on storage failure.
	AnswerButtons(ctx context.Context, userID, deckID string, since time.Time, matureDays int) (contracts.Buttons, error)
	// AverageDuration returns the mean duration of reviews since since
	// that recorded one, and how many did.
	AverageDuration(ctx context.Context, userID string, since time.Time) (meanMs float64, n int, err error)
	// ListReviews returns up to limit of a user's review logs with ids
	// greater than afterID (all when ""), ordered by id.
	ListReviews(ctx context.Context, userID, afterID string, limit int) ([]ReviewLog, error)
	// CardReviews returns up to limit of the review logs of one of the
	// user's cards (staged ones of published imports included), newest
	// first, every field read except Kind, Day and the previous state;
	// none for another user's card.
	CardReviews(ctx context.Context, userID, cardID string, limit int) ([]ReviewLog, error)
	// ReviewsOfCards returns the review logs of the user's cards with these
	// ids, each with ID, CardID and ReviewedAt (the other fields left
	// zero), in no particular order; other users' cards have none.
	ReviewsOfCards(ctx context.Context, userID string, cardIDs []string) ([]ReviewLog, error)
	// DeleteReview deletes one of the user's review logs (undoing a
	// rating). Not found when absent or another user's.
	DeleteReview(ctx context.Context, userID, reviewID string) error
	// OperationReviews returns up to limit of the user's live review logs
	// (kind review or cram) written by an operation that f picks: one of
	// f.OperationIDs, or made with f.CredentialID (any when "") with its
	// review time in [f.Since, f.Until) (each when set); logs without an
	// operation never. Newest (highest id) first, ids below beforeID (all
	// when ""), every field read. Any error is the store's.
	OperationReviews(ctx context.Context, userID string, f contracts.ChangeFilter, beforeID string, limit int) ([]ReviewLog, error)
	// GetReview returns one of the user's review logs, live or undone, with
	// every field. Not found when absent or another user's.
	GetReview(ctx context.Context, userID, reviewID string) (ReviewLog, error)
	// SetReviewKind changes the kind of one of the user's review logs from
	// from to to (undo_changes taking a review back, or applying it again).
	// Conflict when the log's kind is not from (another undo got there
	// first); not found when absent or another user's.
	SetReviewKind(ctx context.Context, userID, reviewID, from, to string) error
	// StudiedSiblings returns, for each of these notes whose cards had a
	// normal review (kind review) at or after since, the ids of those
	// cards (each once, in no particular order); notes without are
	// absent. It reads the reviews sessions record, not the history an
	// import brought (a study session decides burying with it). Another
	// user's notes have none. Any error is the store's.
	StudiedSiblings(ctx context.Context, userID string, noteIDs []string, since time.Time) (map[string][]string, error)
	// PresetHistory returns the review logs, of every kind but cram, of
	// the user's cards now in decks using presetID: those of up to limit
	// cards with ids greater than afterCardID (all when ""), ordered by
	// card id, then review time, then log id. Each log has ID, CardID,
	// DeckID, Rating, PrevPhase, State.Phase, ReviewedAt, Kind and Day
	// (0 when the log has none); the other fields are left zero. An
	// empty list when there are none (another user's preset has none).
	PresetHistory(ctx context.Context, userID, presetID, afterCardID string, limit int) ([]ReviewLog, error)
}

// StudySessionRow is a stored study session.
type StudySessionRow struct {
	ID        string
	UserID    string
	DeckID    string
	StartedAt time.Time
	ExpiresAt time.Time
	// Mode is "normal" (when empty) or "cram".
	Mode string
}

// SessionItem is one entry of a session queue. A card may appear more than
// once (learning steps bring it back).
type SessionItem struct {
	Position   int
	CardID     string
	ReviewedAt *time.Time
	// Set by NextDueItem: the card's due time and whether it is in a
	// learning or relearning step.
	Due      time.Time
	Learning bool
}

// ReviewTarget is what rating a card in a session reads, in one query:
// the session, the card's lowest pending item, the card, its deck (with
// its preset's settings over its own, as DeckWithoutCounts) and the
// account's settings.
type ReviewTarget struct {
	Session StudySessionRow
	Item    SessionItem
	Card    CardRow
	Deck    contracts.Deck
	// Settings are the account's stored settings; SettingsFound is false
	// when none were ever stored (the caller uses the defaults).
	Settings      contracts.AccountSettings
	SettingsFound bool
	// SessionTree reports whether the session's deck has decks below it
	// (a session of a deck tree: its limits are counted over the tree).
	SessionTree bool
}

// NextDue is the pending item to show, its card and the session's
// progress, as NextDueCard reads them in one query.
type NextDue struct {
	// Item is nil when no item is pending; Card is its card otherwise.
	Item *SessionItem
	Card CardRow
	// Reviewed and Remaining count the session's completed and pending
	// items, as Progress does.
	Reviewed, Remaining int
}

// PendingCard is a pending session item with its card.
type PendingCard struct {
	Item SessionItem
	Card CardRow
}

// StudySessionStore keeps study sessions and their queues.
type StudySessionStore interface {
	// ReviewTarget reads, in one query, what rating cardID in the session
	// needs (see ReviewTarget), whatever the session's expiry. Not found
	// when the card has no pending item in the user's session (the session
	// may be missing, another user's, or finished with the card).
	ReviewTarget(ctx context.Context, userID, sessionID, cardID string) (ReviewTarget, error)
	// NextDueCard is NextDueItem with the item's card and the session's
	// progress, in one query. Not found for a missing or another user's
	// session.
	NextDueCard(ctx context.Context, userID, sessionID string, now, learnAheadUntil time.Time) (NextDue, error)
	// PendingCards lists up to limit pending items with their cards in the
	// order NextDueItem takes them at now (learning cards due by now, the
	// queue's other cards by position, learning cards due by
	// learnAheadUntil), without learning cards due later. Not found for a
	// missing or another user's session.
	PendingCards(ctx context.Context, userID, sessionID string, now, learnAheadUntil time.Time, limit int) ([]PendingCard, error)
	// CreateSession inserts a session with its queue (positions 0..n-1).
	CreateSession(ctx context.Context, s StudySessionRow, cardIDs []string) error
	// GetSession returns a session. Not found when absent or another
	// user's (expiry is the caller's decision).
	GetSession(ctx context.Context, userID, sessionID string) (StudySessionRow, error)
	// NextItem returns the pending item with the lowest position, or nil
	// when none is pending. Not found for a missing or another user's session
	// (so are Progress and AppendItem).
	NextItem(ctx context.Context, userID, sessionID string) (*SessionItem, error)
	// NextDueItem returns the pending item to show at now: a learning or
	// relearning card due at or before now (earliest due first), else the
	// lowest-position item whose card is not in a learning step, else a
	// learning card due at or before learnAheadUntil (earliest first), else
	// the learning card due next (the caller waits for it); nil when none
	// is pending. Not found for a missing or another user's session.
	NextDueItem(ctx context.Context, userID, sessionID string, now, learnAheadUntil time.Time) (*SessionItem, error)
	// PendingItem returns the pending item of the card with the lowest
	// position. Not found when the card has no pending item in the session.
	PendingItem(ctx context.Context, userID, sessionID, cardID string) (SessionItem, error)
	// CompleteItem marks an item reviewed. Conflict when it was already
	// reviewed (a concurrent review won); not found when absent.
	CompleteItem(ctx context.Context, userID, sessionID string, position int, at time.Time) error
	// AppendItem adds a card at the end of the queue. Conflict when a
	// concurrent append took the same position.
	AppendItem(ctx context.Context, userID, sessionID, cardID string) error
	// Progress counts reviewed and pending items.
	Progress(ctx context.Context, userID, sessionID string) (reviewed, remaining int, err error)
	// ItemReview returns the review log that completed the item at
	// position (its card, in this session, at the item's completion time).
	// Not found when the item is absent or pending, or the session is
	// missing or another user's.
	ItemReview(ctx context.Context, userID, sessionID string, position int) (ReviewLog, error)
	// SessionReviews returns the ratings given in a session, each with the
	// item it completed and its review log (PrevState and OperationID
	// included), in the order they were given (completion time, then
	// position). Items completed without a review (skipped), or whose
	// review undo_changes took back, are left out. Not found for a
	// missing or another user's session.
	SessionReviews(ctx context.Context, userID, sessionID string) ([]SessionReview, error)
	// ReopenItem makes a reviewed item pending again and removes the
	// pending items of the same card queued after it (the learning step a
	// rating re-queued), undoing CompleteItem and AppendItem together.
	// Not found when the item is absent or the session another user's;
	// conflict when the item is pending.
	ReopenItem(ctx context.Context, userID, sessionID string, position int) error
}

// APIKeyRow is a stored API key: its view plus the owner and the hash of
// its secret (never the secret).
type APIKeyRow struct {
	contracts.APIKeyView
	UserID string
	Hash   []byte
	// Exposure is the owner's exposure settings when KeyByID read them in
	// the same query (so authenticating a call costs one read); nil when
	// the store did not. Other methods leave it nil.
	Exposure *contracts.ExposureSettings
}

// APIKeyStore keeps API keys.
type APIKeyStore interface {
	// CreateKey inserts a key. Conflict on a duplicate id.
	CreateKey(ctx context.Context, k APIKeyRow) error
	// CreateKeyWithin inserts a key when its user holds fewer than max
	// live keys (not revoked, not expired at k.CreatedAt). It counts and
	// inserts under a lock on the user's row, so concurrent mints on any
	// instances never pass max together. It returns the live keys the user
	// held before and whether the key was inserted. Conflict on a
	// duplicate id; not found when the user does not exist.
	CreateKeyWithin(ctx context.Context, k APIKeyRow, max int) (held int, created bool, err error)
	// KeyByID returns any user's key by id, for authentication. Not found when absent.
	KeyByID(ctx context.Context, id string) (APIKeyRow, error)
	// ListKeys returns a user's keys, newest first.
	ListKeys(ctx context.Context, userID string) ([]APIKeyRow, error)
	// RevokeKey sets RevokedAt if not yet set. Not found when absent.
	RevokeKey(ctx context.Context, userID, id string, at time.Time) error
	// TouchKey records a use. Not found for a missing key.
	TouchKey(ctx context.Context, id string, at time.Time) error
	// SetKeyTrusted marks a user's key trusted (its calls skip the
	// person's confirmation) or not. Not found when absent or another user's.
	SetKeyTrusted(ctx context.Context, userID, id string, trusted bool) error
}

// WebSessionRow is a web session or a one-time sign-in link, stored by the
// hash of its token.
type WebSessionRow struct {
	Hash      []byte
	UserID    string
	Kind      string // "session" or "login_link"
	CreatedAt time.Time
	ExpiresAt time.Time
}

// SignupLinkRow is an open sign-up's one-time link, stored by the hash of
// its token: it names an email that has no account yet (the account is
// created when the link is used).
type SignupLinkRow struct {
	Hash      []byte
	Email     string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// WebSessionStore keeps web sessions and sign-in links.
type WebSessionStore interface {
	// CreateWebSession inserts a row.
	CreateWebSession(ctx context.Context, s WebSessionRow) error
	// WebSession returns a row of the kind by hash. Not found when absent.
	WebSession(ctx context.Context, kind string, hash []byte) (WebSessionRow, error)
	// DeleteWebSession deletes a row and reports whether it existed, so a
	// sign-in link is spent exactly once.
	DeleteWebSession(ctx context.Context, kind string, hash []byte) (bool, error)
	// CreateSignupLink inserts a sign-up link. Conflict when the hash exists.
	CreateSignupLink(ctx context.Context, l SignupLinkRow) error
	// SignupLink returns a sign-up link by hash. Not found when absent.
	SignupLink(ctx context.Context, hash []byte) (SignupLinkRow, error)
	// DeleteSignupLink deletes a sign-up link and reports whether it
	// existed, so that it is spent exactly once.
	DeleteSignupLink(ctx context.Context, hash []byte) (bool, error)
}

// ExposureStore keeps per-account tool exposure settings.
type ExposureStore interface {
	// GetExposure returns a user's settings, the zero value when never set.
	GetExposure(ctx context.Context, userID string) (contracts.ExposureSettings, error)
	// PutExposure replaces a user's settings.
	PutExposure(ctx context.Context, userID string, s contracts.ExposureSettings) error
}

// PresetStore keeps presets: scheduling settings shared by decks.
type PresetStore interface {
	// CreatePreset inserts a preset (Decks is ignored). Conflict when the
	// id is taken; not found when the user does not exist.
	CreatePreset(ctx context.Context, userID string, p contracts.Preset) error
	// GetPreset returns a preset with the number of decks using it. Not
	// found when absent or another user's.
	GetPreset(ctx context.Context, userID, presetID string) (contracts.Preset, error)
	// ListPresets returns the user's presets by name, each with the number
	// of decks using it.
	ListPresets(ctx context.Context, userID string) ([]contracts.Preset, error)
	// UpdatePreset stores a preset's name, settings and UpdatedAt. Not
	// found when absent or another user's.
	UpdatePreset(ctx context.Context, userID string, p contracts.Preset) error
	// DeleteUnusedPreset deletes a preset no deck uses and reports whether
	// it did; a preset in use, absent or another user's is left alone.
	DeleteUnusedPreset(ctx context.Context, userID, presetID string) (bool, error)
}

// SettingsStore keeps per-account settings of the learner's day.
type SettingsStore interface {
	// GetSettings returns a user's stored settings (Today, DayStartsAt and
	// NextDayAt are left zero) and whether any were ever stored; the zero
	// value and false when never set.
	GetSettings(ctx context.Context, userID string) (contracts.AccountSettings, bool, error)
	// PutSettings replaces a user's settings (timezone, rollover hour,
	// learn-ahead minutes, daily caps, UpdatedAt). Not found when the user
	// does not exist.
	PutSettings(ctx context.Context, userID string, s contracts.AccountSettings) error
	// LockDailyCaps holds a write lock on the user's stored settings until
	// the transaction ends, so reviews that check the account-wide daily
	// caps (kept there) run one after the other whatever their deck, and
	// each sees the reviews committed before it. Nothing to lock, and nil,
	// when the user never stored settings (there are no caps then).
	LockDailyCaps(ctx context.Context, userID string) error
	// DataVersion returns the account's data version: a number that every
	// committed write of the user's cards, decks, presets, review logs or
	// settings changes, in the writing transaction, whichever instance
	// wrote (0 before the first such write). Something computed from that
	// data after reading version v may be served again while the version
	// is still v.
	DataVersion(ctx context.Context, userID string) (int64, error)
}

// AuditStore keeps the audit trail.
type AuditStore interface {
	// AppendAudit appends an event.
	AppendAudit(ctx context.Context, e contracts.AuditEvent) error
	// ListAudit returns up to limit of a user's events matching f (tool,
	// credential, and Since <= at < Until where set), newest first, older
	// than the event beforeID (from the newest when "").
	ListAudit(ctx context.Context, userID string, f contracts.AuditFilter, beforeID string, limit int) ([]contracts.AuditEvent, error)
}

// IdempotencyStore remembers the results of retry-safe batches.
type IdempotencyStore interface {
	// ClaimKey records that a batch with this key and request fingerprint
	// is being applied, inside the caller's transaction. When the key was
	// used before it returns that batch's fingerprint and stored result
	// with found set, and records nothing.
	ClaimKey(ctx context.Context, userID, scope, key, fingerprint string, at time.Time) (storedFingerprint string, result []byte, found bool, err error)
	// SaveResult stores the result of a claimed key. Not found for a key
	// never claimed.
	SaveResult(ctx context.Context, userID, scope, key string, result []byte) error
}

// MediaRow is a media upload intent and, once uploaded, the media file.
type MediaRow struct {
	ID          string
	UserID      string
	ContentType string
	Filename    string
	MaxBytes    int64
	TokenHash   []byte
	CreatedAt   time.Time
	ExpiresAt   time.Time
	// ClaimedAt is when an upload began with the intent's token: the token
	// is spent from then on, whether the upload succeeds or not.
	ClaimedAt  *time.Time
	UploadedAt *time.Time
	Size       int64
	// SHA256 is the hex SHA-256 of the uploaded bytes ("" before): the
	// file's blob is shared by every media row of the user with this sum.
	SHA256 string
	// CredentialKind and CredentialID name the credential that requested
	// the intent (never a secret), so an upload after its revocation is
	// refused.
	CredentialKind contracts.CredentialKind
	CredentialID   string
	// StageID is the import stage a file an import stored belongs to
	// until the import publishes ("" for every other row): a staged row
	// is seen by no read but StagedMedia, BlobInUse and MediaUsage (its
	// bytes count against the quota), so nothing of an import that fails
	// is ever visible (issue 13 §6).
	StageID string
}

// MediaUsage is what a user's media take up.
type MediaUsage struct {
	// StoredBytes is the size of the user's distinct uploaded files (equal
	// files count once).
	StoredBytes int64
	// ReservedBytes is the announced size of the user's open intents: not
	// uploaded and not expired.
	ReservedBytes int64
	// OpenIntents counts those intents.
	OpenIntents int
}

// MediaStore keeps media intents and files' metadata.
type MediaStore interface {
	// CreateMedia inserts an intent. Conflict on a duplicate id; not found
	// when the user does not exist.
	CreateMedia(ctx context.Context, m MediaRow) error
	// MediaByID returns any user's media row, for the upload endpoint and
	// signed URLs (callers check the owner). Not found when absent or
	// staged.
	MediaByID(ctx context.Context, id string) (MediaRow, error)
	// ClaimUpload spends an intent's token: it sets ClaimedAt when the row
	// was neither claimed nor uploaded. Conflict when it was (of two
	// concurrent claims exactly one succeeds); not found when absent.
	ClaimUpload(ctx context.Context, id string, at time.Time) error
	// MarkUploaded records the upload's size and SHA-256. Conflict when
	// already uploaded; not found when absent.
	MarkUploaded(ctx context.Context, id string, size int64, sha256 string, at time.Time) error
	// ListMedia returns up to limit of a user's media rows (intents and
	// uploads, staged rows left out) with ids greater than afterID (all
	// when ""), ordered by id.
	ListMedia(ctx context.Context, userID, afterID string, limit int) ([]MediaRow, error)
	// StagedMedia returns up to limit staged media rows with ids greater
	// than afterID, ordered by id: those of the stage when stageID is
	// set (whoever's it is; userID is not needed then), else all of the
	// user's.
	StagedMedia(ctx context.Context, userID, stageID, afterID string, limit int) ([]MediaRow, error)
	// MediaNamed returns the user's uploaded, unstaged media rows of this
	// file name and content type (at most limit), so an import can reuse
	// a file the account has already instead of storing it again.
	MediaNamed(ctx context.Context, userID, filename, contentType string, limit int) ([]MediaRow, error)
	// LockMedia, inside a transaction, makes every other transaction that
	// locks the same user's media wait until this one ends (uploads,
	// collection and card writes that reference media use it). Not found
	// when the user does not exist.
	LockMedia(ctx context.Context, userID string) error
	// MediaUsage sums a user's stored files and open intents at now.
	MediaUsage(ctx context.Context, userID string, now time.Time) (MediaUsage, error)
	// UploadedMedia returns which of ids are media of the user whose
	// upload finished, in no particular order; other users' ids and
	// staged rows are absent.
	UploadedMedia(ctx context.Context, userID string, ids []string) ([]string, error)
	// UnusedMedia returns up to limit uploaded media rows of any user,
	// uploaded before before, with ids greater than afterID, that no card
	// or note of their user references (as "media:ID" or "[sound:ID]"),
	// trashed ones included; ordered by id. Staged rows are left to their
	// stage's drop.
	UnusedMedia(ctx context.Context, before time.Time, afterID string, limit int) ([]MediaRow, error)
	// MediaInUse reports whether a card or note of the user references
	// the media id, trashed ones included.
	MediaInUse(ctx context.Context, userID, id string) (bool, error)
	// BlobInUse reports whether any media row of the user, staged ones
	// included, has this SHA-256.
	BlobInUse(ctx context.Context, userID, sha256 string) (bool, error)
	// DeleteMedia deletes a user's media row. Not found when absent.
	DeleteMedia(ctx context.Context, userID, id string) error
}

// BlobStore keeps files' bytes (media, uploaded packages) under keys the
// domain makes ("media/<user>/<sha256>"). Bytes stream in and out: no
// method holds a whole file in memory, so files of hundreds of megabytes
// are fine. A reader sees a blob whole or not at all.
type BlobStore interface {
	// CreateBlob begins a blob: write its bytes to the writer, then Commit
	// it under a key, or Abort it. A blob neither committed nor aborted
	// (a crash) is removed by PurgeStaged. Unavailable when the storage
	// cannot be written.
	CreateBlob(ctx context.Context) (BlobWriter, error)
	// OpenBlob opens a blob for reading. Not found when absent; invalid
	// for a malformed key.
	OpenBlob(ctx context.Context, key string) (Blob, error)
	// DeleteBlob removes a blob; removing an absent blob is not an error.
	// Invalid for a malformed key; unavailable when the storage cannot be
	// written.
	DeleteBlob(ctx context.Context, key string) error
	// PurgeStaged removes blobs begun before before and never committed,
	// and says how many it removed. Unavailable when the storage cannot be
	// written.
	PurgeStaged(ctx context.Context, before time.Time) (int, error)
}

// BlobWriter receives a new blob's bytes.
type BlobWriter interface {
	// Write appends bytes. Unavailable when the storage cannot be written.
	io.Writer
	// Commit files the bytes under key, replacing any blob there at once
	// (readers see the old bytes or the new, whole). Invalid for a
	// malformed key (a key is slash-separated segments of letters, digits,
	// '-', '_' and '.', none empty or starting with '.'); unavailable when the storage
	// cannot be written. The writer is done afterwards.
	Commit(ctx context.Context, key string) error
	// Abort discards the bytes; after Commit it does nothing. It is safe
	// to defer.
	Abort() error
}

// Blob is an open blob: read it in order or at offsets (a zip reader
// needs io.ReaderAt and the size).
type Blob interface {
	io.ReadSeekCloser
	io.ReaderAt
	// Size is the blob's length in bytes.
	Size() int64
}

// Mailer sends mail.
type Mailer interface {
	// Send sends a plain-text message. Unavailable when the mail service is down.
	Send(ctx context.Context, to, subject, body string) error
}

// JobRow is a stored long job: the record, whose user it is, the scope a
// caller needs to see or cancel it, the kind's input, and its lease (the
// instance running it and until when; a lease that ends without renewal
// means that instance is gone).
type JobRow struct {
	contracts.Job
	UserID     string
	Scope      contracts.Scope
	Input      []byte // the kind's input, JSON
	LeaseOwner string
	LeaseUntil time.Time
	Attempts   int // how many times a runner claimed it
}

// JobStore keeps long jobs. Any instance may run any job: a runner claims
// one under a lease and renews it while it works.
type JobStore interface {
	// CreateJob inserts a queued job. Not found when the user does not
	// exist; conflict on a duplicate id; rate_limited (limit queued_jobs)
	// when the user has contracts.MaxQueuedJobs jobs queued already.
	CreateJob(ctx context.Context, j JobRow) error
	// GetJob returns one of the user's jobs. Not found when absent or
	// another user's.
	GetJob(ctx context.Context, userID, jobID string) (JobRow, error)
	// LatestJob returns the user's newest job of kind whose input is
	// exactly input. Not found when there is none.
	LatestJob(ctx context.Context, userID, kind string, input []byte) (JobRow, error)
	// ClaimJob leases a runnable job to owner until leaseUntil and
	// returns it with ok set: a queued job, or a running job whose lease
	// ended before now (its previous runner is gone). Accounts take turns
	// (the one whose last job started longest ago first, then its oldest
	// job) and an account has at most one job running, across every
	// instance. The claim sets the status running, StartedAt when unset,
	// and adds one to Attempts. ok is false when no job is runnable. Of
	// concurrent claims of one job at most one succeeds.
	ClaimJob(ctx context.Context, owner string, now, leaseUntil time.Time) (j JobRow, ok bool, err error)
	// RenewLease extends owner's lease on a running job to leaseUntil and
	// stores its progress; cancel reports whether cancellation was
	// requested. Conflict when owner no longer holds the lease (it lapsed
	// and another runner claimed the job, or the job ended).
	RenewLease(ctx context.Context, jobID, owner string, p contracts.JobProgress, now, leaseUntil time.Time) (cancel bool, err error)
	// FinishJob ends a running job owner holds with a final status, the
	// result (JSON, may be nil) or the error message, at the given time.
	// Conflict when owner no longer holds the lease; invalid for a status
	// that is not final.
	FinishJob(ctx context.Context, jobID, owner string, status contracts.JobStatus, result []byte, errMsg string, at time.Time) error
	// RequestCancel cancels one of the user's jobs: a queued job ends
	// canceled at once, a running job is marked for its runner to stop,
	// an ended job stays as it is. It returns the job as it is after. Not
	// found when absent or another user's.
	RequestCancel(ctx context.Context, userID, jobID string, at time.Time) (JobRow, error)
}

// FilteredDeckRow is a filtered deck's saved search (issue 28 §4).
type FilteredDeckRow struct {
	DeckID     string
	Search     string
	Limit      int
	Order      string // a contracts.FilteredOrders value
	Reschedule bool
	BuiltAt    time.Time
}

// FilteredQuery selects the cards a filtered deck gathers: those matching
// Filter (its words, deck, tags, state and due time, as CardStore.Search)
// and every Prop, reviewed at or after RatedSince when set; never a
// suspended card, one buried at Now, or one a filtered deck holds.
type FilteredQuery struct {
	Filter     contracts.CardFilter
	RatedSince *time.Time
	Props      []PropFilter
	// Order is a contracts.FilteredOrders value; random returns the
	// matches in id order, for the caller to shuffle.
	Order string
	Limit int
	Now   time.Time
}

// PropFilter compares a card's column with a value: Column is one of
// PropColumns, Op one of <, <=, >, >=, =, != (due compares milliseconds
// since the epoch; a due comparison selects only unsuspended, non-new
// cards).
type PropFilter struct {
	Column string
	Op     string
	Value  float64
}

// PropColumns are the card columns a PropFilter may compare.
var PropColumns = []string{"scheduled_days", "due", "lapses", "reps", "stability", "difficulty"}

// FilteredStore keeps filtered decks: their searches and the cards they
// hold away from home (CardRow.HomeDeckID).
type FilteredStore interface {
	// SaveFiltered stores the filtered deck's search (inserting or
	// replacing it). Not found when the deck is absent.
	SaveFiltered(ctx context.Context, userID string, f FilteredDeckRow) error
	// Filtered returns a deck's search. Not found when the deck is not a
	// filtered deck of the user.
	Filtered(ctx context.Context, userID, deckID string) (FilteredDeckRow, error)
	// ListFiltered returns the user's filtered decks, by deck id.
	ListFiltered(ctx context.Context, userID string) ([]FilteredDeckRow, error)
	// Candidates returns up to q.Limit cards q selects, in q.Order.
	Candidates(ctx context.Context, userID string, q FilteredQuery) ([]CardRow, error)
	// Gather moves the user's cards with these ids that are at home into
	// the filtered deck deckID (the home deck kept as HomeDeckID), bumping
	// their versions and UpdatedAt, and returns the ids it moved.
	Gather(ctx context.Context, userID, deckID string, ids []string, at time.Time) ([]string, error)
	// ReturnHome sends every card a filtered deck holds home (versions
	// bumped), and returns their versions after, by card id.
	ReturnHome(ctx context.Context, userID, deckID string, at time.Time) (map[string]int64, error)
}
