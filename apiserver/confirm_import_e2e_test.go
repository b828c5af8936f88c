package apiserver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/takhtabush/takhtabush/adapters/ankipkg"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// confirmPackage is a small package of Basic notes in one deck.
func confirmPackage(fronts ...string) ports.AnkiPackage {
	pkg := ports.AnkiPackage{
		Created:   time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Decks:     []ports.AnkiDeck{{Key: 1, Name: "Packaged", Settings: contracts.DefaultDeckSettings()}},
		NoteTypes: []ports.AnkiNoteType{{Key: 10, Name: "Basic", Fields: []string{"Front", "Back"}, Templates: []ports.AnkiTemplate{{Name: "Card 1", Front: "{{Front}}", Back: "{{FrontSide}}<hr id=answer>{{Back}}"}}}},
	}
	for i, f := range fronts {
		key := int64(100 + i)
		pkg.Notes = append(pkg.Notes, ports.AnkiNote{Key: key, GUID: "guid-" + f, TypeKey: 10, Fields: []string{f, "back of " + f}})
		pkg.Cards = append(pkg.Cards, ports.AnkiCard{Key: 1000 + key, NoteKey: key, DeckKey: 1, Position: i})
	}
	return pkg
}

// uploadPackage writes pkg as an .apkg and uploads it as an agent does.
func uploadPackage(t *testing.T, e *env, cs *mcp.ClientSession, pkg ports.AnkiPackage) string {
	t.Helper()
	var buf bytes.Buffer
	if err := (ankipkg.Writer{TempDir: t.TempDir()}).WritePackage(t.Context(), &buf, pkg); err != nil {
		t.Fatal(err)
	}
	in := intent(t, cs, "application/zip", buf.Len(), "package.apkg")
	if code, body := e.put(t, in, buf.String(), nil); code != http.StatusNoContent && code != http.StatusOK {
		t.Fatalf("PUT: %d %s", code, body)
	}
	return in.MediaID
}

// waitJob polls get_job until the job ends and wants it succeeded.
func waitJob(t *testing.T, cs *mcp.ClientSession, job contracts.Job) contracts.ImportReport {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !job.Status.Final() && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		call(t, cs, contracts.ToolGetJob, map[string]any{"jobId": job.ID}, &job)
	}
	var rep contracts.ImportReport
	if job.Status != contracts.JobSucceeded || json.Unmarshal(job.Result, &rep) != nil {
		t.Fatalf("import job %+v", job)
	}
	return rep
}

// backOf returns the back of the card whose front is front.
func backOf(t *testing.T, cs *mcp.ClientSession, front string) string {
	t.Helper()
	var found contracts.CardPage
	call(t, cs, contracts.ToolSearchCards, map[string]any{"query": front}, &found)
	for _, c := range found.Items {
		if c.Front == front {
			return c.Back
		}
	}
	t.Fatalf("no card %q: %+v", front, found.Items)
	return ""
}

// TestConfirmPackageReplacingNotes, with the official Go SDK client on
// both databases (issue 26 §3.1): import_package's dryRun reports what
// the import would do and writes no audit row; a package that only adds
// notes runs at once; one that would change notes the account has (told
// by its dry run before any job is created) returns a confirmation link
// instead, changes nothing, and its preview page says how many notes it
// replaces; once the person approves, the retry with the id imports and
// the note is changed. A 2026-07-28 client that declares elicitation is
// asked with a form instead: declined, nothing changes; accepted, the job
// runs. A trusted key skips the question.
func TestConfirmPackageReplacingNotes(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, keyID := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), legacyVersion)

		// Adding only: a dry run first (no audit row), then the import runs at once.
		first := confirmPackage("Hund", "Katze", "Maus")
		up := uploadPackage(t, e, cs, first)
		var dry contracts.Job
		call(t, cs, contracts.ToolImportPackage, map[string]any{"uploadId": up, "dryRun": true}, &dry)
		var plan contracts.ImportReport
		if err := json.Unmarshal(dry.Result, &plan); err != nil || !dry.DryRun || dry.ID != "" || plan.NotesCreated != 3 || plan.ReplacedNotes() != 0 {
			t.Fatalf("dry run %+v: %+v %v", dry, plan, err)
		}
		if n := auditRows(t, e, contracts.ToolImportPackage); n != 0 {
			t.Fatalf("the dry run wrote %d audit rows", n)
		}
		var job contracts.Job
		call(t, cs, contracts.ToolImportPackage, map[string]any{"uploadId": up}, &job)
		if rep := waitJob(t, cs, job); rep.NotesCreated != 3 {
			t.Fatalf("first import %+v", rep)
		}

		// The same package again changes nothing: no question either.
		call(t, cs, contracts.ToolImportPackage, map[string]any{"uploadId": uploadPackage(t, e, cs, first)}, &job)
		if rep := waitJob(t, cs, job); rep.NotesUnchanged != 3 {
			t.Fatalf("the same package again %+v", rep)
		}

		// Changing a note the account has: the person's yes by link.
		edited := confirmPackage("Hund", "Katze", "Maus", "Vogel")
		edited.Notes[1].Fields[1] = "the cat"
		args := map[string]any{"uploadId": uploadPackage(t, e, cs, edited)}
		id, path := askedConfirm(t, e, cs, contracts.ToolImportPackage, args)
		if got := backOf(t, cs, "Katze"); got != "back of Katze" {
			t.Fatalf("the call that asked changed the note: %q", got)
		}
		cookies, _ := e.signIn(t, testUser)
		resp, page := e.request(t, http.MethodGet, path, nil, nil, cookies...)
		if resp.StatusCode != http.StatusOK || !bytes.Contains(page, []byte("of your notes would be replaced")) ||
			!bytes.Contains(page, []byte("notes replaced: 1")) || !bytes.Contains(page, []byte("notes added: 1")) || !bytes.Contains(page, []byte("note.update")) {
			t.Fatalf("the confirmation page (%d):\n%s", resp.StatusCode, page)
		}
		webForm(t, e, path, url.Values{"answer": {"approve"}})
		call(t, cs, contracts.ToolImportPackage, with(args, id), &job)
		if rep := waitJob(t, cs, job); rep.ReplacedNotes() != 1 || rep.NotesCreated != 1 {
			t.Fatalf("the approved import %+v", rep)
		}
		if got := backOf(t, cs, "Katze"); got != "the cat" {
			t.Fatalf("after the approved import the note's back is %q", got)
		}

		// Elicitation: declined changes nothing; accepted imports.
		again := confirmPackage("Hund", "Katze", "Maus", "Vogel")
		again.Notes[0].Fields[1], again.Notes[1].Fields[1] = "the dog", "the cat"
		upload := uploadPackage(t, e, cs, again)
		c := &modernClient{t: t, endpoint: e.base + "/mcp", key: key, elicit: true}
		ask := func() string {
			t.Helper()
			res := c.mustCall("tools/call", map[string]any{"name": contracts.ToolImportPackage, "arguments": map[string]any{"uploadId": upload}})
			reqs, _ := res["inputRequests"].(map[string]any)
			req, _ := reqs["confirm"].(map[string]any)
			params, _ := req["params"].(map[string]any)
			state, _ := res["requestState"].(string)
			if msg, _ := params["message"].(string); res["resultType"] != "input_required" || state == "" || !strings.Contains(msg, "replace 1 of your notes") {
				t.Fatalf("import_package did not ask: %v", res)
			}
			return state
		}
		answer := func(state, action string) map[string]any {
			t.Helper()
			return c.mustCall("tools/call", map[string]any{"name": contracts.ToolImportPackage, "arguments": map[string]any{"uploadId": upload},
				"requestState": state, "inputResponses": map[string]any{"confirm": map[string]any{"action": action, "content": map[string]any{"allow": action == "accept"}}}})
		}
		if res := answer(ask(), "decline"); res["isError"] != true || backOf(t, cs, "Hund") != "back of Hund" {
			t.Fatalf("declined import: %v", res)
		}
		res := answer(ask(), "accept")
		raw, _ := json.Marshal(res["structuredContent"])
		if err := json.Unmarshal(raw, &job); err != nil || res["isError"] == true || job.ID == "" {
			t.Fatalf("accepted import: %v", res)
		}
		waitJob(t, cs, job)
		if got := backOf(t, cs, "Hund"); got != "the dog" {
			t.Fatalf("after the accepted import the note's back is %q", got)
		}

		// A trusted key is not asked.
		webForm(t, e, "/settings/keys/"+keyID+"/trust", url.Values{"trusted": {"on"}})
		last := confirmPackage("Hund", "Katze", "Maus", "Vogel")
		call(t, cs, contracts.ToolImportPackage, map[string]any{"uploadId": uploadPackage(t, e, cs, last)}, &job)
		if rep := waitJob(t, cs, job); rep.ReplacedNotes() != 2 {
			t.Fatalf("the trusted key's import %+v", rep)
		}
	})
}
