package domain_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/domain/fsrs"
)

// An export carries the media its cards name, under the names its notes
// use (<img src> and [sound:]), and only the exporting user's files; a
// link for another deck or with a changed payload does not verify.
func TestExportMedia(t *testing.T) { eachStore(t, testExportMedia) }

func testExportMedia(t *testing.T, store string) {
	e := newEnv(t, store)
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(), domain.Config{
		BaseURL: baseURL, URLKey: []byte("0123456789abcdef0123456789abcdef"), PackageWriter: ankipkg.Writer{TempDir: t.TempDir()}})
	ctx := e.user("ada@example.com")
	other := e.user("bob@example.com")
	_, mediaID := e.fillAccount(ctx, "French")
	_, othersMedia := e.fillAccount(other, "Bob")
	d := e.deck(ctx, "Pictures")
	e.add(ctx, d.ID, card("![a cat](media:"+mediaID+")", "le chat"), card("![stolen](media:"+othersMedia+")", "not mine"))

	link, err := e.svc.Export.ExportDeck(ctx, contracts.ExportDeckArgs{DeckID: d.ID})
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimPrefix(link.DownloadURL, baseURL+exchange.ExportPathPrefix)
	var buf bytes.Buffer
	var name string
	if err := e.svc.Export.Download(context.Background(), token, func(n string) io.Writer { name = n; return &buf }); err != nil {
		t.Fatal(err)
	}
	if name != "Pictures.apkg" {
		t.Errorf("file name %q", name)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var media map[string]string
	f, err := zr.Open("media")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewDecoder(f).Decode(&media); err != nil {
		t.Fatal(err)
	}
	if len(media) != 1 || media["0"] != mediaID+".png" {
		t.Errorf("media map %v; want only the user's own file, as %s.png", media, mediaID)
	}
	if b, err := zr.Open("0"); err != nil {
		t.Error("the media file is missing")
	} else if got, _ := io.ReadAll(b); !strings.HasPrefix(string(got), "\x89PNG") {
		t.Errorf("media file bytes %q", got)
	}

	// Another user cannot export the deck; a changed token does not verify.
	_, err = e.svc.Export.ExportDeck(other, contracts.ExportDeckArgs{DeckID: d.ID})
	wantKind(t, err, contracts.KindNotFound)
	payload, sig, _ := strings.Cut(token, ".")
	for _, bad := range []string{payload + "." + sig[1:], payload[1:] + "." + sig, "", "."} {
		called := false
		err := e.svc.Export.Download(context.Background(), bad, func(string) io.Writer { called = true; return io.Discard })
		wantKind(t, err, contracts.KindNotFound)
		if called {
			t.Errorf("Download(%q) began writing", bad)
		}
	}
}
