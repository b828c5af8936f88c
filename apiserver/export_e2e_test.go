package apiserver_test

import (
	"archive/zip"
	"bytes"
	"database/sql"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "modernc.org/sqlite" // reads the exported collection back

	"github.com/takhtabush/takhtabush/contracts"
)

// export_deck through the official Go SDK client: the link is absolute,
// works by plain GET without a credential, twice, for 10 minutes; the
// package holds the deck and its subdeck, the notes with their types, the
// cards with their scheduling and the review log.
func TestExportDeckOverMCP(t *testing.T) {
	forEachDB(t, func(t *testing.T, dbURL string) {
		e := newEnv(t, dbURL, nil)
		key, _ := e.key(t, contracts.ScopeDecksRead, contracts.ScopeDecksWrite, contracts.ScopeStudyWrite)
		cs := connect(t, e.base+"/mcp", bearer(key), "")
		var deck, sub contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "German"}, &deck)
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "German::Verbs"}, &sub)
		call(t, cs, contracts.ToolAddCards, map[string]any{"deckId": deck.ID, "cards": []map[string]any{
			{"front": "**der Hund**", "back": "the dog", "tags": []string{"Animals"}}}}, nil)
		call(t, cs, contracts.ToolAddNotes, map[string]any{"deckId": sub.ID, "notes": []map[string]any{
			{"noteType": "Cloze", "fields": map[string]string{"Text": "{{c1::Der}} Hund {{c2::bellt}}"}}}}, nil)
		var sess contracts.StudySession
		call(t, cs, contracts.ToolStartStudySession, map[string]any{"deckId": deck.ID}, &sess)
		call(t, cs, contracts.ToolSubmitReview, map[string]any{"sessionId": sess.ID, "cardId": sess.Current.CardID, "position": 0, "rating": "good"}, nil)

		var link contracts.ExportLink
		call(t, cs, contracts.ToolExportDeck, map[string]any{"deckId": deck.ID}, &link)
		if !strings.HasPrefix(link.DownloadURL, e.base+"/export/") || !link.ExpiresAt.Equal(e.clock.Now().UTC().Truncate(time.Millisecond).Add(10*time.Minute)) {
			t.Fatalf("export link = %+v", link)
		}
		var pkg []byte
		for range 2 { // not single-use: a link preview may fetch it first
			res, body := e.request(t, http.MethodGet, strings.TrimPrefix(link.DownloadURL, e.base), nil, nil)
			if res.StatusCode != http.StatusOK || !strings.Contains(res.Header.Get("Content-Disposition"), `filename=German.apkg`) {
				t.Fatalf("GET the link: %d %v %.200s", res.StatusCode, res.Header, body)
			}
			pkg = body
		}
		db := openCollection(t, pkg)
		count := func(q string) int {
			var n int
			if err := db.QueryRow(q).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := count(`SELECT count(*) FROM notes`); n != 2 {
			t.Errorf("%d notes, want 2 (a Basic note of the plain card, the Cloze note)", n)
		}
		if n := count(`SELECT count(*) FROM cards`); n != 3 {
			t.Errorf("%d cards, want 3", n)
		}
		if n := count(`SELECT count(*) FROM revlog WHERE ease = 3`); n != 1 {
			t.Errorf("%d good reviews in the revlog, want 1", n)
		}
		if n := count(`SELECT count(*) FROM cards WHERE queue IN (1, 2)`); n != 1 {
			t.Errorf("%d scheduled cards, want the one reviewed", n)
		}
		var flds, tags string
		if err := db.QueryRow(`SELECT flds, tags FROM notes WHERE flds LIKE '%Hund</strong>%'`).Scan(&flds, &tags); err != nil {
			t.Fatalf("the Basic note: %v", err)
		}
		if flds != "<strong>der Hund</strong>\x1fthe dog" || tags != " Animals " {
			t.Errorf("basic note = %q %q", flds, tags)
		}
		var decks string
		_ = db.QueryRow(`SELECT decks FROM col`).Scan(&decks)
		if !strings.Contains(decks, `"German::Verbs"`) {
			t.Errorf("decks %s lack the subdeck", decks)
		}

		// Without scheduling: new cards and no history.
		call(t, cs, contracts.ToolExportDeck, map[string]any{"deckId": deck.ID, "includeScheduling": false}, &link)
		_, body := e.request(t, http.MethodGet, strings.TrimPrefix(link.DownloadURL, e.base), nil, nil)
		db = openCollection(t, body)
		var revlog, scheduled int
		_ = db.QueryRow(`SELECT count(*) FROM revlog`).Scan(&revlog)
		_ = db.QueryRow(`SELECT count(*) FROM cards WHERE type <> 0`).Scan(&scheduled)
		if revlog != 0 || scheduled != 0 {
			t.Errorf("without scheduling: %d revlog rows, %d scheduled cards; want none", revlog, scheduled)
		}

		// A tampered link and an expired one are 404 with a JSON reason.
		res, body := e.request(t, http.MethodGet, strings.TrimPrefix(link.DownloadURL, e.base)+"x", nil, nil)
		if res.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "expired") {
			t.Errorf("tampered link: %d %s", res.StatusCode, body)
		}
		e.clock.Advance(11 * time.Minute)
		res, body = e.request(t, http.MethodGet, strings.TrimPrefix(link.DownloadURL, e.base), nil, nil)
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("expired link: %d %s", res.StatusCode, body)
		}
		// The deck page's export button: a form POST that sends the
		// browser to a fresh link, which downloads the package.
		e.clock.Advance(-11 * time.Minute)
		cookies, csrf := e.signIn(t, testUser)
		res, body = e.postForm(t, "/decks/"+deck.ID+"/export", url.Values{"csrf_token": {csrf}}, http.Header{"Origin": {e.base}}, cookies...)
		loc := res.Header.Get("Location")
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/export/") {
			t.Fatalf("the export button: %d %s %.200s", res.StatusCode, loc, body)
		}
		res, body = e.request(t, http.MethodGet, loc, nil, nil)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", loc, res.StatusCode)
		}
		var notes int
		_ = openCollection(t, body).QueryRow(`SELECT count(*) FROM notes`).Scan(&notes)
		if notes != 2 {
			t.Errorf("the button's package has %d notes, want 2", notes)
		}

		// An unknown deck is not found.
		res2, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: contracts.ToolExportDeck, Arguments: map[string]any{"deckId": "nope"}})
		if err != nil || !res2.IsError {
			t.Errorf("export of an unknown deck: %v %s", err, resultText(res2))
		}
	})
}

// openCollection unzips an .apkg and opens its collection.anki2.
func openCollection(t *testing.T, pkg []byte) *sql.DB {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(pkg), int64(len(pkg)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	names := map[string]bool{}
	var col []byte
	for _, f := range zr.File {
		names[f.Name] = true
		if f.Name == "collection.anki2" {
			r, _ := f.Open()
			var buf bytes.Buffer
			_, _ = buf.ReadFrom(r)
			r.Close()
			col = buf.Bytes()
		}
	}
	var media map[string]string
	if f, err := zr.Open("media"); err != nil || json.NewDecoder(f).Decode(&media) != nil {
		t.Errorf("package lacks a media map: %v", names)
	}
	path := filepath.Join(t.TempDir(), "collection.anki2")
	if err := os.WriteFile(path, col, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
