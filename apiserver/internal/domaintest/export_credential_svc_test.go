package domain_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/domain/fsrs"
)

// An export link dies with the credential that made it (issue 30, item 4:
// the link outlived the key): revoking the key makes its link answer as an
// unknown one; a link made through an OAuth client the person never
// granted (or disconnected) does not download either; a web session's
// link works for its 10 minutes.
func TestExportLinkDiesWithItsCredential(t *testing.T) {
	eachStore(t, testExportLinkDiesWithItsCredential)
}

func testExportLinkDiesWithItsCredential(t *testing.T, store string) {
	e := newEnv(t, store)
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, fsrs.New(), domain.Config{
		BaseURL: baseURL, URLKey: []byte("0123456789abcdef0123456789abcdef"), PackageWriter: ankipkg.Writer{TempDir: t.TempDir()}})
	session := e.user("ada@example.com")
	d := e.deck(session, "Secrets")
	e.add(session, d.ID, card("a", "b"))
	p, _ := contracts.PrincipalFrom(session)
	key, err := e.svc.Keys.CreateKey(session, "reader", []contracts.Scope{contracts.ScopeDecksRead}, 0)
	if err != nil {
		t.Fatal(err)
	}
	byKey := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: p.UserID, Scopes: []contracts.Scope{contracts.ScopeDecksRead},
		CredentialKind: contracts.CredentialAPIKey, CredentialID: key.Key.ID})
	byApp := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: p.UserID, Scopes: []contracts.Scope{contracts.ScopeDecksRead},
		CredentialKind: contracts.CredentialOAuth, CredentialID: "client-never-granted"})
	link := func(ctx context.Context) string {
		t.Helper()
		l, err := e.svc.Export.ExportDeck(ctx, contracts.ExportDeckArgs{DeckID: d.ID})
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimPrefix(l.DownloadURL, baseURL+exchange.ExportPathPrefix)
	}
	download := func(token string) error {
		var buf bytes.Buffer
		return e.svc.Export.Download(context.Background(), token, func(string) io.Writer { return &buf })
	}
	keyLink, sessionLink, appLink := link(byKey), link(session), link(byApp)
	if err := download(keyLink); err != nil {
		t.Fatalf("the key's link while the key stands: %v", err)
	}
	if err := e.svc.Keys.RevokeKey(session, key.Key.ID); err != nil {
		t.Fatal(err)
	}
	err = download(keyLink)
	wantKind(t, err, contracts.KindNotFound)
	if !strings.Contains(err.Error(), "not valid or has expired") {
		t.Errorf("a revoked key's link answers %q, want the one answer of a dead link", err)
	}
	wantKind(t, download(appLink), contracts.KindNotFound)
	if err := download(sessionLink); err != nil {
		t.Errorf("the web session's link: %v", err)
	}
}
