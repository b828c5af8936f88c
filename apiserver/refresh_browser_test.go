package apiserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
)

// TestBrowserDataRefresh: the one data-refresh script of app.js keeps a
// running job's panel current without reloading the page, so what a
// person types beside it (the deck settings form) stays; when the job
// ends the page reloads to show what changed, unless a field was edited,
// when only the panel changes; the refreshed panel then offers to start
// another optimisation, which it hides while one runs. Both job pages use it: the optimisation
// panel of deck settings and the import job's page. The runner is off, so
// the jobs wait until the test cancels them.
func TestBrowserDataRefresh(t *testing.T) {
	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.JobConcurrency = -1 })
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: userID(t, e), Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialSession})
	svc := e.app.Services()
	deck, err := svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Rivers"})
	if err != nil {
		t.Fatal(err)
	}
	opt, err := svc.Decks.OptimizeParameters(ctx, contracts.OptimizeParametersArgs{DeckID: deck.ID})
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, e)
	b.signIn(testUser)

	// waitFor polls the page until cond (a JS expression) holds.
	waitFor := func(what, cond string) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !evalJS[bool](b, cond); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: still not so after 15 s; the page says\n%s", what, b.text())
			}
		}
	}

	b.open("/decks/" + deck.ID + "/settings?job=" + opt.ID)
	if !b.exists("#optimiseJob[data-refresh]") || !strings.Contains(b.textOf("#optimiseJob"), "Waiting to start") {
		t.Fatalf("the queued optimisation's panel: %s", b.textOf("#optimiseJob"))
	}
	b.look("deck-optimise-queued")
	start := `form[action="/decks/` + deck.ID + `/optimize"]`
	if b.exists(start) {
		t.Fatal("the queued optimisation's page offers to start another optimisation beside it")
	}
	evalJS[bool](b, `window.sameDocument = true`)
	b.fill("#description", "typed while it runs")
	// Two refreshes (every 2 s) later the page is the same document, the
	// field keeps what was typed, and the panel still refreshes.
	time.Sleep(4500 * time.Millisecond)
	if !evalJS[bool](b, `window.sameDocument === true && document.querySelector("#description").value === "typed while it runs"`) ||
		!b.exists("#optimiseJob[data-refresh]") {
		t.Fatalf("while the job waits the page was reloaded or lost the typed description: %q", evalJS[string](b, `document.querySelector("#description").value`))
	}
	if _, err := svc.Jobs.CancelJob(ctx, opt.ID); err != nil {
		t.Fatal(err)
	}
	waitFor("the stopped optimisation", `document.querySelector("#optimiseJob").textContent.includes("stopped")`)
	if !evalJS[bool](b, `window.sameDocument === true && document.querySelector("#description").value === "typed while it runs"`) ||
		b.exists("[data-refresh]") {
		t.Errorf("after the job ended with an edited field: reloaded, lost the edit, or still refreshing")
	}
	if !b.exists("#optimiseJob " + start) {
		t.Errorf("after the job ended, its refreshed panel does not offer to optimise again")
	}
	b.checkClean("deck settings while the optimisation ran")

	// The import page: nothing to edit, so the end reloads the page.
	imp, err := svc.Jobs.Submit(ctx, contracts.JobKindImportPackage, map[string]string{"uploadId": "none"})
	if err != nil {
		t.Fatal(err)
	}
	b.open("/import/" + imp.ID)
	if !b.exists("#import-job[data-refresh]") || !strings.Contains(b.textOf("#import-state"), "Waiting to start") || !b.exists("#import-progress") {
		t.Fatalf("the queued import's page: %s", b.text())
	}
	b.look("import-queued")
	evalJS[bool](b, `window.sameDocument = true`)
	time.Sleep(3500 * time.Millisecond)
	if !evalJS[bool](b, `window.sameDocument === true`) || !b.exists("#import-job[data-refresh]") {
		t.Fatal("while the import waits its page was reloaded or stopped refreshing")
	}
	if _, err := svc.Jobs.CancelJob(ctx, imp.ID); err != nil {
		t.Fatal(err)
	}
	waitFor("the canceled import, reloaded", `window.sameDocument === undefined && document.readyState === "complete" && document.querySelector("#import-state") !== null`)
	if txt := b.textOf("#import-state"); !strings.Contains(txt, "canceled") || b.exists("[data-refresh]") || b.exists("#import-progress") {
		t.Errorf("the canceled import's page: %q", txt)
	}
	b.look("import-canceled")
}
