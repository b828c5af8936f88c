package contracts

// ImportPackageArgs are import_package's arguments: the mediaId of an
// upload (request_media_upload) holding an Anki package or a text export,
// and optionally the deck the package's decks go under (its root deck
// becomes that deck, the others its subdecks).
type ImportPackageArgs struct {
	UploadID string `json:"uploadId"`
	DeckID   string `json:"deckId,omitempty"`
	// DryRun previews the import instead: the answer is a job of kind
	// JobKindImportPreview whose result is the report the import would
	// have, importing nothing (see ImportService.ImportPackage).
	DryRun bool `json:"dryRun,omitempty"`
}

// ImportReport is the result of an import_package job: what was created or
// updated, and what was left out and why. Re-importing a package updates
// the notes whose GUIDs the account already has.
type ImportReport struct {
	// Format is "apkg" for a package, or the text format read.
	Format       string `json:"format"`
	NotesCreated int    `json:"notesCreated"`
	NotesUpdated int    `json:"notesUpdated"`
	CardsCreated int    `json:"cardsCreated"`
	CardsUpdated int    `json:"cardsUpdated"`
	Reviews      int    `json:"reviews"` // review-log rows added
	Media        int    `json:"media"`   // media files stored or reused
	// NotesUnchanged counts the notes of NotesUpdated that the package
	// leaves as they are (their fields, tags and cards' text, place and
	// schedule): a re-import of the same package changes none.
	NotesUnchanged int `json:"notesUnchanged,omitempty"`
	// MediaReused counts the files of Media the account had already (the
	// same name and bytes): reused, not stored again.
	MediaReused  int      `json:"mediaReused,omitempty"`
	Presets      int      `json:"presets"` // deck presets created or updated
	DecksCreated []string `json:"decksCreated"`
	// Skipped lists what was left out, one entry per reason.
	Skipped []ImportSkip `json:"skipped"`
	// Dropped counts what the HTML conversion removed, by kind (see
	// import_cards' dropped).
	Dropped map[string]int `json:"dropped,omitempty"`
	// Changes are a dry run's first changes to what the account had
	// (notes' fields and tags, cards' deck, suspension and schedule),
	// before → after; at most MaxPreviewChanges.
	Changes []ChangePreview `json:"changes,omitempty"`
}

// ImportSkip is one reason an import left things out: how many of what
// (note, card, review, media, deck), and an example (a note's first field,
// a file name).
type ImportSkip struct {
	What    string `json:"what"`
	Reason  string `json:"reason"`
	Count   int    `json:"count"`
	Example string `json:"example,omitempty"`
}

// ReplacedNotes is how many notes the account had that the import changes
// (their fields, tags, or their cards' text, place or schedule).
func (r ImportReport) ReplacedNotes() int { return r.NotesUpdated - r.NotesUnchanged }
