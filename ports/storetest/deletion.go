package storetest

import (
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testListReviewsAndMedia: the export's listings page by id and see one
// user's rows only.
func testListReviewsAndMedia(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	da, db := f.deck(a, "A"), f.deck(b, "B")
	ca := f.insert(a, f.card(da.ID, "q1", "a1"), f.card(da.ID, "q2", "a2"))
	cb := f.insert(b, f.card(db.ID, "theirs", "x"))
	r1 := f.review(a, ca[0], "", contracts.RatingGood, f.now, 1200)
	r2 := f.review(a, ca[1], "", contracts.RatingAgain, f.now.Add(time.Minute), 0)
	r3 := f.review(a, ca[0], "", contracts.RatingEasy, f.now.Add(2*time.Minute), 800)
	f.review(b, cb[0], "", contracts.RatingGood, f.now, 500)

	first, err := f.s.Reviews().ListReviews(f.ctx, a, "", 2)
	must(t, err)
	rest, err := f.s.Reviews().ListReviews(f.ctx, a, first[len(first)-1].ID, 2)
	must(t, err)
	var got []string
	for _, r := range append(first, rest...) {
		got = append(got, r.ID)
		if r.UserID != a {
			t.Errorf("ListReviews returned a review of user %q", r.UserID)
		}
	}
	sameIDs(t, got, []string{r1.ID, r2.ID, r3.ID}, "ListReviews in two pages")
	if g := first[0]; g.CardID != ca[0].ID || g.DeckID != da.ID || g.Rating != contracts.RatingGood || g.DurationMs != 1200 ||
		!g.ReviewedAt.Equal(r1.ReviewedAt) || g.State.Phase != r1.State.Phase || g.State.Reps != r1.State.Reps ||
		g.State.LastReview == nil || !g.State.Due.Equal(r1.State.Due) || g.PrevPhase != r1.PrevPhase {
		t.Errorf("ListReviews entry = %+v, want %+v", g, r1)
	}
	if first[1].DurationMs != 0 {
		t.Errorf("a review without a duration reads back %d ms", first[1].DurationMs)
	}
	none, err := f.s.Reviews().ListReviews(f.ctx, a, "", 0)
	must(t, err)
	if len(none) != 0 {
		t.Errorf("ListReviews with limit 0 = %d rows", len(none))
	}

	md := f.s.Media()
	m1 := ports.MediaRow{ID: f.id("med"), UserID: a, ContentType: "image/png", Filename: "one.png", MaxBytes: 10,
		TokenHash: []byte{1}, CreatedAt: f.now, ExpiresAt: f.now.Add(time.Hour)}
	m2 := m1
	m2.ID, m2.Filename = f.id("med"), "two.png"
	mb := m1
	mb.ID, mb.UserID = f.id("med"), b
	for _, m := range []ports.MediaRow{m1, m2, mb} {
		must(t, md.CreateMedia(f.ctx, m))
	}
	must(t, md.MarkUploaded(f.ctx, m2.ID, 7, "cc", f.now))
	list, err := md.ListMedia(f.ctx, a, "", 10)
	must(t, err)
	if len(list) != 2 || list[0].ID != m1.ID || list[1].ID != m2.ID || list[1].Size != 7 || list[1].UploadedAt == nil || list[0].Filename != "one.png" {
		t.Fatalf("ListMedia = %+v", list)
	}
	list, err = md.ListMedia(f.ctx, a, m1.ID, 10)
	must(t, err)
	if len(list) != 1 || list[0].ID != m2.ID {
		t.Fatalf("ListMedia after %s = %+v", m1.ID, list)
	}
}

// testDeleteUser: deleting an account removes every row of it and nothing
// of anyone else's, and leaves one anonymous record.
func testDeleteUser(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	var decks []contracts.Deck
	for _, u := range []string{a, b} {
		d := f.deck(u, "Deck")
		decks = append(decks, d)
		c := f.insert(u, f.card(d.ID, "front", "back"))
		f.review(u, c[0], "", contracts.RatingGood, f.now, 100)
		must(t, f.s.Keys().CreateKey(f.ctx, ports.APIKeyRow{UserID: u, Hash: []byte("h" + u),
			APIKeyView: contracts.APIKeyView{ID: f.id("key"), Name: "k", Scopes: []contracts.Scope{contracts.ScopeDecksRead}, Hint: "abcdef", CreatedAt: f.now}}))
		must(t, f.s.WebSessions().CreateWebSession(f.ctx, ports.WebSessionRow{Hash: []byte("s" + u), UserID: u, Kind: "session",
			CreatedAt: f.now, ExpiresAt: f.now.Add(day)}))
		must(t, f.s.Exposure().PutExposure(f.ctx, u, contracts.ExposureSettings{ReadOnly: true, UpdatedAt: f.now}))
		st := contracts.DefaultAccountSettings()
		st.Timezone = "Europe/Paris"
		must(t, f.s.Settings().PutSettings(f.ctx, u, st))
		must(t, f.s.Audit().AppendAudit(f.ctx, contracts.AuditEvent{ID: f.id("aud"), UserID: u, CredentialKind: contracts.CredentialAPIKey,
			Tool: "add_cards", Action: "cards.add", InputSummary: []byte(`{}`), Outcome: contracts.AuditOK, At: f.now}))
		must(t, f.s.Media().CreateMedia(f.ctx, ports.MediaRow{ID: f.id("med"), UserID: u, ContentType: "image/png", Filename: "x.png",
			MaxBytes: 1, TokenHash: []byte{1}, CreatedAt: f.now, ExpiresAt: f.now.Add(time.Hour)}))
		gone := f.deck(u, "Trashed")
		f.review(u, f.insert(u, f.card(gone.ID, "front", "back"))[0], "", contracts.RatingGood, f.now, 100)
		_, err := f.s.Decks().TrashDeck(f.ctx, u, gone.ID, f.now)
		must(t, err)
	}
	before, err := f.s.Users().CountDeletions(f.ctx)
	must(t, err)

	must(t, f.s.Users().DeleteUser(f.ctx, a, f.id("del"), f.now))

	_, err = f.s.Users().UserByID(f.ctx, a)
	wantKind(t, err, contracts.KindNotFound, "the deleted user")
	keys, err := f.s.Keys().ListKeys(f.ctx, a)
	must(t, err)
	_, err = f.s.WebSessions().WebSession(f.ctx, "session", []byte("s"+a))
	wantKind(t, err, contracts.KindNotFound, "the deleted user's web session")
	revs, err := f.s.Reviews().ListReviews(f.ctx, a, "", 10)
	must(t, err)
	media, err := f.s.Media().ListMedia(f.ctx, a, "", 10)
	must(t, err)
	audit, err := f.s.Audit().ListAudit(f.ctx, a, contracts.AuditFilter{}, "", 10)
	must(t, err)
	_, err = f.s.Decks().DeckWithoutCounts(f.ctx, a, decks[0].ID)
	wantKind(t, err, contracts.KindNotFound, "the deleted user's deck")
	exp, err := f.s.Exposure().GetExposure(f.ctx, a)
	must(t, err)
	if _, found, err := f.s.Settings().GetSettings(f.ctx, a); err != nil || found {
		t.Errorf("the deleted user's settings: found %v, %v", found, err)
	}
	if len(keys)+len(revs)+len(media)+len(audit) != 0 || exp.ReadOnly {
		t.Errorf("rows left after deleting the account: %d keys, %d reviews, %d media, %d audit, exposure %+v",
			len(keys), len(revs), len(media), len(audit), exp)
	}
	// The deleted account's trash went with it: a purge of everything left
	// finds only the other account's trashed deck and card.
	if n, err := f.s.Trash().PurgeTrash(f.ctx, f.now.Add(365*day), 100); err != nil || n != 2 {
		t.Errorf("purging all trash after deleting an account = %d, %v; want 2 (the other account's deck and card)", n, err)
	}
	after, err := f.s.Users().CountDeletions(f.ctx)
	must(t, err)
	if after != before+1 {
		t.Errorf("deletion records %d → %d, want one more", before, after)
	}

	// The other account is untouched.
	if _, err := f.s.Users().UserByID(f.ctx, b); err != nil {
		t.Fatalf("the other user: %v", err)
	}
	for what, n := range map[string]func() (int, error){
		"keys":    func() (int, error) { l, err := f.s.Keys().ListKeys(f.ctx, b); return len(l), err },
		"reviews": func() (int, error) { l, err := f.s.Reviews().ListReviews(f.ctx, b, "", 10); return len(l), err },
		"media":   func() (int, error) { l, err := f.s.Media().ListMedia(f.ctx, b, "", 10); return len(l), err },
		"audit": func() (int, error) {
			l, err := f.s.Audit().ListAudit(f.ctx, b, contracts.AuditFilter{}, "", 10)
			return len(l), err
		},
	} {
		got, err := n()
		must(t, err)
		if got != 1 {
			t.Errorf("the other user has %d %s after the deletion, want 1", got, what)
		}
	}
	_, err = f.s.WebSessions().WebSession(f.ctx, "session", []byte("s"+b))
	must(t, err)

	wantKind(t, f.s.Users().DeleteUser(f.ctx, a, f.id("del"), f.now), contracts.KindNotFound, "deleting a deleted account")
	again, err := f.s.Users().CountDeletions(f.ctx)
	must(t, err)
	if again != after {
		t.Errorf("a refused deletion left a record (%d → %d)", after, again)
	}
}
