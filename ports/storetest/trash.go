package storetest

import (
	"reflect"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// trashIDs returns the ids of trash items.
func trashIDs(items []ports.TrashItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// reviewIDs returns the ids of a user's review logs.
func (f *fixture) reviewIDs(userID string) []string {
	f.t.Helper()
	logs, err := f.s.Reviews().ListReviews(f.ctx, userID, "", 1000)
	must(f.t, err)
	out := make([]string, len(logs))
	for i, l := range logs {
		out[i] = l.ID
	}
	return out
}

// testTrashDeckAndRestore: a trashed deck, its cards and their reviews
// leave every read, count and holding; the trash lists the deck (with its
// card count) and a card deleted on its own before; restoring brings all
// of it back as it was, with its preset and its search index, and the
// card deleted on its own stays in the trash until restored itself.
func testTrashDeckAndRestore(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	p := contracts.Preset{ID: f.id("pst"), Name: "Shared", Settings: contracts.PresetSettings{DesiredRetention: 0.85, MaximumIntervalDays: 400},
		CreatedAt: f.now, UpdatedAt: f.now}
	must(t, f.s.Presets().CreatePreset(f.ctx, a, p))
	d := contracts.Deck{ID: f.id("dck"), Name: "Doomed", Description: "about it", Settings: contracts.DefaultDeckSettings(), CreatedAt: f.now, UpdatedAt: f.now}
	d.Settings.PresetID, d.Settings.NewCardsPerDay = p.ID, 7
	must(t, f.s.Decks().CreateDeck(f.ctx, a, d))
	keep := contracts.Deck{ID: f.id("dck"), Name: "Kept", Settings: contracts.DefaultDeckSettings(), CreatedAt: f.now, UpdatedAt: f.now}
	keep.Settings.PresetID = p.ID // the preset stays in use while Doomed is in the trash
	must(t, f.s.Decks().CreateDeck(f.ctx, a, keep))
	cards := f.insert(a, f.reviewCard(d.ID, "zebra", f.now.Add(-day)), f.reviewCard(d.ID, "yak", f.now), f.card(d.ID, "lone", "x"))
	f.insert(a, f.reviewCard(keep.ID, "kept", f.now))
	r1 := f.review(a, cards[0], "", contracts.RatingGood, f.now.Add(-2*day), 1200)
	r2 := f.review(a, cards[0], "", contracts.RatingHard, f.now.Add(-day), 900)
	f.review(a, cards[2], "", contracts.RatingGood, f.now.Add(-day), 800)
	sess := ports.StudySessionRow{ID: f.id("ses"), UserID: a, DeckID: d.ID, StartedAt: f.now, ExpiresAt: f.now.Add(day)}
	must(t, f.s.Sessions().CreateSession(f.ctx, sess, ids(cards)))
	before, err := f.s.Decks().GetDeck(f.ctx, a, d.ID, f.now)
	must(t, err)
	wantCard := f.get(a, cards[0].ID)
	reviewsBefore := f.reviewIDs(a)

	// A card deleted on its own, then the deck an hour later.
	got, err := f.s.Cards().TrashCards(f.ctx, a, []string{cards[2].ID}, f.now)
	must(t, err)
	sameIDs(t, got, []string{cards[2].ID}, "TrashCards")
	_, err = f.s.Decks().TrashDeck(f.ctx, b, d.ID, f.now)
	wantKind(t, err, contracts.KindNotFound, "another user's TrashDeck")
	n, err := f.s.Decks().TrashDeck(f.ctx, a, d.ID, f.now.Add(time.Hour))
	must(t, err)
	if n != 2 {
		t.Errorf("TrashDeck moved %d cards, want 2", n)
	}

	// Gone from every read.
	_, err = f.s.Decks().GetDeck(f.ctx, a, d.ID, f.now)
	wantKind(t, err, contracts.KindNotFound, "GetDeck of a trashed deck")
	left, err := f.s.Cards().GetCards(f.ctx, a, ids(cards))
	must(t, err)
	if len(left) != 0 {
		t.Errorf("GetCards finds %d trashed cards", len(left))
	}
	if res, err := f.s.Cards().Search(f.ctx, a, contracts.CardFilter{Query: "zebra"}, "", 10, f.now); err != nil || len(res) != 0 {
		t.Errorf("Search finds trashed cards: %d, %v", len(res), err)
	}
	_, err = f.s.Sessions().GetSession(f.ctx, a, sess.ID)
	wantKind(t, err, contracts.KindNotFound, "GetSession of a trashed deck's session")
	if got := f.reviewIDs(a); len(got) != len(reviewsBefore)-3 {
		t.Errorf("ListReviews after the trash = %v, want the kept deck's only", got)
	}
	decks, cardsHeld, err := f.s.Usage().Holdings(f.ctx, a)
	must(t, err)
	if decks != 1 || cardsHeld != 1 {
		t.Errorf("Holdings with a trashed deck = %d decks, %d cards; want 1, 1 (the trash is not counted)", decks, cardsHeld)
	}

	// Listed in the trash, newest first; another user sees nothing.
	items, err := f.s.Trash().ListTrash(f.ctx, a, nil, 10)
	must(t, err)
	sameIDs(t, trashIDs(items), []string{d.ID, cards[2].ID}, "ListTrash")
	if len(items) == 2 {
		if it := items[0]; it.Kind != ports.TrashDeck || it.Name != "Doomed" || it.Cards != 2 || !it.DeletedAt.Equal(f.now.Add(time.Hour)) {
			t.Errorf("trashed deck item = %+v", it)
		}
		if it := items[1]; it.Kind != ports.TrashCard || it.Front != "lone" || it.DeckID != d.ID || it.Name != "Doomed" || it.WithDeck != "" || !it.DeckTrashed || !it.DeletedAt.Equal(f.now) {
			t.Errorf("trashed card item = %+v", it)
		}
	}
	page, err := f.s.Trash().ListTrash(f.ctx, a, &ports.TrashCursor{DeletedAt: items[0].DeletedAt, ID: items[0].ID}, 10)
	must(t, err)
	sameIDs(t, trashIDs(page), []string{cards[2].ID}, "ListTrash after the first item")
	if other, err := f.s.Trash().ListTrash(f.ctx, b, nil, 10); err != nil || len(other) != 0 {
		t.Errorf("another user's ListTrash = %v, %v", other, err)
	}
	named, err := f.s.Trash().TrashedItems(f.ctx, a, []string{d.ID, "dck-missing"}, []string{cards[0].ID, cards[2].ID, keep.ID})
	must(t, err)
	sameSet(t, trashIDs(named), []string{d.ID, cards[0].ID, cards[2].ID}, "TrashedItems")
	for _, it := range named {
		if it.ID == cards[0].ID && (it.WithDeck != d.ID || it.Hash != cards[0].Hash) {
			t.Errorf("TrashedItems card that went with its deck = %+v", it)
		}
	}
	if other, err := f.s.Trash().TrashedItems(f.ctx, b, []string{d.ID}, []string{cards[0].ID}); err != nil || len(other) != 0 {
		t.Errorf("another user's TrashedItems = %v, %v", other, err)
	}

	// A card cannot come back while its deck is in the trash; another user
	// cannot restore.
	wantKind(t, f.s.Trash().RestoreCard(f.ctx, a, cards[2].ID), contracts.KindNotFound, "RestoreCard into a trashed deck")
	_, err = f.s.Trash().RestoreDeck(f.ctx, b, d.ID)
	wantKind(t, err, contracts.KindNotFound, "another user's RestoreDeck")

	// The deck comes back as it was.
	n, err = f.s.Trash().RestoreDeck(f.ctx, a, d.ID)
	must(t, err)
	if n != 2 {
		t.Errorf("RestoreDeck brought %d cards back, want 2", n)
	}
	after, err := f.s.Decks().GetDeck(f.ctx, a, d.ID, f.now)
	must(t, err)
	before.Counts.Total, before.Counts.New = before.Counts.Total-1, before.Counts.New-1 // the lone card stays in the trash
	if !reflect.DeepEqual(after, before) {
		t.Errorf("restored deck = %+v\nwant %+v", after, before)
	}
	if got := f.get(a, cards[0].ID); !reflect.DeepEqual(got, wantCard) {
		t.Errorf("restored card = %+v\nwant %+v", got, wantCard)
	}
	if res, err := f.s.Cards().Search(f.ctx, a, contracts.CardFilter{Query: "zebra"}, "", 10, f.now); err != nil || len(res) != 1 {
		t.Errorf("Search after the restore finds %d cards, %v; want 1", len(res), err)
	}
	logs, err := f.s.Reviews().ListReviews(f.ctx, a, "", 100)
	must(t, err)
	found := map[string]ports.ReviewLog{}
	for _, l := range logs {
		found[l.ID] = l
	}
	for _, r := range []ports.ReviewLog{r1, r2} {
		if got, ok := found[r.ID]; !ok || got.Rating != r.Rating || got.DurationMs != r.DurationMs || !got.ReviewedAt.Equal(r.ReviewedAt) {
			t.Errorf("review %s after the restore = %+v (found %v), want %+v", r.ID, got, ok, r)
		}
	}
	if len(logs) != len(reviewsBefore)-1 {
		t.Errorf("%d review logs after the restore, want %d (the lone card's stays in the trash)", len(logs), len(reviewsBefore)-1)
	}
	_, err = f.s.Trash().RestoreDeck(f.ctx, a, d.ID)
	wantKind(t, err, contracts.KindNotFound, "RestoreDeck of a deck already restored")

	// Then the card deleted on its own, with its review.
	must(t, f.s.Trash().RestoreCard(f.ctx, a, cards[2].ID))
	f.get(a, cards[2].ID)
	if got := f.reviewIDs(a); len(got) != len(reviewsBefore) {
		t.Errorf("%d review logs after restoring everything, want %d", len(got), len(reviewsBefore))
	}
	wantKind(t, f.s.Trash().RestoreCard(f.ctx, a, cards[2].ID), contracts.KindNotFound, "RestoreCard twice")
	if items, err := f.s.Trash().ListTrash(f.ctx, a, nil, 10); err != nil || len(items) != 0 {
		t.Errorf("ListTrash after restoring everything = %+v, %v", items, err)
	}
}

// testTrashRestoreConflicts: a restore that would duplicate a live row is
// refused (conflict) and leaves the item in the trash; a deck whose preset
// went meanwhile comes back with the preset's settings as its own.
func testTrashRestoreConflicts(t *testing.T, f *fixture) {
	a := f.user()
	p := contracts.Preset{ID: f.id("pst"), Name: "Own", Settings: contracts.PresetSettings{DesiredRetention: 0.8, MaximumIntervalDays: 300},
		CreatedAt: f.now, UpdatedAt: f.now}
	must(t, f.s.Presets().CreatePreset(f.ctx, a, p))
	d := contracts.Deck{ID: f.id("dck"), Name: "Spanish", Settings: contracts.DefaultDeckSettings(), CreatedAt: f.now, UpdatedAt: f.now}
	d.Settings.PresetID = p.ID
	must(t, f.s.Decks().CreateDeck(f.ctx, a, d))
	keep := f.deck(a, "Kept")
	c := f.insert(a, f.card(keep.ID, "hola", "hello"))[0]
	_, err := f.s.Cards().TrashCards(f.ctx, a, []string{c.ID}, f.now)
	must(t, err)
	_, err = f.s.Decks().TrashDeck(f.ctx, a, d.ID, f.now) // its preset, used by no other deck, goes
	must(t, err)
	_, err = f.s.Presets().GetPreset(f.ctx, a, p.ID)
	wantKind(t, err, contracts.KindNotFound, "the preset of a trashed deck used by no other deck")

	// The same card was added again, and a new deck took the name.
	f.insert(a, f.card(keep.ID, "hola", "hello"))
	f.deck(a, "Spanish")
	wantKind(t, f.s.Trash().RestoreCard(f.ctx, a, c.ID), contracts.KindConflict, "RestoreCard of a card added again since")
	_, err = f.s.Trash().RestoreDeck(f.ctx, a, d.ID)
	wantKind(t, err, contracts.KindConflict, "RestoreDeck whose name is taken")
	items, err := f.s.Trash().ListTrash(f.ctx, a, nil, 10)
	must(t, err)
	sameSet(t, trashIDs(items), []string{d.ID, c.ID}, "the trash after refused restores")

	// Once the name is free, the deck comes back with its settings.
	other, err := f.s.Decks().DeckIDByName(f.ctx, a, "Spanish")
	must(t, err)
	_, err = f.s.Decks().TrashDeck(f.ctx, a, other, f.now)
	must(t, err)
	_, err = f.s.Trash().RestoreDeck(f.ctx, a, d.ID)
	must(t, err)
	back, err := f.s.Decks().DeckWithoutCounts(f.ctx, a, d.ID)
	must(t, err)
	if back.Settings.PresetID != "" || back.Settings.DesiredRetention != 0.8 || back.Settings.MaximumIntervalDays != 300 {
		t.Errorf("restored deck's settings = %+v; want the gone preset's values as its own", back.Settings)
	}
}

// testTrashPurge: PurgeTrash deletes what was deleted before the cutoff,
// cards with their reviews and then their decks, a batch at a time, from
// every user, and nothing newer; a second purge finds nothing.
func testTrashPurge(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	old, recent := f.deck(a, "Old"), f.deck(a, "Recent")
	oc := f.insert(a, f.card(old.ID, "o1", "x"), f.card(old.ID, "o2", "x"), f.card(old.ID, "o3", "x"))
	rc := f.insert(a, f.card(recent.ID, "r1", "x"))
	f.review(a, oc[0], "", contracts.RatingGood, f.now, 1000)
	f.review(a, rc[0], "", contracts.RatingGood, f.now, 1000)
	bd := f.deck(b, "B")
	bc := f.insert(b, f.card(bd.ID, "b1", "x"))
	_, err := f.s.Decks().TrashDeck(f.ctx, a, old.ID, f.now.Add(-40*day))
	must(t, err)
	_, err = f.s.Cards().TrashCards(f.ctx, b, ids(bc), f.now.Add(-31*day))
	must(t, err)
	_, err = f.s.Cards().TrashCards(f.ctx, a, ids(rc), f.now.Add(-day))
	must(t, err)

	cutoff := f.now.Add(-30 * day)
	total := 0
	for i := 0; ; i++ {
		n, err := f.s.Trash().PurgeTrash(f.ctx, cutoff, 2)
		must(t, err)
		if n > 2 {
			t.Fatalf("PurgeTrash with limit 2 deleted %d", n)
		}
		total += n
		if n < 2 || i > 10 {
			break
		}
	}
	if total != 5 { // 3 + 1 cards, 1 deck
		t.Errorf("PurgeTrash deleted %d items in all, want 5", total)
	}
	if n, err := f.s.Trash().PurgeTrash(f.ctx, cutoff, 10); err != nil || n != 0 {
		t.Errorf("a second PurgeTrash = %d, %v; want 0", n, err)
	}
	items, err := f.s.Trash().ListTrash(f.ctx, a, nil, 10)
	must(t, err)
	sameIDs(t, trashIDs(items), []string{rc[0].ID}, "the trash after the purge")
	if items, _ := f.s.Trash().ListTrash(f.ctx, b, nil, 10); len(items) != 0 {
		t.Errorf("another user's expired trash was kept: %+v", items)
	}
	_, err = f.s.Trash().RestoreDeck(f.ctx, a, old.ID)
	wantKind(t, err, contracts.KindNotFound, "RestoreDeck of a purged deck")
	must(t, f.s.Trash().RestoreCard(f.ctx, a, rc[0].ID))
	if got := f.reviewIDs(a); len(got) != 1 {
		t.Errorf("review logs after the purge and restore = %v; want the recent card's one", got)
	}
}

// testTrashKeepsMedia: media a trashed card references are in use, so the
// collector never deletes a file a restore would bring back.
func testTrashKeepsMedia(t *testing.T, f *fixture) {
	a := f.user()
	md := f.s.Media()
	m := f.media(a, 10, f.now.Add(time.Hour))
	must(t, md.MarkUploaded(f.ctx, m.ID, 5, "sum", f.now.Add(-3*time.Hour)))
	d := f.deck(a, "Pictures")
	c := f.insert(a, f.card(d.ID, "![map](media:"+m.ID+")", "x"))[0]
	_, err := f.s.Cards().TrashCards(f.ctx, a, []string{c.ID}, f.now)
	must(t, err)
	used, err := md.MediaInUse(f.ctx, a, m.ID)
	must(t, err)
	if !used {
		t.Error("MediaInUse of media only a trashed card references = false, want true")
	}
	if rows, err := md.UnusedMedia(f.ctx, f.now, "", 10); err != nil || len(rows) != 0 {
		t.Errorf("UnusedMedia with a trashed card's media = %+v, %v; want none", rows, err)
	}
	_, err = f.s.Trash().PurgeTrash(f.ctx, f.now.Add(time.Minute), 10)
	must(t, err)
	if rows, err := md.UnusedMedia(f.ctx, f.now, "", 10); err != nil || len(rows) != 1 {
		t.Errorf("UnusedMedia after the purge = %+v, %v; want the media", rows, err)
	}
}
