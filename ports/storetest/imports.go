package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testImportStages: staged notes, cards and reviews are seen by no read
// until the stage is published (staged updates are read back in order); publishing copies them once, skipping a
// card whose deck has its text by then (with its review); the stage is
// then dropped in batches, and StagesToDrop finds a job's stages, the
// published ones and those untouched since a time.
func testImportStages(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	d := f.deck(a, "Imported")
	st := f.s.ImportStages()
	stage := ports.ImportStage{ID: f.id("stg"), UserID: a, JobID: "job-1"}
	must(t, st.CreateStage(f.ctx, stage, f.now))
	n := f.note(contracts.NoteTypeBasic, "der Hund", "the dog")
	c1, c2 := f.card(d.ID, "der Hund", "the dog"), f.card(d.ID, "die Katze", "the cat")
	c1.NoteID, c2.NoteID = n.ID, n.ID
	must(t, st.StageNotes(f.ctx, a, stage.ID, []ports.NoteRow{n}))
	must(t, st.StageCards(f.ctx, a, stage.ID, []ports.CardRow{c1, c2}))
	r1, r2 := f.reviewLog(a, c1, "", contracts.RatingGood, f.now.Add(-day), 1000), f.reviewLog(a, c2, "", contracts.RatingAgain, f.now.Add(-day), 0)
	must(t, st.StageReviews(f.ctx, a, stage.ID, []ports.ReviewLog{r1, r2}))
	must(t, st.StageUpdates(f.ctx, stage.ID, []string{`{"u":1}`, `{"u":2}`}))
	must(t, st.StageUpdates(f.ctx, stage.ID, []string{`{"u":3}`}))
	var bodies []string
	for after := int64(0); ; {
		page, err := st.StagedUpdates(f.ctx, stage.ID, after, 2)
		must(t, err)
		for _, u := range page {
			bodies, after = append(bodies, u.Body), u.Seq
		}
		if len(page) < 2 {
			break
		}
	}
	if !slices.Equal(bodies, []string{`{"u":1}`, `{"u":2}`, `{"u":3}`}) {
		t.Fatalf("StagedUpdates in pages of 2 = %q", bodies)
	}
	if page, err := st.StagedUpdates(f.ctx, f.id("stg"), 0, 10); err != nil || len(page) != 0 {
		t.Fatalf("StagedUpdates of another stage = %+v, %v", page, err)
	}

	if got, err := f.s.Cards().GetCards(f.ctx, a, []string{c1.ID, c2.ID}); err != nil || len(got) != 0 {
		t.Fatalf("staged cards read before publishing: %+v, %v", got, err)
	}
	if got, err := f.s.Notes().GetNotes(f.ctx, a, []string{n.ID}); err != nil || len(got) != 0 {
		t.Fatalf("staged notes read before publishing: %+v, %v", got, err)
	}
	if got := f.reviewIDs(a); len(got) != 0 {
		t.Fatalf("staged reviews read before publishing: %v", got)
	}
	deck, err := f.s.Decks().GetDeck(f.ctx, a, d.ID, f.now)
	must(t, err)
	if deck.Counts.Total != 0 {
		t.Fatalf("staged cards counted before publishing: %+v", deck.Counts)
	}

	f.insert(a, f.card(d.ID, "die Katze", "the cat")) // c2's text arrives before the publish
	_, err = st.PublishStage(f.ctx, b, stage.ID, f.now)
	wantKind(t, err, contracts.KindNotFound, "PublishStage of another user's stage")
	var pub ports.StagePublished
	must(t, f.s.InTx(f.ctx, func(tx ports.Stores) error {
		var err error
		pub, err = tx.ImportStages().PublishStage(f.ctx, a, stage.ID, f.now)
		return err
	}))
	if pub != (ports.StagePublished{Notes: 1, Cards: 1, CardsSkipped: 1, Reviews: 1}) {
		t.Fatalf("PublishStage = %+v", pub)
	}
	got := f.get(a, c1.ID)
	if got.Front != c1.Front || got.NoteID != n.ID || got.Version != 1 || got.Hash != c1.Hash {
		t.Errorf("published card = %+v", got)
	}
	sameIDs(t, f.reviewIDs(a), []string{r1.ID}, "reviews after publishing")
	if notes, err := f.s.Notes().GetNotes(f.ctx, a, []string{n.ID}); err != nil || len(notes) != 1 || notes[0].GUID != n.GUID {
		t.Errorf("published notes = %+v, %v", notes, err)
	}
	_, err = st.PublishStage(f.ctx, a, stage.ID, f.now)
	wantKind(t, err, contracts.KindNotFound, "a second PublishStage")

	live := ports.ImportStage{ID: f.id("stg"), UserID: b}
	must(t, st.CreateStage(f.ctx, live, f.now.Add(-2*time.Hour)))
	ids, err := st.StagesToDrop(f.ctx, "job-1", time.Time{}, 10)
	must(t, err)
	sameIDs(t, ids, []string{stage.ID}, "the stages of job-1")
	ids, err = st.StagesToDrop(f.ctx, "", f.now.Add(-3*time.Hour), 10)
	must(t, err)
	sameIDs(t, ids, []string{stage.ID}, "the stages to drop (published)")
	ids, err = st.StagesToDrop(f.ctx, "", f.now.Add(-time.Hour), 10)
	must(t, err)
	slices.Sort(ids)
	want := []string{stage.ID, live.ID}
	slices.Sort(want)
	sameIDs(t, ids, want, "the stages to drop (published, untouched for an hour)")
	must(t, st.TouchStage(f.ctx, live.ID, f.now))
	ids, err = st.StagesToDrop(f.ctx, "", f.now.Add(-time.Hour), 10)
	must(t, err)
	sameIDs(t, ids, []string{stage.ID}, "the stages to drop after a touch")

	for i := 0; ; i++ {
		gone, err := st.DropStage(f.ctx, stage.ID, 2)
		must(t, err)
		if gone {
			if i < 3 { // 8 staged rows, 2 a call
				t.Errorf("DropStage with limit 2 dropped 8 rows in %d calls", i+1)
			}
			break
		}
		if i > 5 {
			t.Fatal("DropStage never finished")
		}
	}
	ids, err = st.StagesToDrop(f.ctx, "", f.now.Add(-time.Hour), 10)
	must(t, err)
	if len(ids) != 0 {
		t.Errorf("stages to drop after DropStage: %v", ids)
	}
	if page, err := st.StagedUpdates(f.ctx, stage.ID, 0, 10); err != nil || len(page) != 0 {
		t.Errorf("staged updates after DropStage = %+v, %v", page, err)
	}
	if got := f.get(a, c1.ID); got.ID != c1.ID {
		t.Errorf("dropping a published stage touched its card: %+v", got)
	}
}

// testImportStagedMedia: a media row stored in a stage is seen by no read
// of media but StagedMedia, BlobInUse and MediaUsage until its stage is
// published, then by all; MediaNamed finds the user's published files of
// a name and type.
func testImportStagedMedia(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	st := f.s.ImportStages()
	md := f.s.Media()
	stage := ports.ImportStage{ID: f.id("stg"), UserID: a}
	must(t, st.CreateStage(f.ctx, stage, f.now))
	up := f.now
	file := func(user, name, sum, stageID string) ports.MediaRow {
		m := ports.MediaRow{ID: f.id("med"), UserID: user, ContentType: "image/png", Filename: name, MaxBytes: 100, CreatedAt: f.now,
			ExpiresAt: f.now, UploadedAt: &up, Size: 100, SHA256: sum, CredentialKind: contracts.CredentialLocal, StageID: stageID}
		must(t, md.CreateMedia(f.ctx, m))
		return m
	}
	had := file(a, "cat.png", "sum-1", "")
	staged := file(a, "dog.png", "sum-2", stage.ID)
	file(b, "dog.png", "sum-2", "")

	if _, err := md.MediaByID(f.ctx, staged.ID); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Fatalf("MediaByID of a staged file: %v", err)
	}
	if rows, err := md.ListMedia(f.ctx, a, "", 10); err != nil || len(rows) != 1 || rows[0].ID != had.ID {
		t.Fatalf("ListMedia beside a staged file = %+v, %v", rows, err)
	}
	if ids, err := md.UploadedMedia(f.ctx, a, []string{had.ID, staged.ID}); err != nil || !slices.Equal(ids, []string{had.ID}) {
		t.Fatalf("UploadedMedia beside a staged file = %v, %v", ids, err)
	}
	for _, user := range []string{a, ""} {
		stageID := stage.ID
		if user != "" {
			stageID = ""
		}
		rows, err := md.StagedMedia(f.ctx, user, stageID, "", 10)
		if err != nil || len(rows) != 1 || rows[0].ID != staged.ID || rows[0].StageID != stage.ID {
			t.Fatalf("StagedMedia(%q, %q) = %+v, %v", user, stageID, rows, err)
		}
	}
	if rows, err := md.StagedMedia(f.ctx, b, "", "", 10); err != nil || len(rows) != 0 {
		t.Fatalf("StagedMedia of another user = %+v, %v", rows, err)
	}
	if used, err := md.BlobInUse(f.ctx, a, "sum-2"); err != nil || !used {
		t.Fatalf("BlobInUse of a staged file = %v, %v", used, err)
	}
	if u, err := md.MediaUsage(f.ctx, a, f.now); err != nil || u.StoredBytes != 200 {
		t.Fatalf("MediaUsage with a staged file = %+v, %v", u, err)
	}
	if rows, err := md.MediaNamed(f.ctx, a, "dog.png", "image/png", 10); err != nil || len(rows) != 0 {
		t.Fatalf("MediaNamed of a staged file = %+v, %v", rows, err)
	}
	if rows, err := md.MediaNamed(f.ctx, a, "cat.png", "image/png", 10); err != nil || len(rows) != 1 || rows[0].ID != had.ID {
		t.Fatalf("MediaNamed = %+v, %v", rows, err)
	}
	if rows, err := md.MediaNamed(f.ctx, a, "cat.png", "image/jpeg", 10); err != nil || len(rows) != 0 {
		t.Fatalf("MediaNamed of another type = %+v, %v", rows, err)
	}
	if rows, err := md.UnusedMedia(f.ctx, f.now.Add(time.Hour), "", 100); err != nil || slices.ContainsFunc(rows, func(m ports.MediaRow) bool { return m.ID == staged.ID }) {
		t.Fatalf("UnusedMedia offers a staged file: %+v, %v", rows, err)
	}

	must(t, f.s.InTx(f.ctx, func(tx ports.Stores) error {
		_, err := tx.ImportStages().PublishStage(f.ctx, a, stage.ID, f.now)
		return err
	}))
	got, err := md.MediaByID(f.ctx, staged.ID)
	if err != nil || got.StageID != "" || got.SHA256 != "sum-2" {
		t.Fatalf("MediaByID of a published file = %+v, %v", got, err)
	}
	if rows, err := md.StagedMedia(f.ctx, a, "", "", 10); err != nil || len(rows) != 0 {
		t.Fatalf("StagedMedia after publishing = %+v, %v", rows, err)
	}
	if rows, err := md.MediaNamed(f.ctx, a, "dog.png", "image/png", 10); err != nil || len(rows) != 1 || rows[0].ID != staged.ID {
		t.Fatalf("MediaNamed of a published file = %+v, %v", rows, err)
	}
}

// testImportPublishedReviews: a published stage's review logs are read by
// every read of review logs from the publish on (the statistics, a
// card's logs, the optimiser's history, the account's list), each once,
// under their card's deck, while DropStage moves them into the review
// log a batch at a time; a card moved takes them along, a card trashed
// takes them into the trash and back; another user never sees them.
func testImportPublishedReviews(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	preset := f.id("pst")
	must(t, f.s.Presets().CreatePreset(f.ctx, a, contracts.Preset{ID: preset, Name: preset, CreatedAt: f.now, UpdatedAt: f.now}))
	d := contracts.Deck{ID: f.id("dck"), Name: "Imported", Settings: contracts.DefaultDeckSettings(), CreatedAt: f.now, UpdatedAt: f.now}
	d.Settings.PresetID = preset
	must(t, f.s.Decks().CreateDeck(f.ctx, a, d))
	other := f.deck(a, "Other")
	st := f.s.ImportStages()
	stage := ports.ImportStage{ID: f.id("stg"), UserID: a}
	must(t, st.CreateStage(f.ctx, stage, f.now))
	c1, c2 := f.card(d.ID, "eins", "one"), f.card(d.ID, "zwei", "two")
	must(t, st.StageCards(f.ctx, a, stage.ID, []ports.CardRow{c1, c2}))
	var logs []ports.ReviewLog
	for i := range 4 {
		logs = append(logs, f.reviewLog(a, c1, "", contracts.RatingGood, f.now.Add(-time.Duration(4-i)*day), 1000))
	}
	logs = append(logs, f.reviewLog(a, c2, "", contracts.RatingAgain, f.now.Add(-day), 2000))
	must(t, st.StageReviews(f.ctx, a, stage.ID, logs))
	since := f.now.Add(-30 * day)
	count := func(deckID string) int {
		t.Helper()
		days, err := f.s.Reviews().ReviewDays(f.ctx, a, deckID, since)
		must(t, err)
		n := 0
		for _, x := range days {
			n += x.Reviews
		}
		return n
	}
	check := func(when string, all, inD, inOther int) {
		t.Helper()
		if got := count(""); got != all {
			t.Errorf("%s: ReviewDays counts %d reviews, want %d", when, got, all)
		}
		if got, got2 := count(d.ID), count(other.ID); got != inD || got2 != inOther {
			t.Errorf("%s: ReviewDays of the decks = %d, %d; want %d, %d", when, got, got2, inD, inOther)
		}
		ids := f.reviewIDs(a)
		if len(ids) != all || len(ids) != len(dedupeStrings(ids)) {
			t.Errorf("%s: ListReviews = %v, want %d distinct", when, ids, all)
		}
		if n, _, err := f.s.Reviews().Retention(f.ctx, a, "", since); err != nil || n != 0 {
			t.Errorf("%s: Retention = %d, %v (the cards were new: no review-phase reviews)", when, n, err)
		}
		if c, err := f.s.Reviews().StudiedSince(f.ctx, a, "", since); err != nil || c.New != all {
			t.Errorf("%s: StudiedSince = %+v, %v; want %d new", when, c, err, all)
		}
		if mean, n, err := f.s.Reviews().AverageDuration(f.ctx, a, since); err != nil || n != all {
			t.Errorf("%s: AverageDuration = %v over %d, %v; want %d", when, mean, n, err, all)
		}
		if got := f.reviewIDs(b); len(got) != 0 {
			t.Errorf("%s: another user's ListReviews = %v", when, got)
		}
	}
	check("staged", 0, 0, 0)
	must(t, f.s.InTx(f.ctx, func(tx ports.Stores) error {
		pub, err := tx.ImportStages().PublishStage(f.ctx, a, stage.ID, f.now)
		if err == nil && pub.Reviews != len(logs) {
			t.Errorf("PublishStage = %+v, want %d reviews", pub, len(logs))
		}
		return err
	}))
	check("published", 5, 5, 0)
	of, err := f.s.Reviews().ReviewsOfCards(f.ctx, a, []string{c1.ID})
	must(t, err)
	if len(of) != 4 {
		t.Errorf("ReviewsOfCards of the published card = %d logs, want 4", len(of))
	}
	// CardReviews reads the same logs whole, newest first, up to its limit.
	whole, err := f.s.Reviews().CardReviews(f.ctx, a, c1.ID, 10)
	must(t, err)
	if len(whole) != 4 {
		t.Errorf("CardReviews of the published card = %d logs, want 4", len(whole))
	}
	for i, r := range whole {
		if r.CardID != c1.ID || r.Rating == "" || r.State.Phase == "" || (i > 0 && r.ReviewedAt.After(whole[i-1].ReviewedAt)) {
			t.Errorf("CardReviews[%d] = %+v (want c1's, whole, newest first)", i, r)
		}
	}
	if two, err := f.s.Reviews().CardReviews(f.ctx, a, c1.ID, 2); err != nil || len(two) != 2 || (len(whole) == 4 && two[0].ID != whole[0].ID) {
		t.Errorf("CardReviews limited to 2 = %d logs, %v", len(two), err)
	}
	if none, err := f.s.Reviews().CardReviews(f.ctx, b, c1.ID, 10); err != nil || len(none) != 0 {
		t.Errorf("another user's CardReviews of the card = %d logs, %v", len(none), err)
	}
	hist, err := f.s.Reviews().PresetHistory(f.ctx, a, preset, "", 10)
	must(t, err)
	if len(hist) != 5 {
		t.Errorf("PresetHistory after the publish = %d logs, want 5", len(hist))
	}

	moved := f.get(a, c1.ID)
	moved.DeckID = other.ID
	must(t, f.s.Cards().UpdateCard(f.ctx, a, moved))
	check("c1 moved", 5, 1, 4)
	_, err = f.s.Cards().TrashCards(f.ctx, a, []string{c2.ID}, f.now)
	must(t, err)
	check("c2 trashed", 4, 0, 4)
	must(t, f.s.Trash().RestoreCard(f.ctx, a, c2.ID))
	check("c2 restored", 5, 1, 4)

	for i := 0; ; i++ {
		gone, err := st.DropStage(f.ctx, stage.ID, 2)
		must(t, err)
		check("dropping the stage", 5, 1, 4)
		if gone {
			break
		}
		if i > 10 {
			t.Fatal("DropStage never finished")
		}
	}
	all, err := f.s.Reviews().ListReviews(f.ctx, a, "", 10)
	must(t, err)
	for _, r := range all {
		if want := map[string]string{c1.ID: other.ID, c2.ID: d.ID}[r.CardID]; r.DeckID != want {
			t.Errorf("review %s of card %s is in deck %s, want %s", r.ID, r.CardID, r.DeckID, want)
		}
	}
}

// dedupeStrings returns ss without repeats, in order.
func dedupeStrings(ss []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, s := range ss {
		if !seen[s] {
			seen[s], out = true, append(out, s)
		}
	}
	return out
}

// testImportConcurrentDrops: the import job and the purge may drop the
// same published stage at once (StagesToDrop lists every published
// stage). Each of its review logs must reach review_logs, once: a drop
// that finds the batch it picked moved by the other meanwhile must not
// take the stage for empty and delete it with the logs still in it.
func testImportConcurrentDrops(t *testing.T, f *fixture) {
	a := f.user()
	d := f.deck(a, "Imported")
	st := f.s.ImportStages()
	stage := ports.ImportStage{ID: f.id("stg"), UserID: a}
	must(t, st.CreateStage(f.ctx, stage, f.now))
	c := f.card(d.ID, "eins", "one")
	must(t, st.StageCards(f.ctx, a, stage.ID, []ports.CardRow{c}))
	var logs []ports.ReviewLog
	for i := range 4 {
		logs = append(logs, f.reviewLog(a, c, "", contracts.RatingGood, f.now.Add(-time.Duration(4-i)*day), 1000))
	}
	must(t, st.StageReviews(f.ctx, a, stage.ID, logs))
	must(t, f.s.InTx(f.ctx, func(tx ports.Stores) error {
		_, err := tx.ImportStages().PublishStage(f.ctx, a, stage.ID, f.now)
		return err
	}))
	if got := f.reviewIDs(a); len(got) != len(logs) {
		t.Fatalf("published: ListReviews = %v, want %d", got, len(logs))
	}
	// The first drop moves two logs and holds its transaction open while
	// the second starts on the same stage.
	other := make(chan error, 1)
	must(t, f.s.InTx(f.ctx, func(tx ports.Stores) error {
		if _, err := tx.ImportStages().DropStage(f.ctx, stage.ID, 2); err != nil {
			return err
		}
		go func() {
			_, err := st.DropStage(f.ctx, stage.ID, 2)
			other <- err
		}()
		time.Sleep(300 * time.Millisecond)
		return nil
	}))
	must(t, <-other)
	for i := 0; ; i++ {
		gone, err := st.DropStage(f.ctx, stage.ID, 2)
		must(t, err)
		if gone {
			break
		}
		if i > 10 {
			t.Fatal("DropStage never finished")
		}
	}
	if got := f.reviewIDs(a); len(got) != len(logs) || len(dedupeStrings(got)) != len(logs) {
		t.Errorf("after two drops at once: ListReviews = %v, want the %d logs once each", got, len(logs))
	}
}

// testImportMoveWhileSettling: a card of a published stage moved to
// another deck while DropStage moves its review logs into review_logs
// takes them along, whichever commits first: no log stays under the
// deck the card left.
func testImportMoveWhileSettling(t *testing.T, f *fixture) {
	a := f.user()
	d, e := f.deck(a, "Imported"), f.deck(a, "Elsewhere")
	st := f.s.ImportStages()
	stage := ports.ImportStage{ID: f.id("stg"), UserID: a}
	must(t, st.CreateStage(f.ctx, stage, f.now))
	c := f.card(d.ID, "eins", "one")
	must(t, st.StageCards(f.ctx, a, stage.ID, []ports.CardRow{c}))
	logs := []ports.ReviewLog{f.reviewLog(a, c, "", contracts.RatingGood, f.now.Add(-2*day), 1000),
		f.reviewLog(a, c, "", contracts.RatingGood, f.now.Add(-day), 1000)}
	must(t, st.StageReviews(f.ctx, a, stage.ID, logs))
	must(t, f.s.InTx(f.ctx, func(tx ports.Stores) error {
		_, err := tx.ImportStages().PublishStage(f.ctx, a, stage.ID, f.now)
		return err
	}))
	// The move is written first and commits while the drop has started.
	dropped := make(chan error, 1)
	must(t, f.s.InTx(f.ctx, func(tx ports.Stores) error {
		moved := f.get(a, c.ID)
		moved.DeckID = e.ID
		if err := tx.Cards().UpdateCard(f.ctx, a, moved); err != nil {
			return err
		}
		go func() {
			for {
				gone, err := st.DropStage(f.ctx, stage.ID, 10)
				if err != nil || gone {
					dropped <- err
					return
				}
			}
		}()
		time.Sleep(300 * time.Millisecond)
		return nil
	}))
	must(t, <-dropped)
	all, err := f.s.Reviews().ListReviews(f.ctx, a, "", 10)
	must(t, err)
	if len(all) != len(logs) {
		t.Fatalf("ListReviews = %d logs, want %d", len(all), len(logs))
	}
	for _, r := range all {
		if r.DeckID != e.ID {
			t.Errorf("review %s of the moved card is in deck %s, want %s (where the card is)", r.ID, r.DeckID, e.ID)
		}
	}
	if n := countReviews(t, f, a, d.ID); n != 0 {
		t.Errorf("ReviewDays of the deck the card left counts %d reviews, want 0", n)
	}
}

// countReviews adds up ReviewDays of a user's deck over the last 30 days.
func countReviews(t *testing.T, f *fixture, userID, deckID string) int {
	t.Helper()
	days, err := f.s.Reviews().ReviewDays(f.ctx, userID, deckID, f.now.Add(-30*day))
	must(t, err)
	n := 0
	for _, x := range days {
		n += x.Reviews
	}
	return n
}

// testImportPublishBumpsVersion: publishing a stage whose review logs
// are of cards the account had (a package imported again with more
// reviews) makes them live, a write of the account's review logs: the
// data version the caches of stats and plans trust changes.
func testImportPublishBumpsVersion(t *testing.T, f *fixture) {
	a := f.user()
	d := f.deck(a, "Had")
	c := f.insert(a, f.card(d.ID, "eins", "one"))[0]
	st := f.s.ImportStages()
	stage := ports.ImportStage{ID: f.id("stg"), UserID: a}
	must(t, st.CreateStage(f.ctx, stage, f.now))
	must(t, st.StageReviews(f.ctx, a, stage.ID, []ports.ReviewLog{f.reviewLog(a, c, "", contracts.RatingGood, f.now.Add(-day), 1000)}))
	before, err := f.s.Settings().DataVersion(f.ctx, a)
	must(t, err)
	must(t, f.s.InTx(f.ctx, func(tx ports.Stores) error {
		_, err := tx.ImportStages().PublishStage(f.ctx, a, stage.ID, f.now)
		return err
	}))
	if n := countReviews(t, f, a, d.ID); n != 1 {
		t.Fatalf("ReviewDays after the publish counts %d reviews, want 1", n)
	}
	if after, err := f.s.Settings().DataVersion(f.ctx, a); err != nil || after == before {
		t.Errorf("publishing a review log left the data version at %d (%v)", after, err)
	}
}
