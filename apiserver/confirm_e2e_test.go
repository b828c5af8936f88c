package apiserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	"github.com/takhtabush/takhtabush/contracts"
)

// legacyVersion is the handshake era a client without elicitation speaks.
const legacyVersion = "2025-11-25"

var confirmIDRe = regexp.MustCompile(`"confirmId": "(tbcf_[A-Za-z0-9_-]+)"`)

// tryTool calls a tool and returns its result, error or not.
func tryTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// askedConfirm calls a tool that must wait for the person's yes and
// returns the confirmation id its result names, and the link's path.
func askedConfirm(t *testing.T, e *env, cs *mcp.ClientSession, name string, args map[string]any) (id, path string) {
	t.Helper()
	res := tryTool(t, cs, name, args)
	text := resultText(res)
	m := confirmIDRe.FindStringSubmatch(text)
	if !res.IsError || m == nil || !strings.Contains(text, e.base+"/confirm/"+m[1]) || !strings.Contains(text, "Nothing changed") {
		t.Fatalf("%s did not ask for confirmation: isError=%v %s", name, res.IsError, text)
	}
	return m[1], "/confirm/" + m[1]
}

// refused checks a call is refused with an isError result saying want.
func refused(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, want string) {
	t.Helper()
	res := tryTool(t, cs, name, args)
	if text := resultText(res); !res.IsError || !strings.Contains(text, want) {
		t.Fatalf("%s: isError=%v %q, want a refusal saying %q", name, res.IsError, text, want)
	}
}

// with returns args plus the confirmation id.
func with(args map[string]any, id string) map[string]any {
	out := map[string]any{contracts.ConfirmArg: id}
	for k, v := range args {
		out[k] = v
	}
	return out
}

// deckExists reports whether get_deck finds the deck.
func deckExists(t *testing.T, cs *mcp.ClientSession, id string) bool {
	t.Helper()
	return !tryTool(t, cs, contracts.ToolGetDeck, map[string]any{"deckId": id}).IsError
}

// webForm posts a form of the signed-in test user and wants a redirect.
func webForm(t *testing.T, e *env, path string, form url.Values) {
	t.Helper()
	cookies, csrf := e.signIn(t, testUser)
	form.Set("csrf_token", csrf)
	resp, body := e.postForm(t, path, form, http.Header{"Origin": {e.base}}, cookies...)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST %s: %d\n%s", path, resp.StatusCode, body)
	}
}

// TestConfirmBigCallsByLink, with the official Go SDK client speaking
// 2025-11-25 (no elicitation) on both databases (issue 26 §3): deleting
// a non-empty deck returns a confirmation link and changes nothing; the
// person approves it in chromium and the retry with the id deletes; the
// id is spent. A declined call is refused and changes nothing; forged,
// expired, other-user and other-argument ids are refused; an empty deck
// needs no confirmation; a trusted key and a threshold of 0 skip it.
func TestConfirmBigCallsByLink(t *testing.T) {
	chromium(t)
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, keyID := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), legacyVersion)
		deck, _ := agentDeck(t, cs, "Years of cards", 3)
		args := map[string]any{"deckId": deck.ID}

		id, path := askedConfirm(t, e, cs, contracts.ToolDeleteDeck, args)
		if !deckExists(t, cs, deck.ID) {
			t.Fatal("the call that asked for confirmation deleted the deck")
		}
		refused(t, cs, contracts.ToolDeleteDeck, with(args, id), "not answered yet")

		b := newBrowser(t, e)
		b.signIn(testUser)
		b.open(path)
		if text := b.text(); !strings.Contains(text, "“Years of cards” and its 3 cards") || !strings.Contains(b.textOf("#confirm-count"), "3") {
			t.Fatalf("the confirmation page says:\n%s", text)
		}
		b.look("confirm-call")
		b.submit("#confirm-approve")
		if text := b.textOf("#confirm-state"); !strings.Contains(text, "You approved") {
			t.Fatalf("after Approve the page says %q", text)
		}
		b.checkClean("confirm call")
		if auditRows(t, e, contracts.AuditAnswerCall) != 1 {
			t.Errorf("the answer wrote %d %s audit rows, want 1", auditRows(t, e, contracts.AuditAnswerCall), contracts.AuditAnswerCall)
		}

		var del contracts.DeleteResult
		call(t, cs, contracts.ToolDeleteDeck, with(args, id), &del)
		if !del.Deleted || del.CardsDeleted != 3 || deckExists(t, cs, deck.ID) {
			t.Fatalf("the approved retry: %+v", del)
		}
		refused(t, cs, contracts.ToolDeleteDeck, with(args, id), "used already") // one use

		// Declined: nothing changes.
		deck2, ids2 := agentDeck(t, cs, "Kept", 2)
		args2 := map[string]any{"deckId": deck2.ID}
		id2, path2 := askedConfirm(t, e, cs, contracts.ToolDeleteDeck, args2)
		webForm(t, e, path2, url.Values{"answer": {"decline"}})
		refused(t, cs, contracts.ToolDeleteDeck, with(args2, id2), "declined")
		refused(t, cs, contracts.ToolDeleteDeck, with(args2, id2), "used already")
		if !deckExists(t, cs, deck2.ID) {
			t.Fatal("a declined call deleted the deck")
		}

		// Forged, other arguments, other user, expired.
		refused(t, cs, contracts.ToolDeleteDeck, with(args2, "tbcf_forged0000000000000000000000"), "no such confirmation")
		refused(t, cs, contracts.ToolDeleteDeck, with(args2, "not-even-the-form"), "no such confirmation")
		id3, path3 := askedConfirm(t, e, cs, contracts.ToolDeleteDeck, args2)
		webForm(t, e, path3, url.Values{"answer": {"approve"}})
		refused(t, cs, contracts.ToolDeleteCards, with(map[string]any{"cardIds": ids2}, id3), "another call")
		if _, _, err := e.app.EnsureUser(context.Background(), "bob@example.com", "Bob"); err != nil {
			t.Fatal(err)
		}
		bobKey, err := e.app.CreateKey(context.Background(), "bob@example.com", "bob", contracts.AllScopes, 0)
		if err != nil {
			t.Fatal(err)
		}
		bob := connect(t, e.base+"/mcp", bearer(bobKey.Secret), legacyVersion)
		refused(t, bob, contracts.ToolDeleteDeck, with(args2, id3), "no such confirmation")
		e.clock.Advance(contracts.ConfirmTTL + time.Second)
		refused(t, cs, contracts.ToolDeleteDeck, with(args2, id3), "no such confirmation")
		if !deckExists(t, cs, deck2.ID) {
			t.Fatal("a refused confirmation deleted the deck")
		}

		// An empty deck needs no yes.
		var empty contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Empty"}, &empty)
		call(t, cs, contracts.ToolDeleteDeck, map[string]any{"deckId": empty.ID}, nil)

		// A trusted key skips confirmation.
		webForm(t, e, "/settings/keys/"+keyID+"/trust", url.Values{"trusted": {"on"}})
		if auditRows(t, e, contracts.AuditTrust) != 1 {
			t.Errorf("trusting the key wrote %d %s audit rows, want 1", auditRows(t, e, contracts.AuditTrust), contracts.AuditTrust)
		}
		call(t, cs, contracts.ToolDeleteDeck, args2, &del)
		if del.CardsDeleted != 2 || deckExists(t, cs, deck2.ID) {
			t.Fatalf("the trusted key's delete_deck: %+v", del)
		}
		webForm(t, e, "/settings/keys/"+keyID+"/trust", url.Values{"trusted": {"off"}})
		deck4, _ := agentDeck(t, cs, "Four", 1)
		askedConfirm(t, e, cs, contracts.ToolDeleteDeck, map[string]any{"deckId": deck4.ID})

		// A threshold of 0 turns confirmation off.
		form := url.Values{"toolset": {contracts.ToolsetsAll}}
		for _, d := range contracts.Catalog() {
			form.Add("tool", d.Name)
		}
		for rule, n := range map[contracts.ConfirmRule]int{contracts.ConfirmDeckCards: 0, contracts.ConfirmDeleteCards: 51,
			contracts.ConfirmUpdateCards: 201, contracts.ConfirmRescheduleCards: 51, contracts.ConfirmReplaceNotes: 1} {
			form.Set("confirm-"+string(rule), strconv.Itoa(n))
		}
		webForm(t, e, "/settings/agents", form)
		call(t, cs, contracts.ToolDeleteDeck, map[string]any{"deckId": deck4.ID}, &del)
		if del.CardsDeleted != 1 {
			t.Fatalf("delete_deck with the threshold off: %+v", del)
		}
	})
}

// TestConfirmByElicitation: a 2026-07-28 client that declares elicitation
// is asked yes or no with a form input request (resultType
// input_required) for delete_deck of a non-empty deck, on both databases;
// its retry with accept and the signed requestState deletes the deck,
// with decline it is refused and nothing changes, and an answer bound to
// other arguments or without its requestState is refused.
func TestConfirmByElicitation(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		c := &modernClient{t: t, endpoint: e.base + "/mcp", key: key, elicit: true}
		cs := connect(t, e.base+"/mcp", bearer(key), legacyVersion)
		kept, _ := agentDeck(t, cs, "Kept", 2)
		doomed, _ := agentDeck(t, cs, "Doomed", 3)

		ask := func(deckID string) (state string, req map[string]any) {
			t.Helper()
			res := c.mustCall("tools/call", map[string]any{"name": contracts.ToolDeleteDeck, "arguments": map[string]any{"deckId": deckID}})
			reqs, _ := res["inputRequests"].(map[string]any)
			req, _ = reqs["confirm"].(map[string]any)
			state, _ = res["requestState"].(string)
			if res["resultType"] != "input_required" || req["method"] != "elicitation/create" || state == "" {
				t.Fatalf("delete_deck did not ask: %v", res)
			}
			return state, req
		}
		answer := func(deckID, state string, action string, allow bool) map[string]any {
			t.Helper()
			return c.mustCall("tools/call", map[string]any{"name": contracts.ToolDeleteDeck, "arguments": map[string]any{"deckId": deckID},
				"requestState": state, "inputResponses": map[string]any{"confirm": map[string]any{"action": action, "content": map[string]any{"allow": allow}}}})
		}
		text := func(res map[string]any) string {
			b, _ := json.Marshal(res["content"])
			return string(b)
		}

		state, req := ask(doomed.ID)
		params, _ := req["params"].(map[string]any)
		if msg, _ := params["message"].(string); !strings.Contains(msg, "“Doomed” and its 3 cards") {
			t.Fatalf("the question says %q", msg)
		}
		// Declined: an isError result, nothing changed.
		res := answer(doomed.ID, state, "decline", false)
		if res["isError"] != true || !strings.Contains(text(res), "declined") || !deckExists(t, cs, doomed.ID) {
			t.Fatalf("declined delete_deck: %v", res)
		}
		// An answer signed for other arguments is refused.
		state, _ = ask(doomed.ID)
		if status, _, rpcErr := c.call("tools/call", map[string]any{"name": contracts.ToolDeleteDeck, "arguments": map[string]any{"deckId": kept.ID},
			"requestState": state, "inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"allow": true}}}}); rpcErr == nil {
			t.Fatalf("an answer for another deck was taken: %d", status)
		}
		// An answer without its requestState is refused.
		res = c.mustCall("tools/call", map[string]any{"name": contracts.ToolDeleteDeck, "arguments": map[string]any{"deckId": kept.ID},
			"inputResponses": map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"allow": true}}}})
		if res["isError"] != true || !deckExists(t, cs, kept.ID) {
			t.Fatalf("an unasked answer: %v", res)
		}
		// Accepted: the deck goes.
		res = answer(doomed.ID, state, "accept", true)
		sc, _ := res["structuredContent"].(map[string]any)
		if res["isError"] == true || sc["cardsDeleted"] != float64(3) || deckExists(t, cs, doomed.ID) {
			t.Fatalf("accepted delete_deck: %v", res)
		}
	})
}

// TestConfirmOnStdio: over stdio (the handshake era, official Go SDK
// client with an elicitation handler) delete_deck of a non-empty deck asks
// the person through elicitation/create: declined, nothing changes;
// accepted, the deck goes.
func TestConfirmOnStdio(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	secret, _ := e.key(t, contracts.AllScopes...)
	cin, sout := io.Pipe()
	sin, cout := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.app.ServeStdio(ctx, secret, sin, sout) }()
	t.Cleanup(func() { cancel(); cout.Close(); <-done })
	allow, asked := false, ""
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = r.Params.Message
			if allow {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}, nil
			}
			return &mcp.ElicitResult{Action: "decline"}, nil
		}})
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: cin, Writer: cout}, &mcp.ClientSessionOptions{ProtocolVersion: legacyVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	deck, _ := agentDeck(t, cs, "On stdio", 2)
	args := map[string]any{"deckId": deck.ID}
	refused(t, cs, contracts.ToolDeleteDeck, args, "declined")
	if !strings.Contains(asked, "“On stdio” and its 2 cards") || !deckExists(t, cs, deck.ID) {
		t.Fatalf("asked %q; the deck exists: %v", asked, deckExists(t, cs, deck.ID))
	}
	allow = true
	var del contracts.DeleteResult
	call(t, cs, contracts.ToolDeleteDeck, args, &del)
	if del.CardsDeleted != 2 || deckExists(t, cs, deck.ID) {
		t.Fatalf("accepted on stdio: %+v", del)
	}
}

var grantRe = regexp.MustCompile(`name="grant" value="([^"]+)"`)

// TestConfirmTrustedGrant: a connected app (OAuth) is asked like a key
// until the person marks it trusted on the Connected apps page; then its
// delete_deck of a non-empty deck runs at once (SQLite).
func TestConfirmTrustedGrant(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	cookies, csrf := e.signIn(t, testUser)
	d := discover(t, e, "/mcp")
	_, reg := register(t, e, `{"client_name":"Trusted Test","redirect_uris":["`+testRedirect+`"],"token_endpoint_auth_method":"none"}`)
	conf := oauthConfig(e, d, reg["client_id"].(string), "decks:read", "decks:write")
	verifier := oauth2.GenerateVerifier()
	code := authorize(t, e, conf, cookies, verifier, []string{"decks:read", "decks:write"}, oauth2.SetAuthURLParam("resource", d.resource))
	tok, err := conf.Exchange(ctxFor(e), code, oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", d.resource))
	if err != nil {
		t.Fatalf("exchange: %v", err)
	}
	cs := connect(t, e.base+"/mcp", bearer(tok.AccessToken), legacyVersion)
	deck, _ := agentDeck(t, cs, "App's deck", 2)
	args := map[string]any{"deckId": deck.ID}
	askedConfirm(t, e, cs, contracts.ToolDeleteDeck, args)

	_, page := e.request(t, http.MethodGet, "/settings/connected-apps", nil, nil, cookies...)
	m := grantRe.FindSubmatch(page)
	if m == nil {
		t.Fatalf("no grant on the Connected apps page:\n%s", page)
	}
	resp, body := e.postForm(t, "/settings/connected-apps", url.Values{"grant": {string(m[1])}, "trust": {"on"}, "csrf_token": {csrf}},
		http.Header{"Origin": {e.base}}, cookies...)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("trusting the app: %d %s", resp.StatusCode, body)
	}
	var del contracts.DeleteResult
	call(t, cs, contracts.ToolDeleteDeck, args, &del)
	if del.CardsDeleted != 2 {
		t.Fatalf("the trusted app's delete_deck: %+v", del)
	}
}

// TestConfirmUpdateNotes, with the official Go SDK client on both
// databases: update_notes of more notes than the update threshold (201
// by default, as update_cards) returns a confirmation link and changes
// nothing; 200 notes run at once.
func TestConfirmUpdateNotes(t *testing.T) {
	forEachDB(t, func(t *testing.T, db string) {
		e := newEnv(t, db, nil)
		key, _ := e.key(t, contracts.AllScopes...)
		cs := connect(t, e.base+"/mcp", bearer(key), legacyVersion)
		var deck contracts.Deck
		call(t, cs, contracts.ToolCreateDeck, map[string]any{"name": "Notes"}, &deck)
		notes := make([]map[string]any, 201)
		for i := range notes {
			notes[i] = map[string]any{"noteType": contracts.NoteTypeBasic, "fields": map[string]string{"Front": fmt.Sprintf("front %d", i), "Back": "back"}}
		}
		var added contracts.BulkResult
		call(t, cs, contracts.ToolAddNotes, map[string]any{"deckId": deck.ID, "notes": notes}, &added)
		updates := make([]map[string]any, len(added.Items))
		for i, it := range added.Items {
			updates[i] = map[string]any{"id": it.ID, "tags": []string{"agent"}}
		}
		if len(updates) != 201 || updates[0]["id"] == "" {
			t.Fatalf("add_notes: %+v", added.Counts)
		}
		askedConfirm(t, e, cs, contracts.ToolUpdateNotes, map[string]any{"updates": updates})
		var note contracts.Note
		call(t, cs, contracts.ToolGetNote, map[string]any{"noteId": added.Items[0].ID}, &note)
		if len(note.Tags) != 0 {
			t.Fatalf("the call that asked for confirmation changed a note: %+v", note.Tags)
		}
		var done contracts.BulkResult
		call(t, cs, contracts.ToolUpdateNotes, map[string]any{"updates": updates[:200]}, &done)
		if done.Counts["updated"] != 200 {
			t.Fatalf("update_notes of 200 notes: %+v", done.Counts)
		}
	})
}
