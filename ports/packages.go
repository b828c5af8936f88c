package ports

import (
	"context"
	"io"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// AnkiPackage is what an Anki package (.apkg) carries, in Anki's terms:
// every record has a Key, the 64-bit id it has inside the package (Anki
// ids are milliseconds since the epoch; keys are unique per record kind).
// The domain fills it from the store; the package adapter writes it.
type AnkiPackage struct {
	Created   time.Time // the collection's creation time (its day count's origin)
	Decks     []AnkiDeck
	NoteTypes []AnkiNoteType
	Notes     []AnkiNote
	Cards     []AnkiCard
	Reviews   []AnkiReview
	Media     []AnkiMedia
}

// AnkiDeck is a deck: its full name in Anki's notation (Parent::Child)
// and the preset its cards are scheduled with.
type AnkiDeck struct {
	Key         int64
	Name        string
	Description string
	Settings    contracts.DeckSettings
}

// AnkiTemplate is a card template in Anki's template syntax.
type AnkiTemplate struct {
	Name, Front, Back string
}

// AnkiNoteType is a note type ("model"): fields and templates.
type AnkiNoteType struct {
	Key       int64
	Name      string
	Cloze     bool
	Fields    []string
	Templates []AnkiTemplate
	CSS       string
}

// AnkiNote is a note: its fields' values (Anki HTML, in the type's field
// order), tags and GUID.
type AnkiNote struct {
	Key      int64
	GUID     string
	TypeKey  int64
	Fields   []string
	Tags     []string
	Modified time.Time
}

// AnkiCard is a card of a note: template (or cloze) ordinal, deck and
// scheduling state. Position orders new cards.
type AnkiCard struct {
	Key, NoteKey, DeckKey int64
	Ord                   int
	State                 contracts.CardState
	Suspended             bool
	Position              int
	Modified              time.Time
}

// AnkiReview is one review-log entry of a card: the rating, the kind
// (review, cram or manual), the phase before, the interval before and
// after, and how long it took.
type AnkiReview struct {
	Key          int64 // the review's time in milliseconds, unique in the package
	CardKey      int64
	Rating       contracts.Rating // "" or "manual" for a manual entry
	Kind         string           // ReviewKindReview (or ""), ReviewKindCram, ReviewKindManual
	PrevPhase    contracts.Phase
	State        contracts.CardState // after the review
	PrevInterval int                 // days
	DurationMs   int
}

// AnkiMedia is a media file: its name inside the package's notes, and a
// way to read its bytes.
type AnkiMedia struct {
	Name string
	Open func(ctx context.Context) (io.ReadCloser, error)
}

// PackageWriter writes Anki packages.
type PackageWriter interface {
	// WritePackage writes p to w as an .apkg in the schema-11
	// collection.anki2 format every Anki since 2.1 imports. Invalid when p
	// is inconsistent (a card naming a note or deck the package lacks);
	// unavailable when a media file cannot be read.
	WritePackage(ctx context.Context, w io.Writer, p AnkiPackage) error
}

// AnkiPackageHead is the small part of an opened package, read whole:
// what the importer plans with before the notes stream.
type AnkiPackageHead struct {
	Created   time.Time // the collection's creation time (its day count's origin)
	Decks     []AnkiDeck
	NoteTypes []AnkiNoteType
	Media     []AnkiMedia
	// Notes, Cards and Reviews count the package's records.
	Notes, Cards, Reviews int
	// DeckCards counts the cards of each deck key (a card in a filtered
	// deck counted in its home deck).
	DeckCards map[int64]int
	// MaxPosition is the largest Position of the package's new cards.
	MaxPosition int
	// MissingMedia counts the files the media map names but the package
	// lacks. Media lists only the first few of them (their Open fails),
	// so the work an import does follows what the package holds.
	MissingMedia int
}

// AnkiChunk is a run of a package's notes in key order with the cards of
// those notes (by note, then card key) and the review logs of those cards
// (by card, then time). The last chunk may have no notes: the reviews of
// cards the package lacks.
type AnkiChunk struct {
	Notes   []AnkiNote
	Cards   []AnkiCard
	Reviews []AnkiReview
}

// PackageSource is an opened package: its head whole, its notes, cards
// and review log streamed a chunk at a time, so memory stays bounded by
// the chunk, not the package.
type PackageSource interface {
	// Head returns the package's creation time, decks, note types, media
	// (read only when opened) and counts.
	Head() AnkiPackageHead
	// Chunks calls fn with the package's notes, at most n at a time, each
	// chunk with its notes' cards and their reviews; it stops at fn's
	// first error and returns it. Invalid (with a reason a person can act
	// on) when a record breaks a limit or names a note, note type or deck
	// the package lacks; canceled when ctx ends.
	Chunks(ctx context.Context, n int, fn func(AnkiChunk) error) error
	// Close releases what the source holds (the unpacked collection).
	Close() error
}

// PackageReader reads Anki packages and collection backups.
type PackageReader interface {
	// OpenPackage opens the .apkg or .colpkg of size bytes at r: the
	// legacy collection.anki2 / collection.anki21 and the current
	// collection.anki21b (zstd, protobuf media map). Media are not read
	// here: each AnkiMedia's Open reads its bytes from r when called, so
	// memory stays bounded by the largest media file; notes, cards and
	// reviews stream through the source's Chunks. A package reports its
	// Anki-side content faithfully (fields as Anki HTML, templates in
	// Anki syntax); the domain converts. Invalid (with a reason a person
	// can act on) when r is not a zip, holds no collection, or breaks a
	// limit (entry count, uncompressed size, field size, path traversal
	// in a media name); canceled when ctx ends. The caller closes the
	// source.
	OpenPackage(ctx context.Context, r io.ReaderAt, size int64) (PackageSource, error)
}
