package contracts

import (
	"encoding/json"
	"strconv"
	"time"
)

// ConfirmRule names what makes a call of a tool big or destructive enough
// to need the person's yes (issue 26 §3): the catalog gives it to the
// tools that can need confirming, and the call's dry run gives the count
// (ConfirmCount) the account's threshold for the rule is held against.
type ConfirmRule string

// The confirm rules.
const (
	ConfirmDeckCards       ConfirmRule = "deckCards"       // delete_deck: the cards the deck holds
	ConfirmDeleteCards     ConfirmRule = "deleteCards"     // delete_cards: the cards it deletes
	ConfirmUpdateCards     ConfirmRule = "updateCards"     // update_cards: the cards it updates; update_notes: the notes
	ConfirmRescheduleCards ConfirmRule = "rescheduleCards" // reschedule_cards: the cards it reschedules
	ConfirmReplaceNotes    ConfirmRule = "replaceNotes"    // import_package: the notes the account has that it changes
)

// ConfirmThresholds are an account's thresholds: a call needs the person's
// yes when its dry run counts at least the rule's threshold of items; 0
// turns confirmation off for the rule.
type ConfirmThresholds struct {
	DeckCards       int `json:"deckCards"`
	DeleteCards     int `json:"deleteCards"`
	UpdateCards     int `json:"updateCards"`
	RescheduleCards int `json:"rescheduleCards"`
	ReplaceNotes    int `json:"replaceNotes"`
}

// UnmarshalJSON reads thresholds, a rule missing from them at its
// default: an account that chose its thresholds before a rule existed
// gets the rule's default, not 0 (off).
func (t *ConfirmThresholds) UnmarshalJSON(b []byte) error {
	type plain ConfirmThresholds
	p := plain(DefaultConfirmThresholds)
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*t = ConfirmThresholds(p)
	return nil
}

// DefaultConfirmThresholds are the thresholds of an account that never
// chose: deleting a non-empty deck, deleting or rescheduling more than 50
// cards, updating more than 200 cards or notes, a package import that would change any
// note the account has.
var DefaultConfirmThresholds = ConfirmThresholds{DeckCards: 1, DeleteCards: 51, UpdateCards: 201, RescheduleCards: 51, ReplaceNotes: 1}

// MaxConfirmThreshold bounds a threshold (past any call's size).
const MaxConfirmThreshold = 1_000_000

// For returns the threshold of a rule (0 for an unknown rule: off).
func (t ConfirmThresholds) For(rule ConfirmRule) int {
	switch rule {
	case ConfirmDeckCards:
		return t.DeckCards
	case ConfirmDeleteCards:
		return t.DeleteCards
	case ConfirmUpdateCards:
		return t.UpdateCards
	case ConfirmRescheduleCards:
		return t.RescheduleCards
	case ConfirmReplaceNotes:
		return t.ReplaceNotes
	}
	return 0
}

// Needs reports whether a call under rule that affects n items needs the
// person's yes.
func (t ConfirmThresholds) Needs(rule ConfirmRule, n int) bool {
	th := t.For(rule)
	return th > 0 && n >= th
}

// Valid checks every threshold is within 0..MaxConfirmThreshold.
func (t ConfirmThresholds) Valid() error {
	for _, v := range []int{t.DeckCards, t.DeleteCards, t.UpdateCards, t.RescheduleCards, t.ReplaceNotes} {
		if v < 0 || v > MaxConfirmThreshold {
			return Errorf(KindInvalid, "a confirmation threshold must be between 0 (off) and %d", MaxConfirmThreshold)
		}
	}
	return nil
}

// ConfirmCount is the number of items a call's dry-run result says the
// call would change: a deck deletion's cards, a bulk call's updated and
// deleted items, a package import's notes the account has that it would
// change (ReplacedNotes).
func ConfirmCount(result any) int {
	switch r := result.(type) {
	case DeleteResult:
		return r.CardsDeleted
	case BulkResult:
		return r.Counts[string(OutcomeUpdated)] + r.Counts[string(OutcomeDeleted)]
	case Job:
		if rep, ok := dryImportReport(r); ok {
			return rep.ReplacedNotes()
		}
	}
	return 0
}

// dryImportReport is the report of an import_package dry run's job: a
// preview job that succeeded.
func dryImportReport(j Job) (ImportReport, bool) {
	var rep ImportReport
	if j.Kind != JobKindImportPreview || j.Status != JobSucceeded || json.Unmarshal(j.Result, &rep) != nil {
		return ImportReport{}, false
	}
	return rep, true
}

// ConfirmState is where a confirmation stands.
type ConfirmState string

// The confirmation states: asked, answered by the person, and used by the
// retry that ran (or refused) the call.
const (
	ConfirmPending  ConfirmState = "pending"
	ConfirmApproved ConfirmState = "approved"
	ConfirmDeclined ConfirmState = "declined"
	ConfirmUsed     ConfirmState = "used"
)

// ConfirmTTL is how long a confirmation can be answered and used.
const ConfirmTTL = 10 * time.Minute

// ConfirmPreview is what the person sees before answering: the count the
// threshold was held against, the dry run's counts by outcome and its
// first changes, and the deck a deck deletion deletes.
type ConfirmPreview struct {
	Count   int             `json:"count"`
	Counts  map[string]int  `json:"counts,omitempty"`
	Changes []ChangePreview `json:"changes,omitempty"`
	DeckID  string          `json:"deckId,omitempty"`
	// DeckName names the deck of DeckID, when the surface could read it.
	DeckName string `json:"deckName,omitempty"`
}

// Summary says in one phrase what the call would do, for the person.
func (p ConfirmPreview) Summary(tool string) string {
	n := strconv.Itoa(p.Count)
	switch tool {
	case ToolDeleteDeck:
		name := p.DeckID
		if p.DeckName != "" {
			name = "“" + p.DeckName + "”"
		}
		return "move the deck " + name + " and its " + n + " cards to the trash"
	case ToolDeleteCards:
		return "move " + n + " cards to the trash"
	case ToolUpdateCards:
		return "change " + n + " cards"
	case ToolUpdateNotes:
		return "change " + n + " notes and their cards"
	case ToolRescheduleCards:
		return "reschedule " + n + " cards"
	case ToolImportPackage:
		return "replace " + n + " of your notes (their fields, tags or cards) from a package"
	}
	return "run " + tool + " on " + n + " items"
}

// PreviewOf builds the preview of a dry-run result.
func PreviewOf(result any) ConfirmPreview {
	p := ConfirmPreview{Count: ConfirmCount(result)}
	switch r := result.(type) {
	case DeleteResult:
		p.DeckID = r.ID
	case BulkResult:
		p.Counts, p.Changes = r.Counts, r.Changes[:min(len(r.Changes), MaxPreviewChanges)]
	case Job:
		if rep, ok := dryImportReport(r); ok {
			p.Counts = map[string]int{"notes added": rep.NotesCreated, "notes replaced": rep.ReplacedNotes(), "notes left as they are": rep.NotesUnchanged,
				"cards added": rep.CardsCreated, "media files stored": rep.Media - rep.MediaReused, "decks created": len(rep.DecksCreated)}
			p.Changes = rep.Changes[:min(len(rep.Changes), MaxPreviewChanges)]
		}
	}
	return p
}

// Confirmation is one call waiting for (or answered by) the person's yes.
// ID is its secret: shown once, in the link; stored only hashed.
type Confirmation struct {
	ID        string         `json:"id,omitempty"`
	Tool      string         `json:"tool"`
	Preview   ConfirmPreview `json:"preview"`
	State     ConfirmState   `json:"state"`
	CreatedAt time.Time      `json:"createdAt"`
	ExpiresAt time.Time      `json:"expiresAt"`
}

// ConfirmationPrefix starts every confirmation id.
const ConfirmationPrefix = "tbcf_"

// ConfirmArg is the tool argument a retry carries the confirmation id in.
const ConfirmArg = "confirmId"

// ConfirmRequest is what a call that needs the person's yes asks to keep:
// the tool, a hash of its arguments (without ConfirmArg) and the preview.
type ConfirmRequest struct {
	Tool     string
	ArgsHash []byte
	Preview  ConfirmPreview
}
