package contracts

import (
	"encoding/json"
	"slices"
	"strings"
)

// Tool names. They are final: agents and users' settings refer to them.
const (
	ToolListDecks          = "list_decks"
	ToolGetDeck            = "get_deck"
	ToolSearchCards        = "search_cards"
	ToolGetStudySnapshot   = "get_study_snapshot"
	ToolGetStats           = "get_stats"
	ToolGetStudyPlan       = "get_study_plan"
	ToolCreateDeck         = "create_deck"
	ToolUpdateDeck         = "update_deck"
	ToolDeleteDeck         = "delete_deck"
	ToolAddCards           = "add_cards"
	ToolUpdateCards        = "update_cards"
	ToolDeleteCards        = "delete_cards"
	ToolImportCards        = "import_cards"
	ToolStartStudySession  = "start_study_session"
	ToolSubmitReview       = "submit_review"
	ToolRequestMediaUpload = "request_media_upload"
	ToolRenderStudySession = "render_study_session"
	ToolRescheduleCards    = "reschedule_cards"
	ToolGetSettings        = "get_settings"
	ToolUpdateSettings     = "update_settings"
	ToolAddNotes           = "add_notes"
	ToolUpdateNotes        = "update_notes"
	ToolGetNote            = "get_note"
	ToolGetJob             = "get_job"
	ToolCancelJob          = "cancel_job"
	ToolExportDeck         = "export_deck"
	ToolListTrash          = "list_trash"
	ToolRestoreItems       = "restore_items"
	ToolOptimizeParameters = "optimize_parameters"
	ToolImportPackage      = "import_package"
	ToolUndoChanges        = "undo_changes"
	ToolUndoLastRating     = "undo_last_rating"
	ToolBuryCards          = "bury_cards"
	ToolUnbury             = "unbury"
	ToolFilteredDeck       = "filtered_deck"
	ToolGetRetentionAdvice = "get_retention_advice"
)

// StudyWidgetURI is the MCP Apps resource that renders a study session.
const StudyWidgetURI = "ui://takhtabush/study-session"

// StudyWidgetMIMEType is the MCP Apps HTML profile.
const StudyWidgetMIMEType = "text/html;profile=mcp-app"

// Annotations are the MCP tool hints. All four are always sent, so no
// client falls back to the spec's pessimistic defaults.
type Annotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
	OpenWorldHint   bool `json:"openWorldHint"`
}

// ToolDef is one MCP tool: the single source for tools/list, argument
// validation, scope enforcement, the audit write set, the generated tool
// reference and the web app's settings screen.
type ToolDef struct {
	Name        string          // snake_case, ≤ 64 characters
	Title       string          // for people
	Description string          // for a model: what it does and when to use it
	InputSchema json.RawMessage // JSON Schema 2020-12, complete: what arguments are validated against
	// ListedInput is the form of InputSchema that tools/list sends:
	// without string length bounds, which only the validator needs (a
	// call past one gets an error that names it); filled from it.
	ListedInput  json.RawMessage
	OutputSchema json.RawMessage // the wire form of ResultSchema that tools/list sends when ListOutput; filled from it
	ResultSchema json.RawMessage // JSON Schema 2020-12 of structuredContent, complete: closed objects, required, formats
	Annotations  Annotations
	Scopes       []Scope // all are required to see and call the tool
	// AnyScopes, when set, must be matched by at least one granted scope
	// (besides all of Scopes) to see and call the tool: the job tools,
	// which any scope that starts a job may reach; the handler then checks
	// the scope of the one job asked for.
	AnyScopes    []Scope
	Mutates      bool           // writes data; hidden in read-only mode; audited
	MutatesWith  string         // an argument whose presence makes a call mutate (and need WriteScopes)
	WriteScopes  []Scope        // extra scopes a call needs when MutatesWith is present
	WritesAs     string         // the tool whose exposure setting also governs that write
	ExactlyOneOf []string       // arguments of which exactly one must be given (top-level oneOf is refused by model APIs)
	AuditAction  string         // the action recorded in the audit trail for a mutating or AuditedRead call
	Meta         map[string]any // MCP _meta of the tool, e.g. its MCP Apps widget
	// TaskSupport is TaskOptional when, in the 2026-07-28 era, a call may
	// run as an MCP task (a stored job any instance reports on) for a
	// client that declared the tasks extension; empty for never.
	TaskSupport string
	// JobKind names the stored job a call starts (its result is that job,
	// a Job record). With TaskSupport, a task call answers with the job
	// itself as the task instead of a task that wraps the call.
	JobKind string
	// Sets are the toolsets the tool belongs to (Toolsets): list,
	// dispatch, the tool reference and the agent settings page read them.
	Sets []string
	// ListOutput sends OutputSchema in tools/list. Most tools do not:
	// every listed byte costs context on every turn, and a model reads a
	// result's shape from the result; structuredContent is always sent.
	ListOutput bool
	// AuditedRead marks a read that hands data out of the account
	// (export_deck): audited like a mutation, though it writes nothing and
	// stays available in read-only mode.
	AuditedRead bool
	// Confirm, when set, is the rule under which a call can need the
	// person's yes (issue 26 §3), decided from the call's dry run: the
	// tool takes dryRun and ConfirmArg.
	Confirm ConfirmRule
	// ResultOperationID marks a mutating tool whose result object has no
	// operationId of its own: a call that commits carries its operation
	// id (what undo_changes takes) in structuredContent as "operationId",
	// which ResultSchema declares (filled in init; the listed wire form,
	// computed before, does not, so tools/list stays as it was).
	ResultOperationID bool
}

// AppOnly is the _meta of a tool only an MCP Apps widget calls (MCP Apps
// visibility ["app"]): hosts keep it out of the model's tool list.
var AppOnly = map[string]any{"ui": map[string]any{"visibility": []string{"app"}}}

// TaskOptional marks a tool whose calls may run as MCP tasks.
const TaskOptional = "optional"

// Allows reports whether granted scopes let a caller see and call the
// tool: all of Scopes and, when AnyScopes is set, one of them.
func (t ToolDef) Allows(granted []Scope) bool {
	return HasScopes(granted, t.Scopes) && HasAnyScope(granted, t.AnyScopes)
}

// Audited reports whether a call with the given argument names writes an
// audit row.
func (t ToolDef) Audited(hasArg func(name string) bool) bool {
	return t.Mutates || t.AuditedRead || t.WritesWith(hasArg)
}

// WritesWith reports whether a call of a read tool with the given argument
// names writes after all (its MutatesWith argument is present).
func (t ToolDef) WritesWith(hasArg func(name string) bool) bool {
	return !t.Mutates && t.MutatesWith != "" && hasArg(t.MutatesWith)
}

var (
	readOnly    = Annotations{ReadOnlyHint: true, IdempotentHint: true}
	additive    = Annotations{}
	idempotent  = Annotations{IdempotentHint: true}
	destructive = Annotations{DestructiveHint: true, IdempotentHint: true}
)

var (
	noteFieldsArg = withDesc(schema{"type": "object", "additionalProperties": with(str(""), "maxLength", MaxCardSideLen)},
		"Values by field name, e.g. {\"Front\": \"…\"}.")
	tagsArg   = with(array(with(str(""), "minLength", 1, "maxLength", MaxTagLen), "E.g. [\"chapter-1\"]."), "maxItems", MaxTagsPerCard)
	deckIDArg = id("From list_decks.")
	jobIDArg  = id("The job's id (from the tool that started it).")
	cursorArg = str("Previous page's nextCursor.")
	cardsArg  = object(schema{
		"front": with(str("Question, Markdown; media: ![alt](media:ID), [sound:ID]."), "minLength", 1, "maxLength", MaxCardSideLen),
		"back":  with(str("Answer."), "minLength", 1, "maxLength", MaxCardSideLen),
		"tags":  tagsArg,
	}, "front", "back")
	dryRunArg    = boolean("Preview outcomes; writes nothing.")
	confirmArg   = with(str("Id the confirmation link gave."), "minLength", 1, "maxLength", 64)
	idemArg      = with(str("Retry key: a repeat returns the first result, adds nothing."), "maxLength", 128)
	retentionArg = number("Target recall, default 0.9; higher: more reviews.", 0.7, 0.99)
	newPerDayArg = integer("New cards a day, default 20.", 0, 1000)
	revPerDayArg = integer("Max reviews a day, default 200.", 0, 10000)
	maxIvlArg    = integer("Longest interval, days, default 36500.", 1, 36500)
	stepsArg     = func(what string) schema {
		return with(array(number("", 1, MaxStepMinutes), what+" steps, minutes."), "minItems", 1, "maxItems", MaxSteps)
	}
	deckPresetArgs = schema{
		"learningSteps":   stepsArg("New cards' learning"),
		"relearningSteps": stepsArg("Forgotten cards' relearning"),
		"weights":         with(array(schema{"type": "number"}, "The 21 FSRS-6 weights."), "minItems", 21, "maxItems", 21),
		"reviewOrder":     enum("Due reviews: due date, lowest recall, most overdue for the interval, or random.", ReviewOrders...),
		"newOrder":        enum("New cards: as added, or random.", NewOrders...),
		"buryNew":         boolean("Hold new cards to tomorrow once a sibling (same note) was studied today (default true)."),
		"buryReviews":     boolean("Same for reviews (default true)."),
		"buryInterday":    boolean("Same for interday learning (default false)."),
		"leechThreshold":  integer("Lapses making a leech, then every half (default 8).", 1, MaxLeechThreshold),
		"leechAction":     enum("Tag the note leech, or also suspend.", LeechActions...),
		"newMix":          enum("New cards among, before or after reviews.", NewMixes...),
		"easyDays": with(array(with(schema{"type": "number"}, "minimum", 0, "maximum", 1),
			"Easy days: per weekday, Monday first, the share of a normal day's reviews (1 normal, 0 none), used by load balancing."), "minItems", 7, "maxItems", 7),
		"rescheduleOnChange": boolean("New weights also move due dates to their new intervals (default false)."),
	}
)

// invocation adds to a tool's _meta the status lines ChatGPT shows while
// the tool runs and after it ran (openai/toolInvocation/*, at most 64
// characters each).
func invocation(meta map[string]any, invoking, invoked string) map[string]any {
	if meta == nil {
		meta = map[string]any{}
	}
	meta["openai/toolInvocation/invoking"] = invoking
	meta["openai/toolInvocation/invoked"] = invoked
	return meta
}

// jobScopes are the scopes of the tools that start jobs (import_package,
// import_cards as a task: decks:write; optimize_parameters: study:write):
// any of them reaches get_job and cancel_job, and each job then needs its
// own kind's scope.
var jobScopes = []Scope{ScopeDecksWrite, ScopeStudyWrite}

var catalog = []ToolDef{
	{
		Name: ToolListDecks, Title: "List decks",
		Sets:         []string{ToolsetStudy, ToolsetLibrary, ToolsetNotes, ToolsetExchange, ToolsetAdmin},
		Description:  "List the user's flashcard decks with counts, subdecks included: total, new, learning, review, due now. Paginated.",
		InputSchema:  raw(object(schema{"cursor": cursorArg, "limit": integer("Page size, default 50.", 1, 200)})),
		ResultSchema: raw(pageOut(deckOut)),
		Annotations:  readOnly, Scopes: []Scope{ScopeDecksRead},
	},
	{
		Name: ToolGetDeck, Title: "Get deck",
		Sets:         []string{ToolsetLibrary, ToolsetAdmin},
		Description:  "Get a deck with its settings and card counts.",
		InputSchema:  raw(object(schema{"deckId": deckIDArg}, "deckId")),
		ResultSchema: raw(deckOut),
		Annotations:  readOnly, Scopes: []Scope{ScopeDecksRead},
	},
	{
		Name: ToolSearchCards, Title: "Search cards",
		Sets:        []string{ToolsetLibrary, ToolsetAdmin},
		Description: "Search cards: words in front, back or tags; filter by deck, tags, state, due date; an empty query lists all. Paginated.",
		InputSchema: raw(object(schema{
			"query":     with(str("All words must appear."), "maxLength", 500),
			"deckId":    deckIDArg,
			"tags":      with(array(str(""), "Cards with all these tags."), "maxItems", 10),
			"state":     enum("Cards in it.", "new", "learning", "review", "relearning", "suspended", "buried", "leech"),
			"dueBefore": dateOrTime("Cards due before this."),
			"cursor":    cursorArg,
			"limit":     integer("Page size, default 20.", 1, MaxSearchResults),
		})),
		ResultSchema: raw(pageOut(cardOut)),
		Annotations:  readOnly, Scopes: []Scope{ScopeDecksRead},
	},
	{
		Name: ToolGetStudySnapshot, Title: "Study snapshot",
		Sets:        []string{ToolsetStudy},
		Description: "Due now: what a deck has to study (due, overdue, new allowed today, first fronts); starts no session.",
		InputSchema: raw(object(schema{"deckId": deckIDArg}, "deckId")),
		ResultSchema: raw(object(schema{
			"deckId": strOut, "dueNow": intOut, "overdue": intOut, "newAvailable": intOut, "newToday": intOut,
			"nextDue": tsOut, "preview": schema{"type": "array", "items": studyCardOut},
		}, "deckId", "dueNow", "overdue", "newAvailable", "newToday", "preview")),
		Annotations: readOnly, Scopes: []Scope{ScopeDecksRead},
	},
	{
		Name: ToolGetStats, Title: "Study statistics",
		Sets:        []string{ToolsetStudy},
		Description: "Study statistics of a deck or all, by learner's day: reviews a day, streak, card states, retention (review-phase reviews not rated again; young interval < 21 d, mature >= 21 d); no cram or manual entries.",
		InputSchema: raw(object(schema{
			"deckId": id("Omit for all decks."),
			"days":   integer("Days of history, default 30.", 1, MaxPlanDays),
		})),
		ResultSchema: raw(object(schema{
			"deckId": strOut, "days": intOut,
			"reviewsPerDay": schema{"type": "array", "items": object(schema{"date": strOut, "reviews": intOut, "passed": intOut}, "date", "reviews", "passed")},
			"totalReviews":  intOut, "trueRetention": nullable(numOut),
			"youngRetention": numOut, "matureRetention": numOut, "youngReviews": intOut, "matureReviews": intOut,
			"cardStates": object(schema{"new": intOut, "learning": intOut, "review": intOut, "relearning": intOut, "suspended": intOut},
				"new", "learning", "review", "relearning", "suspended"),
			"streakDays": intOut, "timeSpentSeconds": intOut, "generatedAt": tsOut,
		}, "days", "reviewsPerDay", "totalReviews", "trueRetention", "cardStates", "streakDays", "timeSpentSeconds", "generatedAt")),
		Annotations: readOnly, Scopes: []Scope{ScopeStatsRead},
	},
	{
		Name: ToolGetStudyPlan, Title: "Study plan",
		Sets:        []string{ToolsetStudy},
		Description: "Study plan: per day ahead, reviews due, learning steps and new cards (day 0: what is left today).",
		InputSchema: raw(object(schema{
			"deckId":        id("Omit for all decks."),
			"days":          integer("Days ahead, default 30.", 1, MaxPlanDays),
			"minutesPerDay": number("Study minutes a day, default 20.", 1, 1440),
			"advise":        boolean("Add new cards a day fitting minutesPerDay."),
		})),
		ResultSchema: raw(object(schema{
			"deckId": strOut, "days": intOut,
			"forecast": schema{"type": "array", "items": object(schema{"date": strOut, "due": intOut, "learning": intOut, "new": intOut},
				"date", "due", "learning", "new")},
			"minutesPerDay": numOut, "secondsPerReview": numOut, "secondsPerReviewSource": schema{"type": "string", "enum": []string{"measured", "default"}},
			"averageDuePerDay": numOut, "capacityPerDay": intOut, "newCardsPerDay": intOut, "newCardsRemaining": intOut, "advisedNewCardsPerDay": intOut,
		}, "days", "forecast", "minutesPerDay", "secondsPerReview", "secondsPerReviewSource", "averageDuePerDay", "capacityPerDay", "newCardsPerDay", "newCardsRemaining")),
		Annotations: readOnly, Scopes: []Scope{ScopeStatsRead},
	},
	{
		Name: ToolCreateDeck, Title: "Create deck",
		Sets:        []string{ToolsetLibrary},
		Description: "Create a flashcard deck; returns it with its id, then add_cards.",
		InputSchema: raw(object(schema{
			"name":             with(str("Unique per user."), "minLength", 1, "maxLength", MaxDeckNameLen),
			"description":      with(str("What the deck is for."), "maxLength", MaxDescriptionLen),
			"desiredRetention": retentionArg, "newCardsPerDay": newPerDayArg, "reviewsPerDay": revPerDayArg, "maximumIntervalDays": maxIvlArg,
		}, "name")),
		ResultSchema: raw(deckOut),
		Annotations:  additive, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "deck.create",
	},
	{
		Name: ToolUpdateDeck, Title: "Update deck",
		Sets:        []string{ToolsetAdmin},
		Description: "Rename a deck or change its settings (only those given). Steps, maximumIntervalDays, desiredRetention and weights are its preset's, shared by the decks using it.",
		InputSchema: raw(object(schema{
			"deckId":           deckIDArg,
			"presetId":         with(str("Another deck's settings.presetId to share, or \"new\" for an own copy."), "maxLength", 64),
			"name":             with(str("New name, unique per user."), "minLength", 1, "maxLength", MaxDeckNameLen),
			"description":      with(str("New description."), "maxLength", MaxDescriptionLen),
			"desiredRetention": retentionArg, "newCardsPerDay": newPerDayArg, "reviewsPerDay": revPerDayArg, "maximumIntervalDays": maxIvlArg,
			"learningSteps": deckPresetArgs["learningSteps"], "relearningSteps": deckPresetArgs["relearningSteps"],
			"weights": deckPresetArgs["weights"], "reviewOrder": deckPresetArgs["reviewOrder"], "newOrder": deckPresetArgs["newOrder"],
			"buryNew": deckPresetArgs["buryNew"], "buryReviews": deckPresetArgs["buryReviews"], "buryInterday": deckPresetArgs["buryInterday"],
			"leechThreshold": deckPresetArgs["leechThreshold"], "leechAction": deckPresetArgs["leechAction"], "newMix": deckPresetArgs["newMix"],
			"easyDays": deckPresetArgs["easyDays"], "rescheduleOnChange": deckPresetArgs["rescheduleOnChange"],
		}, "deckId")),
		ResultSchema: raw(deckOut),
		Annotations:  idempotent, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "deck.update",
	},
	{
		Name: ToolDeleteDeck, Title: "Delete deck",
		Sets:         []string{ToolsetLibrary},
		Description:  "Move a deck and its cards to the trash for 30 days (restore_items undoes).",
		InputSchema:  raw(object(schema{"deckId": deckIDArg, "dryRun": dryRunArg, ConfirmArg: confirmArg}, "deckId")),
		ResultSchema: raw(object(schema{"id": strOut, "deleted": boolOut, "cardsDeleted": intOut, "dryRun": boolOut}, "id", "deleted", "cardsDeleted")),
		Annotations:  destructive, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "deck.delete",
		Confirm: ConfirmDeckCards,
	},
	{
		Name: ToolAddCards, Title: "Add cards",
		Sets:        []string{ToolsetLibrary},
		Description: "Add flashcards to a deck, up to 1000 a call. Outcome per item: created (id), duplicate (same front and back in the deck; existingId) or invalid (reason). Safe to retry.",
		InputSchema: raw(object(schema{
			"deckId":         deckIDArg,
			"cards":          with(array(cardsArg, "The cards."), "minItems", 1, "maxItems", MaxBulkItems),
			"idempotencyKey": idemArg,
		}, "deckId", "cards")),
		ResultSchema: raw(bulkOut([]string{"existingId"}, "deckId", "replayed")),
		Annotations:  idempotent, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "cards.add",
	},
	{
		Name: ToolUpdateCards, Title: "Update cards",
		Sets:        []string{ToolsetLibrary},
		Description: "Edit up to 1000 cards: front, back, tags, (un)suspend, or move to another deck. Only given fields change. Per-item outcome.",
		InputSchema: raw(object(schema{
			"updates": with(array(object(schema{
				"id":        id("Card id."),
				"front":     with(str("As in add_cards."), "minLength", 1, "maxLength", MaxCardSideLen),
				"back":      with(str("New answer."), "minLength", 1, "maxLength", MaxCardSideLen),
				"tags":      with(array(with(str(""), "minLength", 1, "maxLength", MaxTagLen), "Replaces all tags."), "maxItems", MaxTagsPerCard),
				"suspended": boolean("true: hidden from study."),
				"deckId":    id("Move to this deck."),
			}, "id"), "One change per card."), "minItems", 1, "maxItems", MaxBulkItems),
			"dryRun":   dryRunArg,
			ConfirmArg: confirmArg,
		}, "updates")),
		ResultSchema: raw(bulkOut([]string{"existingId"}, "dryRun", "changes")),
		Annotations:  idempotent, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "cards.update",
		Confirm: ConfirmUpdateCards,
	},
	{
		Name: ToolDeleteCards, Title: "Delete cards",
		Sets:        []string{ToolsetLibrary},
		Description: "Move cards to the trash for 30 days (restore_items undoes). Outcome per item: deleted, not_found or duplicate (repeated id).",
		InputSchema: raw(object(schema{
			"cardIds":  with(array(id(""), "Card ids."), "minItems", 1, "maxItems", MaxBulkItems),
			"dryRun":   dryRunArg,
			ConfirmArg: confirmArg,
		}, "cardIds")),
		ResultSchema: raw(bulkOut(nil, "dryRun", "changes")),
		Annotations:  destructive, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "cards.delete",
		Confirm: ConfirmDeleteCards,
	},
	{
		Name: ToolImportCards, Title: "Import cards",
		Sets:        []string{ToolsetLibrary, ToolsetExchange},
		Description: "Import cards from pasted CSV/TSV (front, back, tags; header detected) or an Anki text export (note types make cards, HTML converted, A::B decks made). Per-card outcomes with line; dropped counts removed HTML.",
		InputSchema: raw(object(schema{
			"deckId":         deckIDArg,
			"text":           with(str("The file's text."), "minLength", 1, "maxLength", MaxImportBytes),
			"format":         enum("Default auto-detects.", ImportAuto, ImportCSV, ImportTSV, ImportAnki),
			"idempotencyKey": idemArg,
			"dryRun":         dryRunArg,
		}, "deckId", "text")),
		ResultSchema: raw(bulkOut([]string{"existingId", "line", "deckId"}, "deckId", "replayed", "dropped", "decksCreated", "dryRun", "changes")),
		Annotations:  idempotent, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "cards.import",
		TaskSupport: TaskOptional,
	},
	{
		Name: ToolAddNotes, Title: "Add notes",
		Sets:        []string{ToolsetNotes},
		Description: "Add notes; each makes its cards (" + NoteTypeBasicReversed + ": both directions, Cloze: one per {{c1::…}}). Fields by name (Basic: Front, Back; Cloze: Text, Back Extra; own types: get_note's fieldNames). Per-note outcome with cardIds.",
		InputSchema: raw(object(schema{
			"deckId": deckIDArg,
			"notes": with(array(object(schema{
				"noteType": with(str("Stock ("+strings.Join(StockNoteTypes, ", ")+") or your own type's noteTypeId or name."), "maxLength", 200),
				"fields":   noteFieldsArg,
				"tags":     tagsArg,
			}, "noteType", "fields"), "The notes to add."), "minItems", 1, "maxItems", MaxNoteBulk),
			"idempotencyKey": idemArg,
		}, "deckId", "notes")),
		ResultSchema: raw(bulkOut([]string{"existingId", "cardIds"}, "deckId", "replayed")),
		Annotations:  idempotent, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "notes.add",
	},
	{
		Name: ToolUpdateNotes, Title: "Update notes",
		Sets:        []string{ToolsetNotes},
		Description: "Edit notes' fields or tags; their cards are re-made and keep their scheduling. Only the fields given change. Per-note outcome.",
		InputSchema: raw(object(schema{
			"updates": with(array(object(schema{
				"id":     id("The note's id."),
				"fields": noteFieldsArg,
				"tags":   with(array(with(str(""), "minLength", 1, "maxLength", MaxTagLen), "Replaces all tags."), "maxItems", MaxTagsPerCard),
			}, "id"), "One change per note."), "minItems", 1, "maxItems", MaxNoteBulk),
			"dryRun":   dryRunArg,
			ConfirmArg: confirmArg,
		}, "updates")),
		ResultSchema: raw(bulkOut([]string{"existingId", "cardIds"}, "dryRun", "changes")),
		Annotations:  idempotent, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "notes.update",
		// Each note rewrites its cards: the update threshold, as update_cards.
		Confirm: ConfirmUpdateCards,
	},
	{
		Name: ToolGetNote, Title: "Get note",
		Sets:         []string{ToolsetNotes},
		Description:  "One note: its type, fields, tags and cards (a card's noteId names its note).",
		InputSchema:  raw(object(schema{"noteId": id("The note's id.")}, "noteId")),
		ResultSchema: raw(noteOut),
		Annotations:  readOnly, Scopes: []Scope{ScopeDecksRead},
	},
	{
		Name: ToolStartStudySession, Title: "Start study session",
		Sets:        []string{ToolsetStudy},
		Description: "Study a deck (with its subdecks) in text: learning steps, reviews, then new cards, within today's limits. Show each front, reveal the back, submit_review. A step due within learnAheadMinutes shows early only if nothing else is left; else nextCardAt says when.",
		InputSchema: raw(object(schema{
			"deckId":          deckIDArg,
			"newLimit":        integer("Max new cards.", 0, MaxSessionNewCards),
			"reviewLimit":     integer("Max reviews.", 0, MaxSessionReviews),
			"reviewAheadDays": integer("Also cards due within N days (early review).", 0, MaxReviewAheadDays),
			"cram":            boolean("Review any cards; schedules and daily counts unchanged."),
		}, "deckId")),
		ResultSchema: raw(sessionOut),
		Annotations:  additive, Scopes: []Scope{ScopeStudyWrite}, Mutates: true, AuditAction: "study.start",
		Meta: invocation(nil, "Starting a study session…", "Study session started"),
	},
	{
		Name: ToolSubmitReview, Title: "Submit review",
		Sets:        []string{ToolsetStudy},
		Description: "Rate a flashcard in a study session: again (forgot), hard, good or easy. Returns the next due date and card, or done.",
		InputSchema: raw(object(schema{
			"sessionId":  id("From start_study_session."),
			"cardId":     id("The current card."),
			"position":   integer("From the session; a repeat is a replay.", 0, 100000),
			"rating":     enum("User's recall.", Ratings...),
			"durationMs": integer("User's time, if known.", 0, 3600000),
		}, "sessionId", "cardId", "position", "rating")),
		ResultSchema: raw(object(schema{
			"sessionId": strOut, "cardId": strOut, "rating": strOut, "state": cardStateOut, "nextDue": tsOut,
			"interval": strOut, "reviewed": intOut, "remaining": intOut, "done": boolOut, "next": studyCardOut, "replayed": boolOut, "nextCardAt": tsOut,
			"leech": boolOut,
		}, "sessionId", "cardId", "rating", "state", "nextDue", "interval", "reviewed", "remaining", "done")),
		Annotations: additive, Scopes: []Scope{ScopeStudyWrite}, Mutates: true, AuditAction: "study.review",
		Meta: invocation(nil, "Saving your rating…", "Rating saved"),
	},
	{
		Name: ToolRequestMediaUpload, Title: "Request media upload",
		ListOutput:  true, // the model acts on the result's fields: a URL to hand on or PUT to, a status to poll
		Sets:        []string{ToolsetNotes, ToolsetExchange},
		Description: "A short-lived URL to PUT one file to, with the given headers. Cards show images and audio (max 10 MiB) by mediaId; zip/text are for import_package.",
		InputSchema: raw(object(schema{
			"contentType": enum("The file's type.", UploadTypes()...),
			"bytes":       integer("The file's size in bytes.", 1, MaxAttachmentBytes),
			"filename":    with(str("The original file name, shown to people."), "maxLength", 200),
		}, "contentType", "bytes")),
		ResultSchema: raw(object(schema{
			"mediaId": strOut, "uploadUrl": strOut, "method": strOut,
			"headers": schema{"type": "object", "additionalProperties": strOut}, "expiresAt": tsOut, "maxBytes": intOut,
			"contentType": strOut, "allowedTypes": strListOut,
		}, "mediaId", "uploadUrl", "method", "headers", "expiresAt", "maxBytes", "contentType", "allowedTypes")),
		Annotations: additive, Scopes: []Scope{ScopeMediaWrite}, Mutates: true, AuditAction: "media.request_upload",
	},
	{
		Name: ToolRenderStudySession, Title: "Show study session",
		Sets:        []string{ToolsetStudy},
		Description: "Study widget: show an interactive study session (sessionId) or start one (deckId); give exactly one. Make it the turn's only tool call. The text result has a study link.",
		InputSchema: raw(object(schema{
			"sessionId": id("A session to show."),
			"deckId":    id("Start a session on it."),
		})),
		ResultSchema: raw(studyViewOut),
		Annotations:  additive, Scopes: []Scope{ScopeStudyRender},
		MutatesWith: "deckId", WriteScopes: []Scope{ScopeStudyWrite}, WritesAs: ToolStartStudySession, AuditAction: "study.start",
		ExactlyOneOf: []string{"sessionId", "deckId"},
		// MCP Apps' link, its older flat key, and ChatGPT's alias: every
		// Apps host finds the widget.
		Meta: invocation(map[string]any{"ui": map[string]any{"resourceUri": StudyWidgetURI}, "ui/resourceUri": StudyWidgetURI, "openai/outputTemplate": StudyWidgetURI},
			"Opening your study session…", "Study session ready"),
	},
	{
		Name: ToolRescheduleCards, Title: "Reschedule cards",
		Sets:        []string{ToolsetAdmin},
		Description: "Set cards' due date (dueDate, or a day in days [min,max] from today) or reset them to new; exactly one. Logged as manual entries; memory state kept. Per-item outcome.",
		InputSchema: raw(object(schema{
			"cardIds":      with(array(id(""), "Ids of the cards."), "minItems", 1, "maxItems", MaxBulkItems),
			"dueDate":      with(str("YYYY-MM-DD, today or later."), "minLength", 10, "maxLength", 10),
			"days":         with(array(integer("", 0, DefaultMaximumIntervalDays), "[min, max] days from today."), "minItems", 2, "maxItems", 2),
			"reset":        boolean("Forget the cards: back to new."),
			"keepInterval": boolean("Keep the interval."),
			"dryRun":       dryRunArg,
			ConfirmArg:     confirmArg,
		}, "cardIds")),
		ResultSchema: raw(bulkOut(nil, "dryRun", "changes")),
		Annotations:  idempotent, Scopes: []Scope{ScopeStudyWrite}, Mutates: true, AuditAction: "cards.reschedule",
		Confirm:      ConfirmRescheduleCards,
		ExactlyOneOf: []string{"dueDate", "days", "reset"},
	},
	{
		Name: ToolUndoLastRating, Title: "Undo last rating",
		Sets:         []string{ToolsetStudy},
		Description:  "Undo a study session's last rating: the card's schedule goes back and it is shown again. The widget's undo button.",
		InputSchema:  raw(object(schema{"sessionId": id("From the widget's session.")}, "sessionId")),
		ResultSchema: raw(object(schema{"cardId": strOut, "rating": strOut, "session": sessionOut}, "cardId", "rating", "session")),
		Annotations:  destructive, Scopes: []Scope{ScopeStudyWrite}, Mutates: true, AuditAction: "study.undo_rating",
		Meta: AppOnly,
	},
	{
		Name: ToolBuryCards, Title: "Bury cards",
		Sets:         []string{ToolsetAdmin},
		Description:  "Bury cards: hide them from study until the learner's next day. Per-item outcome.",
		InputSchema:  raw(object(schema{"cardIds": with(array(id(""), "Ids of the cards."), "minItems", 1, "maxItems", MaxBulkItems)}, "cardIds")),
		ResultSchema: raw(bulkOut(nil)),
		Annotations:  idempotent, Scopes: []Scope{ScopeStudyWrite}, Mutates: true, AuditAction: "cards.bury",
	},
	{
		Name: ToolUnbury, Title: "Unbury",
		Sets:         []string{ToolsetAdmin},
		Description:  "Unbury: bring buried cards (bury_cards, or siblings held for tomorrow) back today.",
		InputSchema:  raw(object(schema{"deckId": id("Only this deck's; omit for all.")})),
		ResultSchema: raw(object(schema{"unburied": intOut}, "unburied")),
		Annotations:  idempotent, Scopes: []Scope{ScopeStudyWrite}, Mutates: true, AuditAction: "cards.unbury",
	},
	{
		Name: ToolGetSettings, Title: "Get settings",
		Sets:         []string{ToolsetAdmin},
		Description:  "The learner's day: IANA timezone and rolloverHour (local hour a day starts, default 4); today, daily limits, streaks and stats follow it. learnAheadMinutes (default 20): how early a learning step may show when nothing else is left. Account-wide daily caps, 0 = none.",
		InputSchema:  raw(object(schema{})),
		ResultSchema: raw(settingsRecordOut),
		Annotations:  readOnly, Scopes: []Scope{ScopeDecksRead},
	},
	{
		Name: ToolUpdateSettings, Title: "Update settings",
		Sets:        []string{ToolsetAdmin},
		Description: "Change the learner's timezone, rolloverHour, learnAheadMinutes or account-wide daily caps; only the fields given. Ask the user's timezone, never guess.",
		InputSchema: raw(object(schema{
			"timezone":          with(str("IANA timezone name, e.g. \"Europe/Berlin\" or \"UTC\"."), "minLength", 1, "maxLength", MaxTimezoneLen),
			"rolloverHour":      integer("Local hour (0-23) at which a new study day starts.", 0, 23),
			"learnAheadMinutes": integer("Minutes a step may show early when nothing else is left.", 0, MaxLearnAheadMinutes),
			"newCardsPerDay":    integer("Account-wide cap on new cards per day across decks; 0 = no cap.", 0, MaxAccountDailyLimit),
			"reviewsPerDay":     integer("Account-wide cap on reviews per day across decks; 0 = no cap.", 0, MaxAccountDailyLimit),
		})),
		ResultSchema: raw(settingsRecordOut),
		Annotations:  idempotent, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "settings.update",
	},
	{
		Name: ToolExportDeck, Title: "Export deck",
		ListOutput:  true, // the model acts on the result's fields: a URL to hand on or PUT to, a status to poll
		Sets:        []string{ToolsetExchange},
		Description: "Export a deck and subdecks as an Anki package (.apkg) for Anki/AnkiDroid. Returns a bearer link: anyone who has it can download it for 10 minutes; give it only to the user.",
		InputSchema: raw(object(schema{
			"deckId":            deckIDArg,
			"includeScheduling": boolean("Card states and review history (default true); false exports new cards."),
			"includeMedia":      boolean("Images and audio (default true)."),
		}, "deckId")),
		ResultSchema: raw(object(schema{"downloadUrl": strOut, "expiresAt": tsOut}, "downloadUrl", "expiresAt")),
		Annotations:  readOnly, Scopes: []Scope{ScopeDecksRead}, AuditedRead: true, AuditAction: "deck.export",
	},
	{
		Name: ToolOptimizeParameters, Title: "Optimise FSRS weights",
		Sets:        []string{ToolsetAdmin},
		Description: "Fit a preset's 21 FSRS weights to the user's reviews (300+ needed). A job: poll get_job; the result has logLoss and rmseBins before/after on held-out cards; applied only when better.",
		InputSchema: raw(object(schema{
			"deckId":   id("Deck whose preset to fit."),
			"presetId": id("Preset id; omit both when there is one preset."),
		})),
		ResultSchema: raw(jobOut),
		Annotations:  additive, Scopes: []Scope{ScopeStudyWrite}, Mutates: true, AuditAction: "preset.optimize",
		TaskSupport: TaskOptional, JobKind: JobKindOptimizeParameters,
	},
	{
		Name: ToolImportPackage, Title: "Import package",
		Sets:        []string{ToolsetExchange},
		Description: "Import an Anki .apkg/.colpkg (application/zip) or CSV/TSV/text file uploaded with request_media_upload. Starts a job; poll get_job for the report. Re-import updates by note GUID. dryRun: the report, or a preview job to poll; nothing imported.",
		InputSchema: raw(object(schema{
			"uploadId": id("The mediaId from request_media_upload, after the PUT."),
			"deckId":   id("Optional deck to import into: the package's root deck becomes it, other decks its subdecks."),
			"dryRun":   dryRunArg,
			ConfirmArg: confirmArg,
		}, "uploadId")),
		ResultSchema: raw(importJobOut),
		Annotations:  additive, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "package.import",
		TaskSupport: TaskOptional, JobKind: JobKindImportPackage,
		Confirm: ConfirmReplaceNotes,
	},
	{
		Name: ToolGetJob, Title: "Get job",
		ListOutput:   true, // the model acts on the result's fields: a URL to hand on or PUT to, a status to poll
		Sets:         []string{ToolsetExchange, ToolsetAdmin},
		Description:  "Status, progress and result of a long job. Poll until succeeded, failed or canceled; with a progressToken the call waits and reports progress.",
		InputSchema:  raw(object(schema{"jobId": jobIDArg}, "jobId")),
		ResultSchema: raw(jobOut),
		Annotations:  readOnly, AnyScopes: jobScopes,
	},
	{
		Name: ToolCancelJob, Title: "Cancel job",
		Sets:         []string{ToolsetExchange, ToolsetAdmin},
		Description:  "Stop a long job: a queued one at once, a running one at its next step; nothing half-done stays.",
		InputSchema:  raw(object(schema{"jobId": jobIDArg}, "jobId")),
		ResultSchema: raw(jobOut),
		Annotations:  idempotent, AnyScopes: jobScopes, Mutates: true, AuditAction: "job.cancel",
	},
	{
		Name: ToolListTrash, Title: "List trash",
		Sets:        []string{ToolsetAdmin},
		Description: "Decks and cards deleted in the last 30 days, newest first, with their purge time.",
		InputSchema: raw(object(schema{"cursor": cursorArg, "limit": integer("Page size, default 50.", 1, 200)})),
		ResultSchema: raw(pageOut(object(schema{"kind": schema{"type": "string", "enum": []string{TrashKindDeck, TrashKindCard}},
			"id": strOut, "name": strOut, "front": strOut, "deckId": strOut, "deckInTrash": boolOut, "cards": intOut,
			"deletedAt": tsOut, "expiresAt": tsOut}, "kind", "id", "deletedAt", "expiresAt"))),
		Annotations: readOnly, Scopes: []Scope{ScopeDecksRead},
	},
	{
		Name: ToolRestoreItems, Title: "Restore items",
		Sets:        []string{ToolsetAdmin},
		Description: "Bring decks and cards back from the trash with their history; a deck brings its cards. Outcome per item: restored, not_found, duplicate (existingId) or conflict, with reason.",
		InputSchema: raw(object(schema{
			"deckIds": with(array(id(""), "Trashed decks."), "maxItems", MaxBulkItems),
			"cardIds": with(array(id(""), "Trashed cards."), "maxItems", MaxBulkItems),
		})),
		ResultSchema: raw(restoreOut),
		Annotations:  idempotent, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "trash.restore",
	},
	{
		Name: ToolUndoChanges, Title: "Undo changes",
		Sets:        []string{ToolsetNotes, ToolsetExchange, ToolsetAdmin},
		Description: "Undo changes of the last 30 days, newest first: by operationIds (from write results, audit trail), or what a credential (default: yours) did since a time. Reviews too (study:write). Items changed since are skipped with the reason. 1000 a call; nextCursor continues. Undoable by its operationId.",
		InputSchema: raw(object(schema{
			"operationIds": with(array(id(""), "Operations to undo."), "minItems", 1, "maxItems", 100),
			"credentialId": with(str("Whose changes, with since (default: this credential)."), "maxLength", 200),
			"since":        dateOrTime("Undo changes made at or after this."),
			"until":        dateOrTime("And before this."),
			"cursor":       cursorArg,
			"dryRun":       dryRunArg,
		})),
		ResultSchema: raw(object(schema{
			"operationId": strOut, "undone": intOut, "skipped": intOut, "nextCursor": strOut, "dryRun": boolOut,
			"items": schema{"type": "array", "items": object(schema{"kind": strOut, "id": strOut,
				"status": schema{"type": "string", "enum": []string{UndoUndone, UndoSkipped}}, "reason": strOut}, "kind", "id", "status")},
		}, "undone", "skipped", "items")),
		Annotations: Annotations{DestructiveHint: true}, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "changes.undo",
	},
	{
		Name: ToolGetRetentionAdvice, Title: "Retention advice",
		Sets:        []string{ToolsetAdmin},
		Description: "A deck's preset simulated at desired retentions: workload a day, cards memorized at the end, cost per card memorized; and the minimum recommended retention (least cost per card in 0.70-0.95, as Anki's). About a second.",
		InputSchema: raw(object(schema{
			"deckId": id("Deck whose preset and cards to simulate."),
			"days":   integer("Days simulated, default 365.", MinAdviceDays, MaxAdviceDays),
		}, "deckId")),
		ResultSchema: raw(object(schema{
			"deckId": strOut, "presetId": strOut, "days": intOut, "newCardsPerDay": intOut, "secondsPerReview": numOut,
			"current": numOut, "recommended": numOut,
			"points": schema{"type": "array", "items": object(schema{
				"desiredRetention": numOut, "reviewsPerDay": numOut, "minutesPerDay": numOut, "lapsesPerDay": numOut,
				"memorized": numOut, "costPerMemorized": numOut,
			}, "desiredRetention", "reviewsPerDay", "minutesPerDay", "lapsesPerDay", "memorized", "costPerMemorized")},
		}, "deckId", "presetId", "days", "newCardsPerDay", "secondsPerReview", "current", "recommended", "points")),
		Annotations: readOnly, Scopes: []Scope{ScopeStatsRead},
	},
	{
		Name: ToolFilteredDeck, Title: "Filtered deck",
		Sets:        []string{ToolsetAdmin},
		Description: "Custom study: a deck gathered by a card search (words, tag:, deck:, is:due, is:new, is:leech, rated:n, prop:ivl>=10, prop:due<=1, prop:lapses>3); study it with start_study_session. rebuild gathers again; empty sends cards home. Ratings keep schedules unless reschedule.",
		InputSchema: raw(object(schema{
			"action":     enum("create, rebuild or empty.", FilteredCreate, FilteredRebuild, FilteredEmpty),
			"deckId":     id("The filtered deck (rebuild, empty)."),
			"name":       with(str("New deck's name (create)."), "minLength", 1, "maxLength", MaxDeckNameLen),
			"search":     with(str("Card search."), "maxLength", MaxFilteredSearchLen),
			"limit":      integer("Most cards, default 100.", 1, MaxFilteredCards),
			"order":      enum("Default due.", FilteredOrders...),
			"reschedule": boolean("Ratings reschedule cards as at home."),
		}, "action")),
		ResultSchema: raw(object(schema{
			"deckId": strOut, "name": strOut, "search": strOut, "limit": intOut, "order": strOut, "reschedule": boolOut,
			"cards": intOut, "gathered": intOut, "returned": intOut, "builtAt": tsOut,
		}, "deckId", "name", "search", "limit", "order", "reschedule", "cards", "gathered", "returned", "builtAt")),
		Annotations: additive, Scopes: []Scope{ScopeDecksWrite}, Mutates: true, AuditAction: "deck.filtered",
	},
}

func init() {
	for i := range catalog {
		catalog[i].ListedInput = listedInput(catalog[i].InputSchema)
		if catalog[i].ListOutput {
			catalog[i].OutputSchema = wire(catalog[i].ResultSchema)
		}
		if catalog[i].Mutates {
			catalog[i].ResultSchema, catalog[i].ResultOperationID = withOperationID(catalog[i].ResultSchema)
		}
	}
}

// withOperationID adds an optional operationId to a result object schema
// that has none; it reports whether it did.
func withOperationID(full json.RawMessage) (json.RawMessage, bool) {
	var s schema
	if json.Unmarshal(full, &s) != nil || s["type"] != "object" {
		return full, false
	}
	props, ok := s["properties"].(map[string]any)
	if _, has := props["operationId"]; !ok || has {
		return full, false
	}
	props["operationId"] = str("The call's operation id: undo_changes' operationIds undo it.")
	return raw(s), true
}

// Catalog returns the tool definitions in catalog order. The slice is a
// copy; the definitions share their schema bytes, which must not be modified.
func Catalog() []ToolDef { return slices.Clone(catalog) }

// Tool returns the definition of the named tool.
func Tool(name string) (ToolDef, bool) {
	for _, t := range catalog {
		if t.Name == name {
			return t, true
		}
	}
	return ToolDef{}, false
}
