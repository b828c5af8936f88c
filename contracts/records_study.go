package contracts

import "time"

// Rating is the learner's answer to a card.
type Rating string

// The four ratings.
const (
	RatingAgain Rating = "again"
	RatingHard  Rating = "hard"
	RatingGood  Rating = "good"
	RatingEasy  Rating = "easy"
)

// Ratings lists the ratings in order of increasing ease.
var Ratings = []Rating{RatingAgain, RatingHard, RatingGood, RatingEasy}

// Study session limits.
const (
	SessionTTL              = 24 * time.Hour
	MaxSessionNewCards      = 500
	MaxSessionReviews       = 1000
	DefaultSecondsPerReview = 10.0
	// MaxQueuedReviewAge bounds how long ago a review queued offline (the
	// web app's, sent when back online) may have been given.
	MaxQueuedReviewAge = 7 * 24 * time.Hour
	// MaxUpcomingCards bounds the cards a study page loads ahead to study
	// offline.
	MaxUpcomingCards = 20
)

// StudyCard is a card as a study session shows it.
type StudyCard struct {
	CardID string `json:"cardId"`
	// Position is the card's place in the session queue; passing it back to
	// submit_review makes a retried call safe (a card can come back for a
	// learning step at a later position).
	Position int      `json:"position"`
	Front    string   `json:"front"`
	Back     string   `json:"back,omitempty"` // absent in previews, which show only fronts
	Tags     []string `json:"tags,omitempty"`
	Phase    Phase    `json:"phase"`
}

// StudySession is a run through a deck's queue. Its ID is a random,
// expiring handle bound to the user who started it.
type StudySession struct {
	ID        string     `json:"sessionId"`
	DeckID    string     `json:"deckId"`
	StartedAt time.Time  `json:"startedAt"`
	ExpiresAt time.Time  `json:"expiresAt"`
	Reviewed  int        `json:"reviewed"`
	Remaining int        `json:"remaining"`
	Done      bool       `json:"done"`
	Current   *StudyCard `json:"current,omitempty"`
	StudyURL  string     `json:"studyUrl,omitempty"`
	// Mode is "normal" or "cram" (ratings change no schedule).
	Mode string `json:"mode,omitempty"`
	// NextCardAt is set when no card can be shown yet but a learning step
	// is pending: it comes due then (Done stays false).
	NextCardAt *time.Time `json:"nextCardAt,omitempty"`
}

// StudyView is render_study_session's result: the session (with its
// absolute study link) and, for the MCP Apps study widget, its current card
// rendered by the domain's content renderer (the web app's), sanitised and
// safe to insert as HTML, with what each rating would schedule.
type StudyView struct {
	StudySession
	// FrontHTML and BackHTML are the current card rendered; empty when no
	// card waits (the session is done, or waits for a learning step).
	FrontHTML string `json:"frontHtml,omitempty"`
	BackHTML  string `json:"backHtml,omitempty"`
	// CardCSS is the CSS of the current card's own note type, confined to
	// the element of class CardStyleClass that holds the card and stripped
	// of everything that loads (imports, url(), fonts), for the widget to
	// insert as a style element; empty for a card of a stock type or one
	// whose type has no CSS.
	CardCSS string `json:"cardCss,omitempty"`
	// Ratings are again, hard, good and easy in order with their next
	// intervals; absent in a cram session, when no card waits, and when the
	// preview failed (the card was rated elsewhere meanwhile).
	Ratings []RatingPreview `json:"ratings,omitempty"`
	// Lead is the sentence the tool's text content starts with, for the
	// model and for hosts that show no widget: progress and the study link.
	Lead string `json:"-"`
}

// CardStyleClass is the class of the element that holds a card in the
// study views (the web app's and the widget's): a note type's CSS is
// confined to it.
const CardStyleClass = "nt-card"

// Classes the card renderer puts in a card's HTML, which the study views
// (the pages and the widget) style or act on. Card text may carry them too:
// they highlight or mark content, never dress it as the app's own controls.
const (
	// ClozeClass marks a cloze deletion: "[...]" on the question, its
	// text on the answer (Anki's class, which note type CSS styles too).
	ClozeClass = "cloze"
	// TypeInClass is an empty element where a question asks to type the
	// answer ({{type:Field}}); a study view puts its typing box there.
	TypeInClass = "type-in"
	// TypeAnswerClass holds the expected answer on the answer side of a
	// type-in card; a study view compares what was typed with its text.
	TypeAnswerClass = "type-answer"
)

// MaxReviewAheadDays bounds start_study_session's reviewAheadDays.
const MaxReviewAheadDays = 365

// ReviewResult is what recording one review did, and what comes next.
type ReviewResult struct {
	SessionID     string     `json:"sessionId"`
	CardID        string     `json:"cardId"`
	Rating        Rating     `json:"rating"`
	State         CardState  `json:"state"`
	NextDue       time.Time  `json:"nextDue"`
	IntervalHuman string     `json:"interval"` // e.g. "10m", "3d"
	Reviewed      int        `json:"reviewed"`
	Remaining     int        `json:"remaining"`
	Done          bool       `json:"done"`
	Next          *StudyCard `json:"next,omitempty"`
	// NextCardAt: see StudySession.
	NextCardAt *time.Time `json:"nextCardAt,omitempty"`
	// Replayed is set when the call repeated an earlier identical rating
	// of the same showing: nothing changed, this is the first answer.
	Replayed bool `json:"replayed,omitempty"`
	// Leech is set when this rating made the card a leech: its note is
	// tagged LeechTag (and the card suspended when the preset says so).
	Leech bool `json:"leech,omitempty"`
}

// UnburyResult is what unbury did.
type UnburyResult struct {
	Unburied int `json:"unburied"` // cards back in today's queues
}

// StudySnapshot is what a deck would offer right now, without starting a session.
type StudySnapshot struct {
	DeckID string `json:"deckId"`
	DueNow int    `json:"dueNow"`
	// DueToday is every learning and review card a session started now
	// serves, those due later today included (DueNow counts only those due
	// at this instant): the count the web app's pages show beside
	// NewToday, so that they add up to the session. Not in the tool's
	// output.
	DueToday     int         `json:"-"`
	Overdue      int         `json:"overdue"`
	NewAvailable int         `json:"newAvailable"` // new cards in the deck
	NewToday     int         `json:"newToday"`     // new cards a session started now serves (the daily limits, buried cards and siblings left out)
	NextDue      *time.Time  `json:"nextDue,omitempty"`
	Preview      []StudyCard `json:"preview"` // the first few cards of the queue, fronts only
}

// RatingPreview is what one rating of a session's current card would
// schedule if it were given now.
type RatingPreview struct {
	Rating        Rating    `json:"rating"`
	NextDue       time.Time `json:"nextDue"`
	IntervalHuman string    `json:"interval"` // e.g. "10m", "3d"
}

// StudiedCard is one rating given in a study session: the card, the rating
// and when the card comes back.
type StudiedCard struct {
	CardID   string `json:"cardId"`
	Position int    `json:"position"` // the queue item the rating completed
	Front    string `json:"front"`    // empty when the card was deleted since
	Rating   Rating `json:"rating"`
	// ReviewedAt is when the rating was given; NextDue when the card comes
	// back, IntervalHuman the wait from the rating, e.g. "10m", "3d".
	ReviewedAt    time.Time `json:"reviewedAt"`
	NextDue       time.Time `json:"nextDue"`
	IntervalHuman string    `json:"interval"`
	// Undoable is set on the session's last rating when it can be undone.
	Undoable bool `json:"undoable,omitempty"`
}

// UndoResult is what undoing a session's last rating did: the card and
// rating taken back, and the session now (showing that card again when
// nothing more urgent is due).
type UndoResult struct {
	CardID  string       `json:"cardId"`
	Rating  Rating       `json:"rating"`
	Session StudySession `json:"session"`
}
