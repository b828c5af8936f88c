// Package storetest is the contract suite every ports.Database implementation
// runs, in the shape of testing/fstest.TestFS:
//
//	func TestStore(t *testing.T) {
//		storetest.TestStore(t, func(t *testing.T) ports.Database { return openFresh(t) })
//	}
//
// It checks every store method's documented behaviour and error kinds, user
// isolation (another user's rows are not_found, never visible, never
// changed), transactions (commit, rollback on error and on panic, a failed
// store call leaving the transaction usable), optimistic concurrency under
// real concurrency (one of N concurrent reviews of a card wins), idempotent
// claims, keyset paging, full-text search and the queue and statistics
// queries.
package storetest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// TestStore runs the contract suite. Every subtest calls open for a fresh,
// empty store with the schema in place; open registers the store's cleanup
// with t.Cleanup. Subtests run in parallel, so open must be safe to call
// concurrently.
func TestStore(t *testing.T, open func(t *testing.T) ports.Database) {
	groups := []struct {
		name string
		fn   func(t *testing.T, f *fixture)
	}{
		{"Users", testUsers},
		{"Decks", testDecks},
		{"DeckCounts", testDeckCounts},
		{"DeckCountsFollowChanges", testDeckCountsFollowChanges},
		{"DueCountsFollowChanges", testDueCountsFollowChanges},
		{"ListDecksPaging", testListDecksPaging},
		{"DeleteDeckCascades", testDeleteDeckCascades},
		{"TrashDeckAndRestore", testTrashDeckAndRestore},
		{"TrashRestoreConflicts", testTrashRestoreConflicts},
		{"TrashPurge", testTrashPurge},
		{"TrashKeepsMedia", testTrashKeepsMedia},
		{"ImportStages", testImportStages},
		{"ImportStagedMedia", testImportStagedMedia},
		{"ImportPublishedReviews", testImportPublishedReviews},
		{"ImportConcurrentDrops", testImportConcurrentDrops},
		{"ImportMoveWhileSettling", testImportMoveWhileSettling},
		{"ImportPublishBumpsVersion", testImportPublishBumpsVersion},
		{"InsertAndGetCards", testInsertAndGetCards},
		{"InsertCardsConflict", testInsertCardsConflict},
		{"InsertNewCards", testInsertNewCards},
		{"HashesInDeck", testHashesInDeck},
		{"Notes", testNotes},
		{"ListNotes", testListNotes},
		{"UpdateCard", testUpdateCard},
		{"MoveCard", testMoveCard},
		{"UpdateState", testUpdateState},
		{"DeleteCards", testDeleteCards},
		{"Search", testSearch},
		{"SearchFilters", testSearchFilters},
		{"SearchPaging", testSearchPaging},
		{"SearchWindows", testSearchWindows},
		{"DueCards", testDueCards},
		{"NextDueAt", testNextDueAt},
		{"DeckTree", testDeckTree},
		{"NewCards", testNewCards},
		{"Bury", testBury},
		{"Filtered", testFiltered},
		{"StudiedSiblings", testStudiedSiblings},
		{"CountPhasesAndDue", testCountPhasesAndDue},
		{"DueHistogram", testDueHistogram},
		{"Reviews", testReviews},
		{"ReviewIsolation", testReviewIsolation},
		{"Sessions", testSessions},
		{"SessionIsolation", testSessionIsolation},
		{"SessionReviewsAndUndo", testSessionReviewsAndUndo},
		{"APIKeys", testAPIKeys},
		{"KeyCap", testKeyCap},
		{"Confirmations", testConfirmations},
		{"WebSessions", testWebSessions},
		{"Exposure", testExposure},
		{"Settings", testSettings},
		{"DataVersion", testDataVersion},
		{"Presets", testPresets},
		{"PresetHistory", testPresetHistory},
		{"StudyCards", testStudyCards},
		{"StudyCardsTies", testStudyCardsTies},
		{"DueCounts", testDueCounts},
		{"NextDueItem", testNextDueItem},
		{"ReviewTarget", testReviewTarget},
		{"ReviewKindsAndDays", testReviewKindsAndDays},
		{"Audit", testAudit},
		{"AuditPaging", testAuditPaging},
		{"Changes", testChanges},
		{"ReviewOperations", testReviewOperations},
		{"Idempotency", testIdempotency},
		{"Media", testMedia},
		{"Jobs", testJobs},
		{"JobLeaseExpiry", testJobLeaseExpiry},
		{"JobFairness", testJobFairness},
		{"MediaClaims", testMediaClaims},
		{"MediaUsage", testMediaUsage},
		{"MediaCollection", testMediaCollection},
		{"OAuthClients", testOAuthClients},
		{"OAuthCodes", testOAuthCodes},
		{"OAuthGrantsAndTokens", testOAuthGrantsAndTokens},
		{"ListReviewsAndMedia", testListReviewsAndMedia},
		{"Expiry", testExpiry},
		{"Usage", testUsage},
		{"NoteTypes", testNoteTypes},
		{"DeleteUser", testDeleteUser},
		{"TxCommit", testTxCommit},
		{"TxRollbackOnError", testTxRollbackOnError},
		{"TxRollbackOnPanic", testTxRollbackOnPanic},
		{"TxUsableAfterStoreError", testTxUsableAfterStoreError},
		{"CallTx", testCallTx},
		{"CallTxFailureEnds", testCallTxFailureEnds},
		{"ConcurrentReviewsOfOneItem", testConcurrentReviewsOfOneItem},
		{"ConcurrentStateUpdates", testConcurrentStateUpdates},
		{"ConcurrentClaims", testConcurrentClaims},
		{"ConcurrentWebSessionDeletes", testConcurrentWebSessionDeletes},
		{"ConcurrentWriters", testConcurrentWriters},
		{"Ping", testPing},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			if s == nil {
				t.Fatal("open returned a nil store")
			}
			g.fn(t, newFixture(t, s))
		})
	}
}

// fixture is one subtest's store, context, clock and id source.
type fixture struct {
	t   *testing.T
	s   ports.Database
	ctx context.Context
	now time.Time
	seq atomic.Int64
}

// base is the suite's "now": a Tuesday noon UTC, whole milliseconds.
var base = time.Date(2026, time.March, 10, 12, 0, 0, 0, time.UTC)

// day is one day.
const day = 24 * time.Hour

func newFixture(t *testing.T, s ports.Database) *fixture {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return &fixture{t: t, s: s, ctx: ctx, now: base}
}

// id returns a new id; ids sort (bytewise) in the order they were made.
func (f *fixture) id(prefix string) string {
	return fmt.Sprintf("%s-%08d", prefix, f.seq.Add(1))
}

// user creates a user.
func (f *fixture) user() string {
	f.t.Helper()
	id := f.id("usr")
	must(f.t, f.s.Users().CreateUser(f.ctx, contracts.User{ID: id, Email: id + "@example.com", Name: "User " + id, CreatedAt: f.now}))
	return id
}

// deck creates a deck with default settings.
func (f *fixture) deck(userID, name string) contracts.Deck {
	f.t.Helper()
	d := contracts.Deck{ID: f.id("dck"), Name: name, Description: "about " + name, Settings: contracts.DefaultDeckSettings(),
		CreatedAt: f.now, UpdatedAt: f.now}
	must(f.t, f.s.Decks().CreateDeck(f.ctx, userID, d))
	return d
}

// card returns a new, unsaved card of a deck.
func (f *fixture) card(deckID, front, back string, tags ...string) ports.CardRow {
	id := f.id("crd")
	return ports.CardRow{
		Card: contracts.Card{ID: id, DeckID: deckID, Front: front, Back: back, Tags: tags,
			State: contracts.CardState{Phase: contracts.PhaseNew, Due: f.now}, CreatedAt: f.now, UpdatedAt: f.now},
		Hash: "h:" + front + "|" + back,
	}
}

// reviewCard returns a new, unsaved card in the review phase due at due.
func (f *fixture) reviewCard(deckID, front string, due time.Time) ports.CardRow {
	c := f.card(deckID, front, "back of "+front)
	last := due.Add(-3 * day)
	c.State = contracts.CardState{Phase: contracts.PhaseReview, Due: due, Stability: 4.5, Difficulty: 5.25, ScheduledDays: 3,
		Reps: 2, Lapses: 0, LastReview: &last}
	return c
}

// insert saves cards outside a transaction and returns them as stored (version 1).
func (f *fixture) insert(userID string, cards ...ports.CardRow) []ports.CardRow {
	f.t.Helper()
	must(f.t, f.s.Cards().InsertCards(f.ctx, userID, cards))
	out := make([]ports.CardRow, len(cards))
	for i, c := range cards {
		c.Version = 1
		out[i] = c
	}
	return out
}

// get returns one stored card, failing the test when it is missing.
func (f *fixture) get(userID, cardID string) ports.CardRow {
	f.t.Helper()
	got, err := f.s.Cards().GetCards(f.ctx, userID, []string{cardID})
	must(f.t, err)
	if len(got) != 1 {
		f.t.Fatalf("GetCards(%s) returned %d cards, want 1", cardID, len(got))
	}
	return got[0]
}

// must fails the test on an error.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v (kind %s)", err, contracts.KindOf(err))
	}
}

// sqlWords are words whose presence in an error message suggests SQL text leaked.
var sqlWords = []string{"SELECT ", "INSERT ", "UPDATE ", "DELETE ", " WHERE ", "sqlite", "pq:", "SQLSTATE", "constraint"}

// wantKind fails the test unless err is a *contracts.Error of kind, and
// checks its message carries no SQL or driver text.
func wantKind(t *testing.T, err error, kind contracts.ErrorKind, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: got no error, want %s", what, kind)
	}
	if got := contracts.KindOf(err); got != kind {
		t.Fatalf("%s: got error %v of kind %s, want %s", what, err, got, kind)
	}
	msg := contracts.MessageOf(err)
	for _, w := range sqlWords {
		if strings.Contains(strings.ToLower(msg), strings.ToLower(w)) {
			t.Errorf("%s: error message %q leaks database text (%q)", what, msg, w)
		}
	}
}

// ms normalises a time to UTC milliseconds, as stores keep it.
func ms(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()).UTC() }

// msp normalises an optional time.
func msp(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := ms(*t)
	return &v
}

// normCard normalises a card for comparison.
func normCard(c ports.CardRow) ports.CardRow {
	if c.Tags == nil {
		c.Tags = []string{}
	}
	c.CreatedAt, c.UpdatedAt = ms(c.CreatedAt), ms(c.UpdatedAt)
	c.State.Due = ms(c.State.Due)
	c.State.LastReview = msp(c.State.LastReview)
	return c
}

// sameCard fails the test unless two cards are equal up to normalisation.
func sameCard(t *testing.T, got, want ports.CardRow, what string) {
	t.Helper()
	g, w := normCard(got), normCard(want)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %+v\nwant %+v", what, g, w)
	}
}

// ids returns the ids of cards.
func ids(cards []ports.CardRow) []string {
	out := make([]string, len(cards))
	for i, c := range cards {
		out[i] = c.ID
	}
	return out
}

// sameIDs fails the test unless got holds exactly want, in order.
func sameIDs(t *testing.T, got, want []string, what string) {
	t.Helper()
	if got == nil {
		got = []string{}
	}
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: got ids %v, want %v", what, got, want)
	}
}

// sameSet fails the test unless got and want hold the same ids, in any order.
func sameSet(t *testing.T, got, want []string, what string) {
	t.Helper()
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	sameIDs(t, g, w, what)
}

// sorted returns a sorted copy.
func sorted(v []string) []string {
	out := slices.Clone(v)
	slices.Sort(out)
	return out
}

func testPing(t *testing.T, f *fixture) {
	must(t, f.s.Ping(f.ctx))
}
