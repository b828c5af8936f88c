package contracts

import (
	"encoding/json"
	"maps"
	"time"
)

var (
	exT0    = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	exRet   = 0.91
	exFront = "What is the capital of Türkiye?"
	exDeck  = Deck{ID: "d1", Name: "Geography", Description: "Capitals", Settings: DefaultDeckSettings(),
		Counts: DeckCounts{Total: 3, New: 1, Learning: 1, Review: 1, DueNow: 2}, CreatedAt: exT0, UpdatedAt: exT0}
	exState    = CardState{Phase: PhaseReview, Due: exT0.Add(72 * time.Hour), Stability: 3.2, Difficulty: 5.1, ScheduledDays: 3, Reps: 4, Lapses: 1, LastReview: &exT0}
	exCard     = Card{ID: "c1", DeckID: "d1", Front: exFront, Back: "Ankara", Tags: []string{"europe"}, State: exState, CreatedAt: exT0, UpdatedAt: exT0}
	exScard    = &StudyCard{CardID: "c1", Front: exFront, Back: "Ankara", Tags: []string{"europe"}, Phase: PhaseNew}
	exSess     = StudySession{ID: "s1", DeckID: "d1", StartedAt: exT0, ExpiresAt: exT0.Add(SessionTTL), Remaining: 3, Current: exScard, StudyURL: "https://x.test/study/s1"}
	exSettings = AccountSettings{Timezone: "America/New_York", RolloverHour: 4, LearnAheadMinutes: 20, Today: "2026-11-29",
		DayStartsAt: time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC), NextDayAt: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC), UpdatedAt: exT0}
	exBulk = BulkResult{DeckID: "d1", Items: []ItemOutcome{
		{Index: 0, Status: OutcomeCreated, ID: "c2"},
		{Index: 1, Status: OutcomeDuplicate, ExistingID: "c1"},
		{Index: 2, Status: OutcomeInvalid, Reason: "back must not be empty"}},
		Counts: map[string]int{"created": 1, "duplicate": 1, "invalid": 1}}
)

// Example is a sample call of a tool: arguments a model might send, the
// argument record they decode into, and a result the tool returns. Tests
// check both validate against the tool's schemas; the tool reference shows
// them.
type Example struct {
	Args   json.RawMessage
	Record any // a zero value of the tool's argument record
	Result any
}

// Examples returns one example per catalog tool, keyed by tool name.
func Examples() map[string]Example { return maps.Clone(examples) }

var examples = map[string]Example{
	ToolListDecks:          {json.RawMessage(`{"limit":10}`), ListDecksArgs{}, DeckPage{Items: []Deck{exDeck}, NextCursor: "ZDE"}},
	ToolGetDeck:            {json.RawMessage(`{"deckId":"d1"}`), GetDeckArgs{}, exDeck},
	ToolSearchCards:        {json.RawMessage(`{"query":"capital","deckId":"d1","tags":["europe"],"state":"review","dueBefore":"2026-12-01T00:00:00Z","limit":5}`), SearchCardsArgs{}, CardPage{Items: []Card{exCard}}},
	ToolGetStudySnapshot:   {json.RawMessage(`{"deckId":"d1"}`), GetStudySnapshotArgs{}, StudySnapshot{DeckID: "d1", DueNow: 2, Overdue: 1, NewAvailable: 5, NewToday: 5, NextDue: &exT0, Preview: []StudyCard{*exScard}}},
	ToolGetStats:           {json.RawMessage(`{"deckId":"d1","days":7}`), GetStatsArgs{}, Stats{DeckID: "d1", Days: 7, ReviewsPerDay: []DayCount{{Date: "2026-11-29", Reviews: 4, Passed: 3}}, TotalReviews: 4, TrueRetention: &exRet, CardStates: PhaseCounts{New: 1, Review: 2}, StreakDays: 3, GeneratedAt: exT0}},
	ToolGetStudyPlan:       {json.RawMessage(`{"days":14,"minutesPerDay":15}`), GetStudyPlanArgs{}, StudyPlan{Days: 14, Forecast: []DueDay{{Date: "2026-11-29", Due: 12}}, MinutesPerDay: 15, SecondsPerReview: 10, SecondsPerReviewSource: "default", AverageDuePerDay: 12, CapacityPerDay: 90, NewCardsPerDay: 15, NewCardsRemaining: 200}},
	ToolCreateDeck:         {json.RawMessage(`{"name":"Geography","description":"Capitals","desiredRetention":0.91,"newCardsPerDay":8}`), CreateDeckArgs{}, exDeck},
	ToolUpdateDeck:         {json.RawMessage(`{"deckId":"d1","name":"World geography","reviewsPerDay":100}`), UpdateDeckArgs{}, exDeck},
	ToolDeleteDeck:         {json.RawMessage(`{"deckId":"d1"}`), DeleteDeckArgs{}, DeleteResult{ID: "d1", Deleted: true, CardsDeleted: 3}},
	ToolAddCards:           {json.RawMessage(`{"deckId":"d1","cards":[{"front":"Q","back":"A","tags":["t"]}],"idempotencyKey":"batch-1"}`), AddCardsArgs{}, exBulk},
	ToolUpdateCards:        {json.RawMessage(`{"updates":[{"id":"c1","back":"Ankara (since 1923)","suspended":true,"deckId":"d2","tags":["europe"]}]}`), UpdateCardsArgs{}, BulkResult{Items: []ItemOutcome{{Index: 0, Status: OutcomeUpdated, ID: "c1"}}, Counts: map[string]int{"updated": 1}}},
	ToolDeleteCards:        {json.RawMessage(`{"cardIds":["c1","c2"]}`), DeleteCardsArgs{}, BulkResult{Items: []ItemOutcome{{Index: 0, Status: OutcomeDeleted, ID: "c1"}, {Index: 1, Status: OutcomeNotFound, ID: "c2"}}, Counts: map[string]int{"deleted": 1, "not_found": 1}}},
	ToolImportCards:        {json.RawMessage(`{"deckId":"d1","text":"front,back\nQ,A\n","format":"csv","idempotencyKey":"imp-1"}`), ImportCardsArgs{}, exBulk},
	ToolStartStudySession:  {json.RawMessage(`{"deckId":"d1","newLimit":5,"reviewLimit":50}`), StartStudySessionArgs{}, exSess},
	ToolSubmitReview:       {json.RawMessage(`{"sessionId":"s1","cardId":"c1","position":0,"rating":"good","durationMs":5400}`), SubmitReviewArgs{}, ReviewResult{SessionID: "s1", CardID: "c1", Rating: RatingGood, State: exState, NextDue: exState.Due, IntervalHuman: "3d", Reviewed: 1, Remaining: 2, Next: exScard}},
	ToolRequestMediaUpload: {json.RawMessage(`{"contentType":"image/png","bytes":2048,"filename":"map.png"}`), RequestMediaUploadArgs{}, MediaUploadIntent{MediaID: "m1", UploadURL: "https://x.test/media/m1", Method: "PUT", Headers: map[string]string{"Authorization": "Upload abc"}, ExpiresAt: exT0, MaxBytes: 2048, ContentType: "image/png", AllowedTypes: AllowedMediaTypes}},
	ToolRenderStudySession: {json.RawMessage(`{"deckId":"d1"}`), RenderStudySessionArgs{}, StudyView{StudySession: exSess, FrontHTML: "<p>hola</p>", BackHTML: "<p>hello</p>", Ratings: []RatingPreview{{Rating: RatingGood, NextDue: exT0.Add(72 * time.Hour), IntervalHuman: "3d"}}}},
	ToolRescheduleCards:    {json.RawMessage(`{"cardIds":["c1","c2"],"days":[3,5]}`), RescheduleCardsArgs{}, BulkResult{Items: []ItemOutcome{{Index: 0, Status: OutcomeUpdated, ID: "c1"}, {Index: 1, Status: OutcomeNotFound, ID: "c2", Reason: "card c2 not found"}}, Counts: map[string]int{"updated": 1, "not_found": 1}}},
	ToolGetSettings:        {json.RawMessage(`{}`), GetSettingsArgs{}, exSettings},
	ToolUpdateSettings:     {json.RawMessage(`{"timezone":"America/New_York","rolloverHour":4}`), UpdateSettingsArgs{}, exSettings},
	ToolAddNotes: {json.RawMessage(`{"deckId":"d1","notes":[{"noteType":"Cloze","fields":{"Text":"{{c1::Ankara}} is the capital of {{c2::Turkey}}"},"tags":["europe"]}]}`), AddNotesArgs{},
		BulkResult{DeckID: "d1", Items: []ItemOutcome{{Index: 0, Status: OutcomeCreated, ID: "n1", CardIDs: []string{"c1", "c2"}}}, Counts: map[string]int{"created": 1}}},
	ToolUpdateNotes: {json.RawMessage(`{"updates":[{"id":"n1","fields":{"Back Extra":"since 1923"}}]}`), UpdateNotesArgs{},
		BulkResult{Items: []ItemOutcome{{Index: 0, Status: OutcomeUpdated, ID: "n1", CardIDs: []string{"c1", "c2"}}}, Counts: map[string]int{"updated": 1}}},
	ToolExportDeck: {json.RawMessage(`{"deckId":"d1","includeMedia":false}`), ExportDeckArgs{},
		ExportLink{DownloadURL: "https://x.test/export/eyJ1Ijoi.c2ln", ExpiresAt: exT0.Add(10 * time.Minute)}},
	ToolOptimizeParameters: {json.RawMessage(`{"deckId":"d1"}`), OptimizeParametersArgs{}, Job{ID: "j2", Kind: JobKindOptimizeParameters, Status: JobQueued,
		CreatedAt: exT0, UpdatedAt: exT0}},
	ToolBuryCards:     {json.RawMessage(`{"cardIds":["c1"]}`), BuryCardsArgs{}, BulkResult{Items: []ItemOutcome{{Index: 0, Status: OutcomeUpdated, ID: "c1"}}, Counts: map[string]int{"updated": 1}}},
	ToolUnbury:        {json.RawMessage(`{"deckId":"d1"}`), UnburyArgs{}, UnburyResult{Unburied: 2}},
	ToolImportPackage: {json.RawMessage(`{"uploadId":"m1"}`), ImportPackageArgs{}, Job{ID: "j1", Kind: JobKindImportPackage, Status: JobQueued, CreatedAt: exT0, UpdatedAt: exT0}},
	ToolGetJob: {json.RawMessage(`{"jobId":"j1"}`), GetJobArgs{}, Job{ID: "j1", Kind: JobKindImportPackage, Status: JobSucceeded,
		Progress: JobProgress{Done: 120, Total: 120}, Result: json.RawMessage(`{"notes":120,"cards":240}`), CreatedAt: exT0, UpdatedAt: exT0, StartedAt: &exT0, FinishedAt: &exT0}},
	ToolCancelJob: {json.RawMessage(`{"jobId":"j1"}`), CancelJobArgs{}, Job{ID: "j1", Kind: JobKindImportPackage, Status: JobRunning,
		Progress: JobProgress{Done: 40, Total: 120, Message: "notes"}, CancelRequested: true, CreatedAt: exT0, UpdatedAt: exT0, StartedAt: &exT0}},
	ToolGetNote: {json.RawMessage(`{"noteId":"n1"}`), GetNoteArgs{}, Note{ID: "n1", NoteType: NoteTypeBasicReversed, FieldNames: []string{"Front", "Back"},
		Fields: map[string]string{"Front": "der Hund", "Back": "the dog"}, Tags: []string{"de"}, CreatedAt: exT0, UpdatedAt: exT0,
		Cards: []NoteCard{{ID: "c1", Ord: 0, DeckID: "d1", Front: "der Hund", Phase: PhaseNew}, {ID: "c2", Ord: 1, DeckID: "d1", Front: "the dog", Phase: PhaseNew}}}},
	ToolListTrash: {json.RawMessage(`{"limit":20}`), ListTrashArgs{}, TrashPage{Items: []TrashItem{
		{Kind: TrashKindDeck, ID: "d2", Name: "Old deck", Cards: 40, DeletedAt: exT0, ExpiresAt: exT0.Add(TrashTTL)},
		{Kind: TrashKindCard, ID: "c9", Name: "Geography", Front: exFront, DeckID: "d1", DeletedAt: exT0, ExpiresAt: exT0.Add(TrashTTL)}}}},
	ToolUndoLastRating: {json.RawMessage(`{"sessionId":"s1"}`), UndoLastRatingArgs{}, UndoResult{CardID: "c1", Rating: RatingGood, Session: exSess}},
	ToolRestoreItems: {json.RawMessage(`{"deckIds":["d2"],"cardIds":["c9","c8"]}`), RestoreItemsArgs{}, RestoreResult{
		Decks: []ItemOutcome{{Index: 0, Status: OutcomeRestored, ID: "d2"}},
		Cards: []ItemOutcome{{Index: 0, Status: OutcomeRestored, ID: "c9"}, {Index: 1, Status: OutcomeDuplicate, ID: "c8", ExistingID: "c1",
			Reason: "card c1 in its deck has the same front and back (added since); c8 stays in the trash"}},
		Counts: map[string]int{"restored": 2, "duplicate": 1}}},
	ToolUndoChanges: {json.RawMessage(`{"since":"2026-11-29T14:00:00Z"}`), UndoChangesArgs{}, UndoChangesResult{
		OperationID: "0193f1c2-7b3a-7c4d-9e5f-0a1b2c3d4e5f", Undone: 1, Skipped: 1, Items: []UndoItem{
			{Kind: ChangeCardUpdate, ID: "c1", Status: UndoUndone},
			{Kind: ChangeCardUpdate, ID: "c2", Status: UndoSkipped, Reason: "card c2 was edited after this change (at 2026-11-29T14:20:00Z); fetch it and edit it yourself"}}}},
	ToolGetRetentionAdvice: {json.RawMessage(`{"deckId":"d1"}`), GetRetentionAdviceArgs{},
		RetentionAdvice{DeckID: "d1", PresetID: "p1", Days: 365, NewCardsPerDay: 20, SecondsPerReview: 10, Current: 0.9, Recommended: 0.8, Points: []RetentionPoint{
			{DesiredRetention: 0.8, ReviewsPerDay: 118.6, MinutesPerDay: 19.8, LapsesPerDay: 14.5, Memorized: 5316.8, CostPerMemorized: 115.85},
			{DesiredRetention: 0.9, ReviewsPerDay: 168, MinutesPerDay: 28, LapsesPerDay: 13.5, Memorized: 5687.1, CostPerMemorized: 137.27}}}},
	ToolFilteredDeck: {json.RawMessage(`{"action":"create","name":"Lapsed geography","search":"deck:Geography prop:lapses>2","limit":50}`), FilteredDeckArgs{},
		FilteredDeck{DeckID: "d3", Name: "Lapsed geography", Search: "deck:Geography prop:lapses>2", Limit: 50, Order: FilteredOrderDue, Cards: 12, Gathered: 12, BuiltAt: exT0}},
}
