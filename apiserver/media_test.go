package apiserver_test

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
)

// tinyPNG is a whole 1×1 PNG (uploads are sniffed) and tinyWAV an empty
// WAV file.
const (
	tinyPNG = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
		"\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82"
	tinyWAV = "RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x44\xac\x00\x00\x88\x58\x01\x00\x02\x00\x10\x00data\x00\x00\x00\x00"
)

// intent asks for an upload through MCP.
func intent(t *testing.T, cs *mcp.ClientSession, ct string, size int, name string) contracts.MediaUploadIntent {
	t.Helper()
	var in contracts.MediaUploadIntent
	call(t, cs, contracts.ToolRequestMediaUpload, map[string]any{"contentType": ct, "bytes": size, "filename": name}, &in)
	return in
}

// put sends an upload as the intent says, headers changed by mod.
func (e *env) put(t *testing.T, in contracts.MediaUploadIntent, body string, mod func(http.Header)) (int, string) {
	t.Helper()
	h := http.Header{}
	for k, v := range in.Headers {
		h.Set(k, v)
	}
	if mod != nil {
		mod(h)
	}
	resp, raw := e.request(t, http.MethodPut, strings.TrimPrefix(in.UploadURL, e.base), body, h)
	return resp.StatusCode, string(raw)
}

// asUser is a context acting for testUser in-process (the widget's calls
// come through MCP; this stands for them where MCP has no tool yet).
func (e *env) asUser(t *testing.T) context.Context {
	t.Helper()
	u, _, err := e.app.EnsureUser(context.Background(), testUser, "Ada")
	if err != nil {
		t.Fatal(err)
	}
	return contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: u.ID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialLocal})
}

// TestMediaEndToEnd: an agent uploads an image and a sound through MCP and
// HTTP, puts them on a card; the owner's web session and a signed URL
// read them with the media headers; nobody else can.
func TestMediaEndToEnd(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, func(c *apiserver.Config) { c.MediaDir = t.TempDir() })
		secret, _ := e.key(t, contracts.ScopeMediaWrite, contracts.ScopeDecksWrite, contracts.ScopeDecksRead)
		cs := connect(t, e.addr+"/mcp", bearer(secret), "")

		img := intent(t, cs, "image/png", len(tinyPNG), "map.png")
		if img.Method != http.MethodPut || !strings.HasPrefix(img.UploadURL, e.base+"/media/") || !strings.HasPrefix(img.Headers["Authorization"], "Upload ") {
			t.Fatalf("intent: %+v", img)
		}
		if code, body := e.put(t, img, tinyPNG, nil); code != http.StatusNoContent {
			t.Fatalf("upload: %d %s", code, body)
		}
		snd := intent(t, cs, "audio/wav", len(tinyWAV), "hello.wav")
		if code, body := e.put(t, snd, tinyWAV, nil); code != http.StatusNoContent {
			t.Fatalf("upload: %d %s", code, body)
		}

		var deck contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Geography"}, &deck)
		var added contracts.BulkResult
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": []map[string]any{
			{"front": "Where is this? ![map](media:" + img.MediaID + ")", "back": "Lisbon [sound:" + snd.MediaID + "]"},
			{"front": "![gone](media:no-such-media)", "back": "x"},
		}}, &added)
		if added.Items[0].Status != contracts.OutcomeCreated || added.Items[1].Status != contracts.OutcomeInvalid ||
			!strings.Contains(added.Items[1].Reason, "media no-such-media not found") {
			t.Fatalf("add_cards: %+v", added.Items)
		}

		path := "/media/" + img.MediaID
		// No credential: 401; an API key: media are not for keys.
		if resp, body := e.request(t, http.MethodGet, path, nil, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("anonymous GET: %d %s", resp.StatusCode, body)
		}
		if resp, body := e.request(t, http.MethodGet, path, nil, bearer(secret)); resp.StatusCode != http.StatusForbidden {
			t.Fatalf("GET with a key: %d %s", resp.StatusCode, body)
		}
		cookies, _ := e.signIn(t, testUser)
		resp, body := e.request(t, http.MethodGet, path, nil, nil, cookies...)
		if resp.StatusCode != http.StatusOK || string(body) != tinyPNG {
			t.Fatalf("owner GET: %d %q", resp.StatusCode, body)
		}
		for k, want := range map[string]string{
			"Content-Type": "image/png", "X-Content-Type-Options": "nosniff", "Content-Security-Policy": "default-src 'none'; sandbox",
			"Content-Disposition": `inline; filename=map.png`, "Cache-Control": "private, max-age=300",
		} {
			if got := resp.Header.Get(k); got != want {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
		// Audio players ask for ranges.
		resp, body = e.request(t, http.MethodGet, "/media/"+snd.MediaID, nil, http.Header{"Range": {"bytes=0-3"}}, cookies...)
		if resp.StatusCode != http.StatusPartialContent || string(body) != "RIFF" || resp.Header.Get("Content-Type") != "audio/wav" {
			t.Fatalf("range GET: %d %q %s", resp.StatusCode, body, resp.Header.Get("Content-Type"))
		}

		// Another account: not found, never a hint.
		if _, _, err := e.app.EnsureUser(context.Background(), "bob@example.com", "Bob"); err != nil {
			t.Fatal(err)
		}
		bob, _ := e.signIn(t, "bob@example.com")
		if resp, body := e.request(t, http.MethodGet, path, nil, nil, bob...); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("another user's GET: %d %s", resp.StatusCode, body)
		}

		// Signed URLs: what the widget carries, without cookie or token.
		r, err := e.app.Services().Media.RenderSigned(e.asUser(t), "![map](media:"+img.MediaID+")")
		if err != nil {
			t.Fatal(err)
		}
		if len(r.ResourceDomains) != 1 || r.ResourceDomains[0] != e.base {
			t.Fatalf("resource domains %v", r.ResourceDomains)
		}
		src := r.HTML[0][strings.Index(r.HTML[0], `src="`)+5:]
		src = strings.ReplaceAll(src[:strings.Index(src, `"`)], "&amp;", "&")
		u, err := url.Parse(src)
		if err != nil || !strings.HasPrefix(src, e.base+path+"?") {
			t.Fatalf("signed URL %q", src)
		}
		resp, body = e.request(t, http.MethodGet, u.RequestURI(), nil, nil)
		if resp.StatusCode != http.StatusOK || string(body) != tinyPNG || resp.Header.Get("Cross-Origin-Resource-Policy") != "cross-origin" {
			t.Fatalf("signed GET: %d %q %v", resp.StatusCode, body, resp.Header)
		}
		q := u.Query()
		q.Set("s", strings.Repeat("A", len(q.Get("s"))))
		if resp, _ := e.request(t, http.MethodGet, path+"?"+q.Encode(), nil, nil); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("tampered signature: %d", resp.StatusCode)
		}
		if resp, _ := e.request(t, http.MethodGet, "/media/"+snd.MediaID+"?"+u.RawQuery, nil, nil); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("a signature for another file: %d", resp.StatusCode)
		}
		e.clock.Advance(domain.DefaultSignedMediaTTL + time.Minute)
		if resp, _ := e.request(t, http.MethodGet, u.RequestURI(), nil, nil); resp.StatusCode != http.StatusNotFound {
			t.Fatalf("expired signed URL: %d", resp.StatusCode)
		}

		// A zip for import_package is an attachment, never inline.
		zipBody := "PK\x03\x04" + strings.Repeat("\x00", 40)
		z := intent(t, cs, "application/zip", len(zipBody), "deck.apkg")
		if code, body := e.put(t, z, zipBody, nil); code != http.StatusNoContent {
			t.Fatalf("zip upload: %d %s", code, body)
		}
		resp, _ = e.request(t, http.MethodGet, "/media/"+z.MediaID, nil, nil, cookies...)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Disposition") != "attachment; filename=deck.apkg" ||
			resp.Header.Get("Content-Security-Policy") != "default-src 'none'; sandbox" {
			t.Fatalf("zip GET: %d %v", resp.StatusCode, resp.Header)
		}
	})
}

// TestMediaUploadRefusals: over HTTP, every way an upload goes wrong has
// its status and reason, and nothing is stored.
func TestMediaUploadRefusals(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, func(c *apiserver.Config) { c.MediaDir = t.TempDir() })
		secret, keyID := e.key(t, contracts.ScopeMediaWrite)
		cs := connect(t, e.addr+"/mcp", bearer(secret), "")
		in := intent(t, cs, "image/png", len(tinyPNG), "map.png")

		check := func(what string, code int, body string, wantCode int, wantText string) {
			t.Helper()
			if code != wantCode || !strings.Contains(body, wantText) {
				t.Errorf("%s: %d %s; want %d with %q", what, code, body, wantCode, wantText)
			}
		}
		code, body := e.put(t, in, tinyPNG, func(h http.Header) { h.Set("Authorization", "Upload not-the-token") })
		check("wrong token", code, body, http.StatusUnauthorized, `"kind":"unauthenticated"`)
		code, body = e.put(t, in, tinyPNG, func(h http.Header) { h.Del("Authorization") })
		check("no token", code, body, http.StatusUnauthorized, "Authorization: Upload")
		code, body = e.put(t, in, tinyPNG, func(h http.Header) { h.Set("Content-Type", "image/gif") })
		check("wrong declared type", code, body, http.StatusBadRequest, "Content-Type must be image/png")

		// Racing: one token, concurrent PUTs: exactly one stores.
		var wg sync.WaitGroup
		codes := make([]int, 6)
		for i := range codes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i], _ = e.put(t, in, tinyPNG, nil)
			}()
		}
		wg.Wait()
		won := 0
		for _, c := range codes {
			switch c {
			case http.StatusNoContent:
				won++
			case http.StatusConflict, http.StatusServiceUnavailable:
			default:
				t.Errorf("a racing PUT answered %d", c)
			}
		}
		if won != 1 {
			t.Fatalf("%d racing PUTs succeeded (%v), want 1", won, codes)
		}
		code, body = e.put(t, in, tinyPNG, nil)
		check("replayed token", code, body, http.StatusConflict, "already used")

		over := intent(t, cs, "image/png", len(tinyPNG)-10, "")
		code, body = e.put(t, over, tinyPNG, nil)
		check("oversize", code, body, http.StatusBadRequest, "larger than")
		svg := intent(t, cs, "image/png", 60, "")
		code, body = e.put(t, svg, `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`[:60], nil)
		check("SVG as PNG", code, body, http.StatusBadRequest, "not the image/png declared")

		late := intent(t, cs, "image/png", len(tinyPNG), "")
		e.clock.Advance(contracts.MediaIntentTTL)
		code, body = e.put(t, late, tinyPNG, nil)
		check("expired", code, body, http.StatusNotFound, "expired")

		revoked := intent(t, cs, "image/png", len(tinyPNG), "")
		if err := e.app.RevokeKey(context.Background(), keyID); err != nil {
			t.Fatal(err)
		}
		code, body = e.put(t, revoked, tinyPNG, nil)
		check("revoked key after the intent", code, body, http.StatusForbidden, "revoked")
		for _, id := range []string{over.MediaID, svg.MediaID, late.MediaID, revoked.MediaID} {
			if _, err := e.app.Services().Media.OpenMedia(e.asUser(t), id); !contracts.IsKind(err, contracts.KindNotFound) {
				t.Errorf("a refused upload %s is readable: %v", id, err)
			}
		}
	})
}

// TestMediaQuotaAndCollection: the quota refuses through MCP before any
// byte; collection removes media no card uses after the grace period and
// keeps the rest, and the files go with them.
func TestMediaQuotaAndCollection(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, func(c *apiserver.Config) {
			c.MediaDir = t.TempDir()
			c.MediaQuotaBytes = 3 * int64(len(tinyPNG))
		})
		secret, _ := e.key(t, contracts.ScopeMediaWrite, contracts.ScopeDecksWrite)
		cs := connect(t, e.addr+"/mcp", bearer(secret), "")
		used := intent(t, cs, "image/png", len(tinyPNG), "")
		unused := intent(t, cs, "image/png", len(tinyPNG)+1, "")
		for _, c := range []struct {
			in   contracts.MediaUploadIntent
			body string
		}{{used, tinyPNG}, {unused, tinyPNG + "\x00"}} {
			if code, body := e.put(t, c.in, c.body, nil); code != http.StatusNoContent {
				t.Fatalf("upload: %d %s", code, body)
			}
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: contracts.ToolRequestMediaUpload,
			Arguments: map[string]any{"contentType": "image/png", "bytes": 2 * len(tinyPNG)}})
		if err != nil || !res.IsError || !strings.Contains(resultText(res), "quota") {
			t.Fatalf("over quota: %v %+v", err, res)
		}
		var deck contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Maps"}, &deck)
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": []map[string]any{
			{"front": "![m](media:" + used.MediaID + ")", "back": "b"}}}, nil)

		e.clock.Advance(domain.DefaultMediaGrace + time.Hour)
		purged, err := e.app.Purge(context.Background()) // what the scheduler runs on every instance
		if err != nil || purged["unused_media"] != 1 {
			t.Fatalf("purge: %v, %v", purged, err)
		}
		cookies, _ := e.signIn(t, testUser)
		if resp, _ := e.request(t, http.MethodGet, "/media/"+unused.MediaID, nil, nil, cookies...); resp.StatusCode != http.StatusNotFound {
			t.Errorf("collected media: %d", resp.StatusCode)
		}
		resp, body := e.request(t, http.MethodGet, "/media/"+used.MediaID, nil, nil, cookies...)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, []byte(tinyPNG)) {
			t.Errorf("used media after collection: %d", resp.StatusCode)
		}
		// Room again: the quota counts what is stored.
		intent(t, cs, "image/png", 2*len(tinyPNG), "")
	})
}
