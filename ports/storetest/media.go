package storetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// media creates an intent of userID announcing size bytes.
func (f *fixture) media(userID string, size int64, expires time.Time) ports.MediaRow {
	f.t.Helper()
	m := ports.MediaRow{ID: f.id("med"), UserID: userID, ContentType: "image/png", MaxBytes: size, TokenHash: []byte{1},
		CreatedAt: f.now, ExpiresAt: expires, CredentialKind: contracts.CredentialAPIKey, CredentialID: "key-1"}
	must(f.t, f.s.Media().CreateMedia(f.ctx, m))
	return m
}

// testMediaClaims: a token is claimed once, by exactly one of racing
// claims; the credential that asked is kept.
func testMediaClaims(t *testing.T, f *fixture) {
	a := f.user()
	md := f.s.Media()
	m := f.media(a, 10, f.now.Add(time.Hour))
	got, err := md.MediaByID(f.ctx, m.ID)
	must(t, err)
	if got.CredentialKind != contracts.CredentialAPIKey || got.CredentialID != "key-1" || got.ClaimedAt != nil {
		t.Fatalf("MediaByID = %+v", got)
	}
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = md.ClaimUpload(f.ctx, m.ID, f.now)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !contracts.IsKind(err, contracts.KindConflict) && !contracts.IsKind(err, contracts.KindUnavailable):
			t.Errorf("a losing claim: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d racing claims won, want 1", won, n)
	}
	got, _ = md.MediaByID(f.ctx, m.ID)
	if got.ClaimedAt == nil || !got.ClaimedAt.Equal(f.now) {
		t.Errorf("ClaimedAt = %v", got.ClaimedAt)
	}
	wantKind(t, md.ClaimUpload(f.ctx, "med-missing", f.now), contracts.KindNotFound, "ClaimUpload of missing media")
	up := f.media(a, 10, f.now.Add(time.Hour))
	must(t, md.MarkUploaded(f.ctx, up.ID, 3, "ab", f.now))
	wantKind(t, md.ClaimUpload(f.ctx, up.ID, f.now), contracts.KindConflict, "ClaimUpload of an uploaded file")
}

// testMediaUsage: equal files count once; open intents are reserved until
// they expire; another user's media count for nobody else; the lock works
// inside a transaction.
func testMediaUsage(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	md := f.s.Media()
	u, err := md.MediaUsage(f.ctx, a, f.now)
	must(t, err)
	if u != (ports.MediaUsage{}) {
		t.Fatalf("a new user's usage = %+v", u)
	}
	m1, m2, m3 := f.media(a, 100, f.now.Add(time.Hour)), f.media(a, 100, f.now.Add(time.Hour)), f.media(a, 500, f.now.Add(time.Hour))
	f.media(a, 7000, f.now.Add(-time.Minute)) // expired: neither open nor stored
	f.media(b, 9999, f.now.Add(time.Hour))
	must(t, md.MarkUploaded(f.ctx, m1.ID, 40, "same", f.now))
	must(t, md.MarkUploaded(f.ctx, m2.ID, 40, "same", f.now))
	u, err = md.MediaUsage(f.ctx, a, f.now)
	must(t, err)
	if want := (ports.MediaUsage{StoredBytes: 40, ReservedBytes: 500, OpenIntents: 1}); u != want {
		t.Fatalf("usage = %+v, want %+v", u, want)
	}
	_ = m3
	ids, err := md.UploadedMedia(f.ctx, a, []string{m1.ID, m2.ID, m3.ID, "med-missing"})
	must(t, err)
	slices.Sort(ids)
	if !slices.Equal(ids, []string{m1.ID, m2.ID}) {
		t.Fatalf("UploadedMedia = %v", ids)
	}
	if ids, err := md.UploadedMedia(f.ctx, b, []string{m1.ID}); err != nil || len(ids) != 0 {
		t.Fatalf("UploadedMedia as another user = %v, %v", ids, err)
	}
	must(t, f.s.InTx(f.ctx, func(tx ports.Stores) error { return tx.Media().LockMedia(f.ctx, a) }))
	must(t, f.s.InTx(f.ctx, func(tx ports.Stores) error { return tx.Media().LockMedia(f.ctx, a) }))
	wantKind(t, f.s.InTx(f.ctx, func(tx ports.Stores) error { return tx.Media().LockMedia(f.ctx, "usr-missing") }), contracts.KindNotFound, "LockMedia of a missing user")
}

// testMediaCollection: what the collector finds: uploads no card or note
// references (cards of any state count).
func testMediaCollection(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	md := f.s.Media()
	f.media(a, 10, f.now.Add(-2*time.Hour)) // an expired intent: not an upload
	up := func(user, sha string) ports.MediaRow {
		m := f.media(user, 10, f.now.Add(time.Hour))
		must(t, md.MarkUploaded(f.ctx, m.ID, 5, sha, f.now.Add(-3*time.Hour)))
		return m
	}
	inFront, inBack, sound, inNote, unused, otherUsers := up(a, "s1"), up(a, "s2"), up(a, "s3"), up(a, "s4"), up(a, "s5"), up(b, "s6")
	d := f.deck(a, "Media")
	f.insert(a, f.card(d.ID, "![map](media:"+inFront.ID+")", "x"), f.card(d.ID, "q", "look: ![x](media:"+inBack.ID+")"),
		f.card(d.ID, "[sound:"+sound.ID+"] hear", "y"))
	must(t, f.s.Notes().InsertNotes(f.ctx, a, []ports.NoteRow{f.note(contracts.NoteTypeBasic, "![n](media:"+inNote.ID+")", "back")}))
	// Another user's card naming a's media does not keep it.
	db := f.deck(b, "B")
	f.insert(b, f.card(db.ID, "![stolen](media:"+unused.ID+")", "z"))

	rows, err := md.UnusedMedia(f.ctx, f.now, "", 10)
	must(t, err)
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	want := []string{unused.ID, otherUsers.ID}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Fatalf("UnusedMedia = %v, want %v", ids, want)
	}
	if rows, _ := md.UnusedMedia(f.ctx, f.now.Add(-4*time.Hour), "", 10); len(rows) != 0 {
		t.Errorf("UnusedMedia before the uploads = %+v", rows)
	}
	if rows, _ := md.UnusedMedia(f.ctx, f.now, want[0], 10); len(rows) != 1 || rows[0].ID != want[1] {
		t.Errorf("UnusedMedia after %s = %+v", want[0], rows)
	}
	for _, c := range []struct {
		m    ports.MediaRow
		used bool
	}{{inFront, true}, {inBack, true}, {sound, true}, {inNote, true}, {unused, false}} {
		if used, err := md.MediaInUse(f.ctx, a, c.m.ID); err != nil || used != c.used {
			t.Errorf("MediaInUse(%s) = %v, %v; want %v", c.m.ID, used, err, c.used)
		}
	}
	if used, _ := md.BlobInUse(f.ctx, a, "s5"); !used {
		t.Error("BlobInUse of an uploaded file's sum = false")
	}
	wantKind(t, md.DeleteMedia(f.ctx, b, unused.ID), contracts.KindNotFound, "DeleteMedia of another user's media")
	must(t, md.DeleteMedia(f.ctx, a, unused.ID))
	wantKind(t, md.DeleteMedia(f.ctx, a, unused.ID), contracts.KindNotFound, "DeleteMedia twice")
	if used, _ := md.BlobInUse(f.ctx, a, "s5"); used {
		t.Error("BlobInUse after the only row went = true")
	}
}
