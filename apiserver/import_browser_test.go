package apiserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestImportPageInABrowser: the import page uploads a text export with
// the page's CSRF token, starts the import job, shows its progress (the
// shared data-refresh script) and then its report with what did not come
// over and why (#import-dropped) and the budget the job used
// (#import-budget); the cards are in the deck it names.
func TestImportPageInABrowser(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	b := newBrowser(t, e)
	b.signIn(testUser)
	u, err := e.app.Services().Accounts.UserByEmail(context.Background(), testUser)
	if err != nil {
		t.Fatal(err)
	}
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: u.ID, CredentialKind: contracts.CredentialSession, Scopes: contracts.AllScopes})
	deck, err := e.app.Services().Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Vokabeln"})
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	text.WriteString("#separator:tab\n#html:true\n#tags column:3\n")
	for i := range 300 {
		fmt.Fprintf(&text, "<b>Wort %d</b><script>x()</script>\tword %d\tA1\n", i, i)
	}
	text.WriteString("<b>Wort 7</b>\tword 7\tA1\n") // a duplicate: left out, and listed

	file := filepath.Join(t.TempDir(), "vokabeln.txt")
	if err := os.WriteFile(file, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	b.open("/decks")
	b.submit("#import-link")
	b.look("import")
	b.do("choose the file", chromedp.SetUploadFiles("#import-file", []string{file}))
	b.do("choose the deck", chromedpSetSelect("#import-deck", deck.ID))
	b.submit("#import-start")
	if !strings.HasPrefix(b.location(), "/import/") {
		t.Fatalf("after the upload the page is %s:\n%s", b.location(), b.text())
	}
	deadline := time.Now().Add(time.Minute)
	for {
		// The job page reloads itself while the job runs.
		done, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && document.querySelector("#import-report") !== null`))
		if err == nil && done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no report after a minute:\n%s", b.text())
		}
		time.Sleep(200 * time.Millisecond)
	}
	txt := b.text()
	if !strings.Contains(txt, "300 added") {
		t.Errorf("the report says:\n%s", txt)
	}
	// What did not come over: the duplicate line with its reason, and the
	// markup the conversion removed, by kind.
	dropped := evalJS[[]string](b, `[...document.querySelectorAll("#import-dropped li")].map(li => li.textContent.replace(/\s+/g, " ").trim())`)
	if len(dropped) != 2 || !strings.HasPrefix(dropped[0], "1 card: the deck already has a card with this front and back") ||
		!strings.HasPrefix(dropped[1], "300 <script> elements: markup cards cannot show") {
		t.Errorf("#import-dropped lists %q", dropped)
	}
	if b.exists("[data-refresh]") {
		t.Error("the finished import's page still refreshes itself")
	}
	// The job's budget and its use (issue 29 §3.2): the text read, of 2 GiB.
	if got := b.textOf("#import-budget"); !strings.Contains(got, "Budget used:") || !strings.Contains(got, "KiB of 2.0 GiB") || !strings.Contains(got, "of 5000000 items") {
		t.Errorf("#import-budget says %q", got)
	}
	b.look("import-report")
	if got, err := e.app.Services().Decks.GetDeck(ctx, deck.ID); err != nil || got.Counts.Total != 300 {
		t.Errorf("Vokabeln after the import: %+v %v", got.Counts, err)
	}
}
