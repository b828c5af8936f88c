package storetest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// normKey normalises a key for comparison.
func normKey(k ports.APIKeyRow) ports.APIKeyRow {
	k.Exposure = nil // checked by testKeyExposure
	k.CreatedAt = ms(k.CreatedAt)
	k.ExpiresAt, k.LastUsedAt, k.RevokedAt = msp(k.ExpiresAt), msp(k.LastUsedAt), msp(k.RevokedAt)
	if k.Scopes == nil {
		k.Scopes = []contracts.Scope{}
	}
	return k
}

func testAPIKeys(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	keys := f.s.Keys()
	exp := f.now.Add(30 * day)
	k1 := ports.APIKeyRow{UserID: a, Hash: []byte{0, 1, 2, 0xfe, 0xff},
		APIKeyView: contracts.APIKeyView{ID: f.id("key"), Name: "laptop", Scopes: []contracts.Scope{contracts.ScopeDecksRead, contracts.ScopeStudyWrite},
			Hint: "abc123", CreatedAt: f.now, ExpiresAt: &exp}}
	k2 := ports.APIKeyRow{UserID: a, Hash: []byte("second"),
		APIKeyView: contracts.APIKeyView{ID: f.id("key"), Name: "ci", Scopes: []contracts.Scope{contracts.ScopeStatsRead}, Hint: "zzz999",
			CreatedAt: f.now.Add(time.Hour)}}
	kb := ports.APIKeyRow{UserID: b, Hash: []byte("theirs"),
		APIKeyView: contracts.APIKeyView{ID: f.id("key"), Name: "theirs", Scopes: []contracts.Scope{contracts.ScopeDecksRead}, Hint: "bbbbbb",
			CreatedAt: f.now.Add(2 * time.Hour)}}
	for _, k := range []ports.APIKeyRow{k1, k2, kb} {
		must(t, keys.CreateKey(f.ctx, k))
	}
	wantKind(t, keys.CreateKey(f.ctx, k1), contracts.KindConflict, "CreateKey with a taken id")

	got, err := keys.KeyByID(f.ctx, k1.ID)
	must(t, err)
	if !reflect.DeepEqual(normKey(got), normKey(k1)) {
		t.Errorf("KeyByID:\n got %+v\nwant %+v", normKey(got), normKey(k1))
	}
	_, err = keys.KeyByID(f.ctx, "key-missing")
	wantKind(t, err, contracts.KindNotFound, "KeyByID of a missing key")

	list, err := keys.ListKeys(f.ctx, a)
	must(t, err)
	if len(list) != 2 || list[0].ID != k2.ID || list[1].ID != k1.ID {
		t.Fatalf("ListKeys = %v, want [%s %s] (newest first, the user's only)", keyIDs(list), k2.ID, k1.ID)
	}
	if !reflect.DeepEqual(normKey(list[1]), normKey(k1)) {
		t.Errorf("ListKeys entry:\n got %+v\nwant %+v", normKey(list[1]), normKey(k1))
	}

	// Revocation is the owner's, once.
	wantKind(t, keys.RevokeKey(f.ctx, b, k1.ID, f.now), contracts.KindNotFound, "RevokeKey of another user's key")
	if got, _ := keys.KeyByID(f.ctx, k1.ID); got.RevokedAt != nil {
		t.Errorf("another user's RevokeKey revoked the key")
	}
	wantKind(t, keys.RevokeKey(f.ctx, a, "key-missing", f.now), contracts.KindNotFound, "RevokeKey of a missing key")
	revoked := f.now.Add(time.Minute)
	must(t, keys.RevokeKey(f.ctx, a, k1.ID, revoked))
	must(t, keys.RevokeKey(f.ctx, a, k1.ID, revoked.Add(time.Hour)))
	got, err = keys.KeyByID(f.ctx, k1.ID)
	must(t, err)
	if got.RevokedAt == nil || !got.RevokedAt.Equal(revoked) {
		t.Errorf("RevokedAt = %v, want the first revocation %v", got.RevokedAt, revoked)
	}

	used := f.now.Add(2 * time.Minute)
	must(t, keys.TouchKey(f.ctx, k2.ID, used))
	got, err = keys.KeyByID(f.ctx, k2.ID)
	must(t, err)
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(used) {
		t.Errorf("LastUsedAt = %v, want %v", got.LastUsedAt, used)
	}
	if other, _ := keys.KeyByID(f.ctx, kb.ID); other.LastUsedAt != nil || other.RevokedAt != nil {
		t.Errorf("touching and revoking a's keys changed b's key: %+v", other)
	}
}

// keyIDs returns the ids of keys.
func keyIDs(keys []ports.APIKeyRow) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.ID
	}
	return out
}

func testWebSessions(t *testing.T, f *fixture) {
	a := f.user()
	ws := f.s.WebSessions()
	sess := ports.WebSessionRow{Hash: []byte("session-hash\x00\xff"), UserID: a, Kind: "session", CreatedAt: f.now, ExpiresAt: f.now.Add(day)}
	link := ports.WebSessionRow{Hash: []byte("link-hash"), UserID: a, Kind: "login_link", CreatedAt: f.now, ExpiresAt: f.now.Add(15 * time.Minute)}
	must(t, ws.CreateWebSession(f.ctx, sess))
	must(t, ws.CreateWebSession(f.ctx, link))
	wantKind(t, ws.CreateWebSession(f.ctx, sess), contracts.KindConflict, "CreateWebSession twice")

	got, err := ws.WebSession(f.ctx, "session", sess.Hash)
	must(t, err)
	if !bytes.Equal(got.Hash, sess.Hash) || got.UserID != a || got.Kind != "session" || !got.CreatedAt.Equal(sess.CreatedAt) ||
		!got.ExpiresAt.Equal(sess.ExpiresAt) {
		t.Errorf("WebSession = %+v, want %+v", got, sess)
	}
	_, err = ws.WebSession(f.ctx, "login_link", sess.Hash)
	wantKind(t, err, contracts.KindNotFound, "WebSession of the wrong kind")
	_, err = ws.WebSession(f.ctx, "session", []byte("unknown"))
	wantKind(t, err, contracts.KindNotFound, "WebSession of an unknown hash")

	ok, err := ws.DeleteWebSession(f.ctx, "login_link", link.Hash)
	must(t, err)
	if !ok {
		t.Error("DeleteWebSession of an existing link reported false")
	}
	ok, err = ws.DeleteWebSession(f.ctx, "login_link", link.Hash)
	must(t, err)
	if ok {
		t.Error("DeleteWebSession of a spent link reported true")
	}
	ok, err = ws.DeleteWebSession(f.ctx, "login_link", sess.Hash)
	must(t, err)
	if ok {
		t.Error("DeleteWebSession of the wrong kind reported true")
	}

	// Sign-up links: an email without an account, spent once.
	signup := ports.SignupLinkRow{Hash: []byte("signup-hash\x00"), Email: "new@example.com", CreatedAt: f.now, ExpiresAt: f.now.Add(15 * time.Minute)}
	must(t, ws.CreateSignupLink(f.ctx, signup))
	wantKind(t, ws.CreateSignupLink(f.ctx, signup), contracts.KindConflict, "CreateSignupLink twice")
	gotSignup, err := ws.SignupLink(f.ctx, signup.Hash)
	must(t, err)
	if !bytes.Equal(gotSignup.Hash, signup.Hash) || gotSignup.Email != signup.Email || !gotSignup.CreatedAt.Equal(signup.CreatedAt) || !gotSignup.ExpiresAt.Equal(signup.ExpiresAt) {
		t.Errorf("SignupLink = %+v, want %+v", gotSignup, signup)
	}
	_, err = ws.SignupLink(f.ctx, link.Hash)
	wantKind(t, err, contracts.KindNotFound, "SignupLink of a sign-in link's hash")
	for i, want := range []bool{true, false} {
		ok, err := ws.DeleteSignupLink(f.ctx, signup.Hash)
		must(t, err)
		if ok != want {
			t.Errorf("DeleteSignupLink #%d = %v, want %v", i+1, ok, want)
		}
	}
	if _, err := ws.WebSession(f.ctx, "session", sess.Hash); err != nil {
		t.Errorf("deleting other rows removed the session: %v", err)
	}
}

func testExposure(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	ex := f.s.Exposure()
	got, err := ex.GetExposure(f.ctx, a)
	must(t, err)
	if got.ReadOnly || len(got.DisabledTools) != 0 || got.Toolsets != nil || !got.UpdatedAt.IsZero() {
		t.Errorf("GetExposure before any Put = %+v, want the zero value", got)
	}
	first := contracts.ExposureSettings{ReadOnly: true, DisabledTools: []string{"delete_deck", "import_cards"},
		Toolsets: []string{contracts.ToolsetStudy, contracts.ToolsetExchange}, UpdatedAt: f.now}
	must(t, ex.PutExposure(f.ctx, a, first))
	got, err = ex.GetExposure(f.ctx, a)
	must(t, err)
	if !got.ReadOnly || !reflect.DeepEqual(got.DisabledTools, first.DisabledTools) || !reflect.DeepEqual(got.Toolsets, first.Toolsets) || !got.UpdatedAt.Equal(first.UpdatedAt) {
		t.Errorf("GetExposure = %+v, want %+v", got, first)
	}
	// No toolsets (never chosen) reads back as nil.
	second := contracts.ExposureSettings{DisabledTools: nil, UpdatedAt: f.now.Add(time.Hour)}
	must(t, ex.PutExposure(f.ctx, a, second))
	got, err = ex.GetExposure(f.ctx, a)
	must(t, err)
	if got.ReadOnly || len(got.DisabledTools) != 0 || got.Toolsets != nil || !got.UpdatedAt.Equal(second.UpdatedAt) {
		t.Errorf("GetExposure after a replacement = %+v, want %+v", got, second)
	}
	other, err := ex.GetExposure(f.ctx, b)
	must(t, err)
	if other.ReadOnly || len(other.DisabledTools) != 0 {
		t.Errorf("another user's exposure = %+v, want the zero value", other)
	}
	testKeyExposure(t, f)
}

// testKeyExposure checks the exposure settings KeyByID may return with a
// key: when a store reads them, they are the owner's current ones.
func testKeyExposure(t *testing.T, f *fixture) {
	a := f.user()
	k := ports.APIKeyRow{UserID: a, Hash: []byte("h"), APIKeyView: contracts.APIKeyView{ID: f.id("key"), Name: "x",
		Scopes: []contracts.Scope{contracts.ScopeDecksRead}, Hint: "hhhhhh", CreatedAt: f.now}}
	must(t, f.s.Keys().CreateKey(f.ctx, k))
	check := func(when string) {
		t.Helper()
		got, err := f.s.Keys().KeyByID(f.ctx, k.ID)
		must(t, err)
		if got.Exposure == nil {
			return // this store does not read them with the key
		}
		want, err := f.s.Exposure().GetExposure(f.ctx, a)
		must(t, err)
		e := *got.Exposure
		if e.ReadOnly != want.ReadOnly || len(e.DisabledTools) != len(want.DisabledTools) || !e.UpdatedAt.Equal(want.UpdatedAt) ||
			(len(want.DisabledTools) > 0 && !reflect.DeepEqual(e.DisabledTools, want.DisabledTools)) || !reflect.DeepEqual(e.Toolsets, want.Toolsets) {
			t.Errorf("%s: KeyByID's exposure = %+v, GetExposure = %+v", when, e, want)
		}
	}
	check("never set")
	must(t, f.s.Exposure().PutExposure(f.ctx, a, contracts.ExposureSettings{ReadOnly: true, DisabledTools: []string{"add_cards"},
		Toolsets: []string{contracts.ToolsetsAll}, UpdatedAt: f.now}))
	check("after a change")
}

func testMedia(t *testing.T, f *fixture) {
	a := f.user()
	md := f.s.Media()
	m := ports.MediaRow{ID: f.id("med"), UserID: a, ContentType: "image/png", Filename: "cat.png", MaxBytes: 1 << 20,
		TokenHash: []byte{9, 8, 7}, CreatedAt: f.now, ExpiresAt: f.now.Add(15 * time.Minute)}
	must(t, md.CreateMedia(f.ctx, m))
	wantKind(t, md.CreateMedia(f.ctx, m), contracts.KindConflict, "CreateMedia with a taken id")
	got, err := md.MediaByID(f.ctx, m.ID)
	must(t, err)
	if got.ID != m.ID || got.UserID != a || got.ContentType != m.ContentType || got.Filename != m.Filename || got.MaxBytes != m.MaxBytes ||
		!bytes.Equal(got.TokenHash, m.TokenHash) || !got.CreatedAt.Equal(m.CreatedAt) || !got.ExpiresAt.Equal(m.ExpiresAt) ||
		got.UploadedAt != nil || got.Size != 0 {
		t.Errorf("MediaByID = %+v, want %+v", got, m)
	}
	_, err = md.MediaByID(f.ctx, "med-missing")
	wantKind(t, err, contracts.KindNotFound, "MediaByID of missing media")

	at := f.now.Add(time.Minute)
	must(t, md.MarkUploaded(f.ctx, m.ID, 4242, "aa11", at))
	got, err = md.MediaByID(f.ctx, m.ID)
	must(t, err)
	if got.UploadedAt == nil || !got.UploadedAt.Equal(at) || got.Size != 4242 || got.SHA256 != "aa11" {
		t.Errorf("after MarkUploaded: uploaded %v size %d, want %v 4242", got.UploadedAt, got.Size, at)
	}
	wantKind(t, md.MarkUploaded(f.ctx, m.ID, 1, "bb", at.Add(time.Minute)), contracts.KindConflict, "MarkUploaded twice")
	got, _ = md.MediaByID(f.ctx, m.ID)
	if got.Size != 4242 || !got.UploadedAt.Equal(at) {
		t.Errorf("a second MarkUploaded changed the row: %+v", got)
	}
	wantKind(t, md.MarkUploaded(f.ctx, "med-missing", 1, "bb", at), contracts.KindNotFound, "MarkUploaded of missing media")
}

func testIdempotency(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	id := f.s.Idempotency()
	_, _, found, err := id.ClaimKey(f.ctx, a, "add_cards", "k1", "fp-1", f.now)
	must(t, err)
	if found {
		t.Fatal("the first ClaimKey found a stored batch")
	}
	result := []byte(`{"items":[{"index":0,"status":"created"}]}`)
	must(t, id.SaveResult(f.ctx, a, "add_cards", "k1", result))

	fp, stored, found, err := id.ClaimKey(f.ctx, a, "add_cards", "k1", "fp-2", f.now.Add(time.Minute))
	must(t, err)
	if !found || fp != "fp-1" || !jsonEqual(stored, result) {
		t.Errorf("second ClaimKey = %q, %s, %v; want fp-1, the stored result, found", fp, stored, found)
	}
	// Keys are per user and per scope.
	for _, c := range []struct{ user, scope string }{{b, "add_cards"}, {a, "import_cards"}} {
		_, _, found, err := id.ClaimKey(f.ctx, c.user, c.scope, "k1", "fp-3", f.now)
		must(t, err)
		if found {
			t.Errorf("ClaimKey(%s, %s, k1) found another user's or scope's batch", c.user, c.scope)
		}
	}
	wantKind(t, id.SaveResult(f.ctx, a, "add_cards", "never-claimed", result), contracts.KindNotFound, "SaveResult of an unclaimed key")
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
