package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// keysPage is the body of GET /api/keys.
type keysPage struct {
	Items []contracts.APIKeyView `json:"items"`
}

// A web session mints a key (201, the secret once), lists it (name,
// scopes, hint, expiry, last use; never the secret) and revokes it, after
// which the key no longer authenticates.
func TestKeyMintListRevoke(t *testing.T) {
	s := newStack(t)
	w := s.call(t, s.web, "POST", "/api/keys", `{"name":"laptop","scopes":["decks:read","stats:read"],"expiresIn":"720h"}`, http.StatusCreated)
	minted := decode[contracts.NewAPIKey](t, w)
	if !strings.HasPrefix(minted.Secret, contracts.APIKeyPrefix) || minted.Key.Name != "laptop" || len(minted.Key.Scopes) != 2 {
		t.Fatalf("minted %+v", minted)
	}
	if minted.Key.ExpiresAt == nil || time.Until(*minted.Key.ExpiresAt) < 719*time.Hour {
		t.Fatalf("expiry %v, want about 720h from now", minted.Key.ExpiresAt)
	}
	if !strings.HasSuffix(minted.Secret, minted.Key.Hint) {
		t.Fatalf("hint %q is not the end of the secret", minted.Key.Hint)
	}

	// Using the key sets its last use.
	if _, err := s.svc.Keys.Authenticate(as(s.web), minted.Secret); err != nil {
		t.Fatalf("the minted key does not authenticate: %v", err)
	}

	w = s.call(t, s.web, "GET", "/api/keys", "", http.StatusOK)
	if strings.Contains(w.Body.String(), minted.Secret) || strings.Contains(w.Body.String(), `"secret"`) {
		t.Fatalf("the listing shows the secret: %s", w.Body)
	}
	list := decode[keysPage](t, w)
	if len(list.Items) != 1 {
		t.Fatalf("listed %+v", list)
	}
	k := list.Items[0]
	if k.ID != minted.Key.ID || k.Name != "laptop" || k.Hint != minted.Key.Hint || k.ExpiresAt == nil || k.LastUsedAt == nil || k.RevokedAt != nil ||
		contracts.JoinScopes(k.Scopes, ",") != "decks:read,stats:read" {
		t.Fatalf("listed key %+v", k)
	}

	s.call(t, s.web, "DELETE", "/api/keys/"+k.ID, "", http.StatusNoContent)
	list = decode[keysPage](t, s.call(t, s.web, "GET", "/api/keys", "", http.StatusOK))
	if len(list.Items) != 1 || list.Items[0].RevokedAt == nil {
		t.Fatalf("after revoking: %+v", list)
	}
	if _, err := s.svc.Keys.Authenticate(as(s.web), minted.Secret); !contracts.IsKind(err, contracts.KindUnauthenticated) {
		t.Fatalf("a revoked key authenticates: %v", err)
	}

	wantError(t, serve(t, s.h, s.web, "DELETE", "/api/keys/no-such-key", ""), http.StatusNotFound, contracts.KindNotFound)
	wantError(t, serve(t, s.h, s.web, "POST", "/api/keys", `{"name":"x","scopes":[]}`), http.StatusBadRequest, contracts.KindInvalid, "scope")
	wantError(t, serve(t, s.h, s.web, "POST", "/api/keys", `{"name":"x","scopes":["everything"]}`), http.StatusBadRequest, contracts.KindInvalid, "everything")
	wantError(t, serve(t, s.h, s.web, "POST", "/api/keys", `{"name":"x","scopes":["decks:read"],"secret":"mine"}`), http.StatusBadRequest, contracts.KindInvalid, `unknown field "secret"`)
}

// A real API-key principal gets 403 on every route but /api/me and
// changes nothing: agents work through /mcp.
func TestAPIKeyCannotManageTheAccount(t *testing.T) {
	s := newStack(t)
	minted := decode[contracts.NewAPIKey](t, s.call(t, s.web, "POST", "/api/keys", `{"name":"agent","scopes":["decks:read","decks:write"]}`, http.StatusCreated))
	key, err := s.svc.Keys.Authenticate(as(s.web), minted.Secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range accountRoutes {
		path := strings.Replace(rt.path, "/k1", "/"+minted.Key.ID, 1)
		w := serve(t, s.h, &key, rt.method, path, rt.body)
		wantError(t, w, http.StatusForbidden, contracts.KindForbidden, "agents use /mcp")
	}
	list := decode[keysPage](t, s.call(t, s.web, "GET", "/api/keys", "", http.StatusOK))
	if len(list.Items) != 1 || list.Items[0].RevokedAt != nil {
		t.Fatalf("the key changed the keys: %+v", list)
	}
	if exp := decode[contracts.ExposureSettings](t, s.call(t, s.web, "GET", "/api/exposure", "", http.StatusOK)); exp.ReadOnly {
		t.Fatalf("the key changed the exposure: %+v", exp)
	}
	me := s.call(t, &key, "GET", "/api/me", "", http.StatusOK)
	if !strings.Contains(me.Body.String(), `"credentialKind":"api_key"`) || !strings.Contains(me.Body.String(), `"email":"learner@example.com"`) {
		t.Fatalf("me: %s", me.Body)
	}
}

// Exposure settings read as everything-on, change with PUT, and refuse an
// unknown tool.
func TestExposureGetPut(t *testing.T) {
	s := newStack(t)
	w := s.call(t, s.web, "GET", "/api/exposure", "", http.StatusOK)
	if got := decode[contracts.ExposureSettings](t, w); got.ReadOnly || len(got.DisabledTools) != 0 {
		t.Fatalf("default exposure %+v", got)
	}
	if !strings.Contains(w.Body.String(), `"disabledTools":[]`) {
		t.Fatalf("disabledTools is not an empty list: %s", w.Body)
	}
	body := fmt.Sprintf(`{"readOnly":true,"disabledTools":[%q]}`, contracts.ToolAddCards)
	set := decode[contracts.ExposureSettings](t, s.call(t, s.web, "PUT", "/api/exposure", body, http.StatusOK))
	if !set.ReadOnly || len(set.DisabledTools) != 1 || set.DisabledTools[0] != contracts.ToolAddCards {
		t.Fatalf("set %+v", set)
	}
	got := decode[contracts.ExposureSettings](t, s.call(t, s.web, "GET", "/api/exposure", "", http.StatusOK))
	if !got.ReadOnly || len(got.DisabledTools) != 1 {
		t.Fatalf("read back %+v", got)
	}
	w = serve(t, s.h, s.web, "PUT", "/api/exposure", `{"readOnly":false,"disabledTools":["launch_rockets"]}`)
	wantError(t, w, http.StatusBadRequest, contracts.KindInvalid, "launch_rockets")
	w = serve(t, s.h, s.web, "PUT", "/api/exposure", `{"readOnly":false,"hiddenTools":[]}`)
	wantError(t, w, http.StatusBadRequest, contracts.KindInvalid, `unknown field "hiddenTools"`)
}

// The audit trail lists the account's events newest first, pages with a
// cursor, and filters by tool and by credential.
func TestAuditListing(t *testing.T) {
	s := newStack(t)
	agentA := &contracts.Principal{UserID: s.web.UserID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialAPIKey, CredentialID: "key-a"}
	agentB := &contracts.Principal{UserID: s.web.UserID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialAPIKey, CredentialID: "key-b"}
	record := func(p *contracts.Principal, tool string, n int) {
		t.Helper()
		e := contracts.AuditEvent{Tool: tool, Action: "test", InputSummary: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n)), Outcome: contracts.AuditOK}
		if err := s.svc.Audit.Record(as(p), e); err != nil {
			t.Fatalf("recording: %v", err)
		}
	}
	record(agentA, contracts.ToolCreateDeck, 1)
	record(agentA, contracts.ToolAddCards, 2)
	record(agentB, contracts.ToolAddCards, 3)
	record(agentB, contracts.ToolSubmitReview, 4)
	record(agentA, contracts.ToolAddCards, 5)

	list := func(query string) contracts.Page[contracts.AuditEvent] {
		t.Helper()
		return decode[contracts.Page[contracts.AuditEvent]](t, s.call(t, s.web, "GET", "/api/audit?"+query, "", http.StatusOK))
	}
	ns := func(events []contracts.AuditEvent) string {
		var out []string
		for _, e := range events {
			var v struct{ N int }
			_ = json.Unmarshal(e.InputSummary, &v)
			out = append(out, fmt.Sprint(v.N))
		}
		return strings.Join(out, ",")
	}
	if got := ns(list("").Items); got != "5,4,3,2,1" {
		t.Fatalf("all events %s, want 5,4,3,2,1", got)
	}
	if got := ns(list("tool=" + contracts.ToolAddCards).Items); got != "5,3,2" {
		t.Fatalf("add_cards events %s, want 5,3,2", got)
	}
	if got := ns(list("credentialId=key-b").Items); got != "4,3" {
		t.Fatalf("key-b events %s, want 4,3", got)
	}
	if got := ns(list("credentialId=key-a&tool=" + contracts.ToolAddCards).Items); got != "5,2" {
		t.Fatalf("key-a add_cards events %s, want 5,2", got)
	}
	first := list("limit=2")
	if ns(first.Items) != "5,4" || first.NextCursor == "" {
		t.Fatalf("first page %s next %q", ns(first.Items), first.NextCursor)
	}
	second := list("limit=2&cursor=" + url.QueryEscape(first.NextCursor))
	if ns(second.Items) != "3,2" {
		t.Fatalf("second page %s, want 3,2", ns(second.Items))
	}
	if e := first.Items[0]; e.CredentialKind != contracts.CredentialAPIKey || e.CredentialID != "key-a" || e.UserID != s.web.UserID {
		t.Fatalf("event %+v", e)
	}
	wantError(t, serve(t, s.h, s.web, "GET", "/api/audit?limit=100000", ""), http.StatusBadRequest, contracts.KindInvalid)
	wantError(t, serve(t, s.h, s.web, "GET", "/api/audit?actor=me", ""), http.StatusBadRequest, contracts.KindInvalid, `"actor"`)
}
