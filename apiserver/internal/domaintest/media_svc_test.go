package domain_test

import (
	"context"
	"io"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// A few files whose first bytes sniff as what they claim.
const (
	tinyWAV = "RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x44\xac\x00\x00\x88\x58\x01\x00\x02\x00\x10\x00data\x00\x00\x00\x00"
	tinyM4A = "\x00\x00\x00\x1cftypM4A \x00\x00\x02\x00M4A mp42isom\x00\x00\x00\x08free"
	// tinyZip is a zip archive holding one stored file "a" with "hi".
	tinyZip = "PK\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00\xac\x2a\x93\xd8\x02\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00ahi" +
		"PK\x01\x02\x14\x00\x14\x00\x00\x00\x00\x00\x00\x00\x00\x00\xac\x2a\x93\xd8\x02\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00a" +
		"PK\x05\x06\x00\x00\x00\x00\x01\x00\x01\x00\x2f\x00\x00\x00\x21\x00\x00\x00\x00\x00"
)

// upload asks for an intent as ctx and PUTs body with its token.
func (e *env) upload(ctx context.Context, ct, body string) (contracts.MediaUploadIntent, error) {
	e.t.Helper()
	in, err := e.svc.Media.RequestUpload(ctx, contracts.RequestMediaUploadArgs{ContentType: ct, Bytes: int64(len(body)), Filename: "f"})
	if err != nil {
		e.t.Fatalf("request upload: %v", err)
	}
	return in, e.svc.Media.AcceptUpload(context.Background(), in.MediaID, token(in), ct, strings.NewReader(body))
}

func token(in contracts.MediaUploadIntent) string {
	return strings.TrimPrefix(in.Headers["Authorization"], "Upload ")
}

// uploaded uploads body and fails the test on an error.
func (e *env) uploaded(ctx context.Context, ct, body string) string {
	e.t.Helper()
	in, err := e.upload(ctx, ct, body)
	if err != nil {
		e.t.Fatalf("upload %s: %v", ct, err)
	}
	return in.MediaID
}

func TestMediaUpload(t *testing.T) { eachStore(t, testMediaUpload) }

// testMediaUpload: the intent, the one-time token, the type and size checks
// and expiry.
func testMediaUpload(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	in, err := e.svc.Media.RequestUpload(ctx, contracts.RequestMediaUploadArgs{ContentType: "image/PNG", Bytes: int64(len(tinyPNG)), Filename: `C:\pics\cat.png`})
	if err != nil {
		t.Fatal(err)
	}
	tok := token(in)
	if len(tok) < 22 || in.UploadURL != baseURL+"/media/"+in.MediaID || in.Method != "PUT" || in.ContentType != "image/png" ||
		in.Headers["Content-Type"] != "image/png" || in.MaxBytes != int64(len(tinyPNG)) || !in.ExpiresAt.Equal(t0.Add(contracts.MediaIntentTTL)) || len(in.AllowedTypes) == 0 {
		t.Fatalf("intent = %+v", in)
	}
	bg := context.Background()
	body := strings.NewReader
	// Refusals before the token is spent.
	wantKind(t, e.svc.Media.AcceptUpload(bg, in.MediaID, "wrong-token", "image/png", body(tinyPNG)), contracts.KindUnauthenticated)
	wantKind(t, e.svc.Media.AcceptUpload(bg, "unknown", tok, "image/png", body(tinyPNG)), contracts.KindNotFound)
	wantKind(t, e.svc.Media.AcceptUpload(bg, in.MediaID, tok, "image/gif", body(tinyPNG)), contracts.KindInvalid)
	if err := e.svc.Media.AcceptUpload(bg, in.MediaID, tok, "image/png; charset=binary", body(tinyPNG)); err != nil {
		t.Fatalf("upload: %v", err)
	}
	if data, err := e.blob(in.MediaID); err != nil || string(data) != tinyPNG {
		t.Fatalf("stored %q, %v", data, err)
	}
	// Replayed token.
	wantKind(t, e.svc.Media.AcceptUpload(bg, in.MediaID, tok, "image/png", body(tinyPNG)), contracts.KindConflict)

	// Oversize: refused while reading, nothing stored, and the token is spent.
	big, _ := e.svc.Media.RequestUpload(ctx, contracts.RequestMediaUploadArgs{ContentType: "image/png", Bytes: int64(len(tinyPNG)) - 1})
	err = e.svc.Media.AcceptUpload(bg, big.MediaID, token(big), "image/png", body(tinyPNG))
	wantKind(t, err, contracts.KindInvalid)
	if !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversize: %v", err)
	}
	if _, err := e.svc.Media.OpenMedia(ctx, big.MediaID); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("an oversize upload is readable: %v", err)
	}
	wantKind(t, e.svc.Media.AcceptUpload(bg, big.MediaID, token(big), "image/png", body(tinyPNG[:len(tinyPNG)-1])), contracts.KindConflict)

	// Wrong type: bytes that are not what the intent declared.
	for _, c := range []struct{ ct, body string }{
		{"image/png", "<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>"},
		{"image/jpeg", tinyPNG},
		{"text/plain", "<!DOCTYPE html><html><script>alert(1)</script></html>"},
		{"audio/mpeg", tinyWAV},
		{"application/zip", "just text"},
	} {
		_, err := e.upload(ctx, c.ct, c.body)
		wantKind(t, err, contracts.KindInvalid)
		if !strings.Contains(err.Error(), "looks like") {
			t.Errorf("%s with the wrong bytes: %v", c.ct, err)
		}
	}
	// The compatibility table: CSV and TSV are plain text, m4a is MP4.
	for _, c := range []struct{ ct, body string }{
		{"text/csv", "front,back\nBonjour,Hello\n"},
		{"text/tab-separated-values", "front\tback\nMerci\tThanks\n"},
		{"audio/mp4", tinyM4A},
		{"audio/wav", tinyWAV},
		{"audio/mpeg", "\xff\xfb\x90\x64" + strings.Repeat("\x00", 60)},
		{"application/zip", tinyZip},
	} {
		if _, err := e.upload(ctx, c.ct, c.body); err != nil {
			t.Errorf("%s: %v", c.ct, err)
		}
	}

	// Expired.
	late, _ := e.svc.Media.RequestUpload(ctx, contracts.RequestMediaUploadArgs{ContentType: "image/png", Bytes: 100})
	e.clock.Advance(contracts.MediaIntentTTL)
	wantKind(t, e.svc.Media.AcceptUpload(bg, late.MediaID, token(late), "image/png", body(tinyPNG)), contracts.KindNotFound)

	for _, bad := range []contracts.RequestMediaUploadArgs{
		{ContentType: "application/pdf", Bytes: 10},
		{ContentType: "image/svg+xml", Bytes: 10},
		{ContentType: "text/html", Bytes: 10},
		{ContentType: "image/png", Bytes: 0},
		{ContentType: "image/png", Bytes: contracts.MaxMediaBytes + 1},
		{ContentType: "application/zip", Bytes: contracts.MaxAttachmentBytes + 1},
		{ContentType: "image/png", Bytes: 1, Filename: "bad\x00name"},
	} {
		_, err := e.svc.Media.RequestUpload(ctx, bad)
		wantKind(t, err, contracts.KindInvalid)
	}
	_, err = e.svc.Media.RequestUpload(bg, contracts.RequestMediaUploadArgs{ContentType: "image/png", Bytes: 1})
	wantKind(t, err, contracts.KindUnauthenticated)
}

func TestMediaRacingToken(t *testing.T) { eachStore(t, testMediaRacingToken) }

// testMediaRacingToken: of concurrent uploads with one token, exactly one
// stores its bytes.
func testMediaRacingToken(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	in, err := e.svc.Media.RequestUpload(ctx, contracts.RequestMediaUploadArgs{ContentType: "image/png", Bytes: int64(len(tinyPNG))})
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = e.svc.Media.AcceptUpload(context.Background(), in.MediaID, token(in), "image/png", strings.NewReader(tinyPNG))
		}()
	}
	close(start)
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case contracts.IsKind(err, contracts.KindConflict), contracts.IsKind(err, contracts.KindUnavailable):
		default:
			t.Errorf("a losing upload: %v", err)
		}
	}
	if won != 1 {
		t.Fatalf("%d of %d uploads with one token succeeded, want 1", won, n)
	}
	if data, err := e.blob(in.MediaID); err != nil || string(data) != tinyPNG {
		t.Fatalf("stored %q, %v", data, err)
	}
}

func TestMediaCredentialAfterIntent(t *testing.T) { eachStore(t, testMediaCredentialAfterIntent) }

// testMediaCredentialAfterIntent: an intent outlives neither its key nor
// the account's permission for agents to upload.
func testMediaCredentialAfterIntent(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	uid, _ := contracts.UserID(ctx)
	key, err := e.svc.Keys.CreateKey(ctx, "agent", []contracts.Scope{contracts.ScopeMediaWrite}, 0)
	if err != nil {
		t.Fatal(err)
	}
	agent := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: uid, Scopes: []contracts.Scope{contracts.ScopeMediaWrite},
		CredentialKind: contracts.CredentialAPIKey, CredentialID: key.Key.ID})
	ask := func() contracts.MediaUploadIntent {
		in, err := e.svc.Media.RequestUpload(agent, contracts.RequestMediaUploadArgs{ContentType: "image/png", Bytes: int64(len(tinyPNG))})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	put := func(in contracts.MediaUploadIntent) error {
		return e.svc.Media.AcceptUpload(context.Background(), in.MediaID, token(in), "image/png", strings.NewReader(tinyPNG))
	}
	// Read-only mode after the intent.
	in := ask()
	if _, err := e.svc.Exposure.SetExposure(ctx, contracts.ExposureSettings{ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	err = put(in)
	wantKind(t, err, contracts.KindForbidden)
	if !strings.Contains(err.Error(), "read-only") {
		t.Errorf("read-only refusal: %v", err)
	}
	if _, err := e.svc.Exposure.SetExposure(ctx, contracts.ExposureSettings{}); err != nil {
		t.Fatal(err)
	}
	if err := put(in); err != nil {
		t.Fatalf("after read-only mode ended (the refusal spent nothing): %v", err)
	}
	// Revoked key after the intent.
	in = ask()
	if err := e.svc.Keys.RevokeKey(ctx, key.Key.ID); err != nil {
		t.Fatal(err)
	}
	err = put(in)
	wantKind(t, err, contracts.KindForbidden)
	if !strings.Contains(err.Error(), "revoked") {
		t.Errorf("revoked key refusal: %v", err)
	}
	if _, err := e.svc.Media.OpenMedia(ctx, in.MediaID); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("an upload refused for a revoked key is readable: %v", err)
	}
}

func TestMediaQuota(t *testing.T) { eachStore(t, testMediaQuota) }

// testMediaQuota: the quota and the cap on open intents refuse before any
// byte is sent; equal files count once.
func testMediaQuota(t *testing.T, store string) {
	e := newEnv(t, store)
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, nil,
		domain.Config{BaseURL: baseURL, MediaQuotaBytes: 3 * int64(len(tinyPNG)), MaxOpenUploads: 3})
	ctx := e.user("ada@example.com")
	size := int64(len(tinyPNG))
	e.uploaded(ctx, "image/png", tinyPNG)
	e.uploaded(ctx, "image/png", tinyPNG) // the same bytes: stored once
	e.uploaded(ctx, "image/png", tinyPNG+"\x00")
	_, err := e.svc.Media.RequestUpload(ctx, contracts.RequestMediaUploadArgs{ContentType: "image/png", Bytes: size})
	wantKind(t, err, contracts.KindForbidden)
	if !strings.Contains(err.Error(), "quota") {
		t.Errorf("quota refusal: %v", err)
	}
	// Open intents: three at most, and what they announce counts.
	other := e.user("bob@example.com")
	for range 3 {
		if _, err := e.svc.Media.RequestUpload(other, contracts.RequestMediaUploadArgs{ContentType: "image/png", Bytes: 10}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = e.svc.Media.RequestUpload(other, contracts.RequestMediaUploadArgs{ContentType: "image/png", Bytes: 10})
	wantKind(t, err, contracts.KindRateLimited)
	e.clock.Advance(contracts.MediaIntentTTL)
	if _, err := e.svc.Media.RequestUpload(other, contracts.RequestMediaUploadArgs{ContentType: "image/png", Bytes: 3*size - 5}); err != nil {
		t.Fatalf("after the open intents expired: %v", err)
	}
	_, err = e.svc.Media.RequestUpload(other, contracts.RequestMediaUploadArgs{ContentType: "image/png", Bytes: 6})
	wantKind(t, err, contracts.KindForbidden)
}

func TestMediaServing(t *testing.T) { eachStore(t, testMediaServing) }

// testMediaServing: the owner opens a file, another user gets not found,
// signed URLs work for their media and expiry only, and RenderSigned gives
// the widget absolute signed URLs and the media origin.
func testMediaServing(t *testing.T, store string) {
	e := newEnv(t, store)
	ada, bob := e.user("ada@example.com"), e.user("bob@example.com")
	img := e.uploaded(ada, "image/png", tinyPNG)
	zip := e.uploaded(ada, "application/zip", tinyZip)
	f, err := e.svc.Media.OpenMedia(ada, img)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(f.Body)
	f.Body.Close()
	if string(data) != tinyPNG || f.ContentType != "image/png" || !f.Inline || f.Size != int64(len(tinyPNG)) || f.Filename != "f" {
		t.Fatalf("OpenMedia = %+v, %q", f, data)
	}
	if f, err := e.svc.Media.OpenMedia(ada, zip); err != nil || f.Inline {
		t.Fatalf("a zip opens inline: %+v, %v", f, err)
	} else {
		f.Body.Close()
	}
	_, err = e.svc.Media.OpenMedia(bob, img)
	wantKind(t, err, contracts.KindNotFound)

	r, err := e.svc.Media.RenderSigned(ada, "Where? ![map](media:"+img+")", "[sound:"+img+"] and ![gone](media:nothere)")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.ResourceDomains) != 1 || r.ResourceDomains[0] != baseURL {
		t.Errorf("ResourceDomains = %v", r.ResourceDomains)
	}
	if !strings.Contains(r.HTML[1], `data-missing-media="nothere"`) {
		t.Errorf("a missing reference: %s", r.HTML[1])
	}
	i := strings.Index(r.HTML[0], `src="`)
	if i < 0 {
		t.Fatalf("no image: %s", r.HTML[0])
	}
	src := r.HTML[0][i+5:]
	src = strings.ReplaceAll(src[:strings.Index(src, `"`)], "&amp;", "&")
	u, err := url.Parse(src)
	if err != nil || u.Scheme+"://"+u.Host != baseURL || u.Path != "/media/"+img {
		t.Fatalf("signed URL %q", src)
	}
	q := u.Query()
	open := func(id, e2, s string) error {
		f, err := e.svc.Media.OpenSignedMedia(context.Background(), id, e2, s)
		if err == nil {
			f.Body.Close()
		}
		return err
	}
	if err := open(img, q.Get("e"), q.Get("s")); err != nil {
		t.Fatalf("the signed URL: %v", err)
	}
	tampered := []byte(q.Get("s"))
	tampered[3] ^= 1
	wantKind(t, open(img, q.Get("e"), string(tampered)), contracts.KindNotFound)
	wantKind(t, open(zip, q.Get("e"), q.Get("s")), contracts.KindNotFound)   // another file
	wantKind(t, open(img, "9999999999", q.Get("s")), contracts.KindNotFound) // another expiry
	wantKind(t, open(img, q.Get("e"), ""), contracts.KindNotFound)
	// Bob's rendering cannot sign Ada's file.
	rb, _ := e.svc.Media.RenderSigned(bob, "![x](media:"+img+")")
	if strings.Contains(rb.HTML[0], "/media/") || len(rb.ResourceDomains) != 0 {
		t.Errorf("bob's rendering resolved ada's media: %s %v", rb.HTML[0], rb.ResourceDomains)
	}
	e.clock.Advance(domain.DefaultSignedMediaTTL + time.Minute)
	wantKind(t, open(img, q.Get("e"), q.Get("s")), contracts.KindNotFound)
}

func TestMediaReferences(t *testing.T) { eachStore(t, testMediaReferences) }

// testMediaReferences: cards and notes may reference only their user's
// uploaded media; a bad reference is a per-item invalid outcome.
func testMediaReferences(t *testing.T, store string) {
	e := newEnv(t, store)
	ada, bob := e.user("ada@example.com"), e.user("bob@example.com")
	img := e.uploaded(ada, "image/png", tinyPNG)
	bobs := e.uploaded(bob, "image/png", tinyPNG)
	pending, _ := e.svc.Media.RequestUpload(ada, contracts.RequestMediaUploadArgs{ContentType: "image/png", Bytes: 10})
	d := e.deck(ada, "Geo")
	r := e.add(ada, d.ID, card("![map](media:"+img+") where?", "[sound:"+img+"]"), card("![x](media:"+bobs+")", "b"),
		card("q", "[sound:"+pending.MediaID+"]"), card("`media:code-is-not-a-reference`", "c"))
	if got := statuses(r); got != "created,invalid,invalid,created" {
		t.Fatalf("add: %s %+v", got, r.Items)
	}
	if !strings.Contains(r.Items[1].Reason, "media "+bobs+" not found") || !strings.Contains(r.Items[1].Reason, "request_media_upload") {
		t.Errorf("reason: %q", r.Items[1].Reason)
	}
	up, err := e.svc.Cards.UpdateCards(ada, contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{
		{ID: r.Items[0].ID, Back: ptr("![again](media:" + bobs + ")")}, {ID: r.Items[3].ID, Back: ptr("![ok](media:" + img + ")")},
	}})
	if err != nil || statuses(up) != "invalid,updated" {
		t.Fatalf("update: %s %+v %v", statuses(up), up.Items, err)
	}
	nr, err := e.svc.Notes.AddNotes(ada, contracts.AddNotesArgs{DeckID: d.ID, Notes: []contracts.NewNote{
		{NoteType: contracts.NoteTypeBasic, Fields: map[string]string{"Front": "![n](media:" + img + ")", "Back": "b"}},
		{NoteType: contracts.NoteTypeBasic, Fields: map[string]string{"Front": "![n](media:" + bobs + ")", "Back": "b"}},
	}})
	if err != nil || statuses(nr) != "created,invalid" {
		t.Fatalf("notes: %s %+v %v", statuses(nr), nr.Items, err)
	}
}

func TestMediaCollection(t *testing.T) { eachStore(t, testMediaCollection) }

// testMediaCollection: after the grace period, media no card uses go
// (expired intents go with the purge); media a card uses stay; equal files
// keep their blob while one row uses it.
func testMediaCollection(t *testing.T, store string) {
	e := newEnv(t, store)
	ada := e.user("ada@example.com")
	used := e.uploaded(ada, "image/png", tinyPNG)
	unused := e.uploaded(ada, "audio/wav", tinyWAV)
	twin := e.uploaded(ada, "image/png", tinyPNG) // same bytes as used
	open, _ := e.svc.Media.RequestUpload(ada, contracts.RequestMediaUploadArgs{ContentType: "image/png", Bytes: 10})
	d := e.deck(ada, "Geo")
	e.add(ada, d.ID, card("![map](media:"+used+")", "b"))

	bg := context.Background()
	wavRow, err := e.store.Media().MediaByID(bg, unused)
	if err != nil {
		t.Fatal(err)
	}
	// Within the grace period nothing goes.
	if n, err := e.svc.Media.CollectUnused(bg, 100); err != nil || n != 0 {
		t.Fatalf("collect within the grace period: %d, %v", n, err)
	}
	e.clock.Advance(domain.DefaultMediaGrace + time.Hour)
	if n, err := e.svc.Media.CollectUnused(bg, 100); err != nil || n != 2 {
		t.Fatalf("collected %d (%v); want the unused WAV and the twin", n, err)
	}
	if n, err := e.svc.Purge.Expired(bg, ports.ExpiringUploadIntents, 100); err != nil || n != 1 {
		t.Fatalf("purged %d intents (%v); want the open one, long expired", n, err)
	}
	if _, err := e.blobKey(library.MediaBlobKey(wavRow)); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("the unused WAV's blob is still there: %v", err)
	}
	for _, id := range []string{unused, twin, open.MediaID} {
		if _, err := e.store.Media().MediaByID(context.Background(), id); !contracts.IsKind(err, contracts.KindNotFound) {
			t.Errorf("media %s survived: %v", id, err)
		}
	}
	if data, err := e.blob(used); err != nil || string(data) != tinyPNG {
		t.Fatalf("the used file (sharing its blob with the twin): %q, %v", data, err)
	}
	// A second run finds nothing more.
	if n, err := e.svc.Media.CollectUnused(bg, 100); err != nil || n != 0 {
		t.Fatalf("second collection: %d, %v", n, err)
	}
}

func TestImportMedia(t *testing.T) { eachStore(t, testImportMedia) }

// testImportMedia: media that arrive in a package are stored without an
// intent, under the same rules: sniffed, deduplicated, within the quota.
func testImportMedia(t *testing.T, store string) {
	e := newEnv(t, store)
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, nil,
		domain.Config{BaseURL: baseURL, MediaQuotaBytes: 3 * int64(len(tinyPNG))})
	ada := e.user("ada@example.com")
	id, err := e.svc.Media.ImportMedia(ada, "image/png", "paste-1.png", strings.NewReader(tinyPNG), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	f, err := e.svc.Media.OpenMedia(ada, id)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(f.Body)
	f.Body.Close()
	if string(data) != tinyPNG || f.Filename != "paste-1.png" || !f.Inline {
		t.Fatalf("imported %+v %q", f, data)
	}
	d := e.deck(ada, "Imported")
	if r := e.add(ada, d.ID, card("![x](media:"+id+")", "b")); statuses(r) != "created" {
		t.Fatalf("a card using imported media: %+v", r.Items)
	}
	_, err = e.svc.Media.ImportMedia(ada, "image/png", "x.png", strings.NewReader("<svg/>"), 100)
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Media.ImportMedia(ada, "text/html", "x.html", strings.NewReader("<p>"), 100)
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Media.ImportMedia(ada, "image/png", "big.png", strings.NewReader(tinyPNG), 10)
	wantKind(t, err, contracts.KindInvalid)
	if _, err := e.svc.Media.ImportMedia(ada, "image/png", "b.png", strings.NewReader(tinyPNG+"\x00"), 1<<20); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Media.ImportMedia(ada, "image/png", "c.png", strings.NewReader(tinyPNG+"\x00\x00"), 1<<20)
	wantKind(t, err, contracts.KindForbidden)
}

func TestStudyWidgetMedia(t *testing.T) { eachStore(t, testStudyWidgetMedia) }

// testStudyWidgetMedia: render_study_session's card carries its media as
// signed URLs the widget can load without a cookie.
func testStudyWidgetMedia(t *testing.T, store string) {
	e := newEnv(t, store)
	ada := e.user("ada@example.com")
	img := e.uploaded(ada, "image/png", tinyPNG)
	d := e.deck(ada, "Maps")
	e.add(ada, d.ID, card("![map](media:"+img+")", "[sound:"+img+"]"))
	v, err := e.svc.Study.RenderSession(ada, contracts.RenderStudySessionArgs{DeckID: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{v.FrontHTML, v.BackHTML} {
		if !strings.Contains(h, `src="`+baseURL+"/media/"+img+"?e=") || !strings.Contains(h, "&amp;s=") {
			t.Fatalf("the widget's card has no signed media URL: %s", h)
		}
	}
}
