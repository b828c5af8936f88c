package domain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/identity"
)

func TestAccounts(t *testing.T) { eachStore(t, testAccounts) }

func testAccounts(t *testing.T, store string) {
	e := newEnv(t, store)
	bg := context.Background()
	u, err := e.svc.Accounts.CreateUser(bg, "  Ada@Example.com ", " Ada  Lovelace ")
	if err != nil || u.Email != "ada@example.com" || u.Name != "Ada Lovelace" {
		t.Fatalf("CreateUser = %+v, %v", u, err)
	}
	_, err = e.svc.Accounts.CreateUser(bg, "ADA@example.com", "")
	wantKind(t, err, contracts.KindConflict)
	_, err = e.svc.Accounts.CreateUser(bg, "not-an-email", "")
	wantKind(t, err, contracts.KindInvalid)
	got, err := e.svc.Accounts.UserByEmail(bg, "ada@EXAMPLE.com")
	if err != nil || got.ID != u.ID {
		t.Errorf("UserByEmail = %+v, %v", got, err)
	}
	got, created, err := e.svc.Accounts.EnsureUser(bg, "ada@example.com", "")
	if err != nil || created || got.ID != u.ID {
		t.Errorf("EnsureUser existing = %+v %v %v", got, created, err)
	}
	nu, created, err := e.svc.Accounts.EnsureUser(bg, "bob@example.com", "Bob")
	if err != nil || !created || nu.Email != "bob@example.com" {
		t.Errorf("EnsureUser new = %+v %v %v", nu, created, err)
	}
	if byID, err := e.svc.Accounts.UserByID(bg, nu.ID); err != nil || byID.Email != "bob@example.com" {
		t.Errorf("UserByID = %+v, %v", byID, err)
	}
	_, err = e.svc.Accounts.UserByID(bg, "missing")
	wantKind(t, err, contracts.KindNotFound)
}

func TestAPIKeys(t *testing.T) {
	eachStore(t, func(t *testing.T, store string) {
		for _, pepper := range [][]byte{nil, []byte("pepper")} {
			t.Run(fmt.Sprintf("pepper=%q", pepper), func(t *testing.T) { testAPIKeys(t, store, pepper) })
		}
	})
}

func testAPIKeys(t *testing.T, store string, pepper []byte) {
	e := newEnv(t, store)
	e.svc = domain.NewServices(e.store, e.blobs, e.clock, domain.RandomIDs{}, nil, domain.Config{KeyPepper: pepper})
	u, _ := e.svc.Accounts.CreateUser(context.Background(), "ada@example.com", "")
	local := as(u.ID, contracts.CredentialLocal)
	bg := context.Background()

	k, err := e.svc.Keys.CreateKey(local, "  laptop ", []contracts.Scope{contracts.ScopeStudyWrite, contracts.ScopeDecksRead, contracts.ScopeDecksRead}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(k.Secret, contracts.APIKeyPrefix+k.Key.ID+"_") || len(k.Secret) < len("tbk_")+36+1+22 {
		t.Errorf("key %q does not read tbk_<id>_<secret>", k.Secret)
	}
	if k.Key.Hint != k.Secret[len(k.Secret)-6:] || k.Key.Name != "laptop" || k.Key.ExpiresAt != nil ||
		!slices.Equal(k.Key.Scopes, []contracts.Scope{contracts.ScopeDecksRead, contracts.ScopeStudyWrite}) {
		t.Errorf("key view = %+v", k.Key)
	}
	p, err := e.svc.Keys.Authenticate(bg, k.Secret)
	if err != nil {
		t.Fatal(err)
	}
	if p.UserID != u.ID || p.CredentialKind != contracts.CredentialAPIKey || p.CredentialID != k.Key.ID || !slices.Equal(p.Scopes, k.Key.Scopes) {
		t.Errorf("principal = %+v", p)
	}
	list, err := e.svc.Keys.ListKeys(local)
	if err != nil || len(list) != 1 || list[0].LastUsedAt == nil || !list[0].LastUsedAt.Equal(t0) {
		t.Errorf("ListKeys after use = %+v, %v", list, err)
	}
	// Last use is recorded at most once a minute.
	e.clock.Advance(30 * time.Second)
	e.svc.Keys.Authenticate(bg, k.Secret)
	if list, _ := e.svc.Keys.ListKeys(local); !list[0].LastUsedAt.Equal(t0) {
		t.Errorf("touched again after 30s: %v", list[0].LastUsedAt)
	}
	e.clock.Advance(31 * time.Second)
	e.svc.Keys.Authenticate(bg, k.Secret)
	if list, _ := e.svc.Keys.ListKeys(local); !list[0].LastUsedAt.Equal(t0.Add(61 * time.Second)) {
		t.Errorf("not touched after 61s: %v", list[0].LastUsedAt)
	}

	// Every refusal is the same, and never echoes the key.
	flip := byte('A')
	if k.Secret[len(k.Secret)-1] == 'A' {
		flip = 'B'
	}
	wrong := k.Secret[:len(k.Secret)-1] + string(flip)
	for _, bad := range []string{"", "garbage", wrong, "tbk_" + k.Key.ID, "tbk_unknown_" + k.Secret[len(k.Secret)-22:], k.Secret + "x"} {
		_, err := e.svc.Keys.Authenticate(bg, bad)
		wantKind(t, err, contracts.KindUnauthenticated)
		if err.Error() != "invalid API key" {
			t.Errorf("refusal message %q", err)
		}
	}

	// A key cannot manage keys or exposure.
	keyCtx := contracts.WithPrincipal(bg, p)
	_, err = e.svc.Keys.CreateKey(keyCtx, "sneaky", []contracts.Scope{contracts.ScopeDecksRead}, 0)
	wantKind(t, err, contracts.KindForbidden)
	if err.Error() != "API keys cannot manage keys; sign in to the web app" {
		t.Errorf("forbidden message %q", err)
	}
	_, err = e.svc.Keys.ListKeys(keyCtx)
	wantKind(t, err, contracts.KindForbidden)
	wantKind(t, e.svc.Keys.RevokeKey(keyCtx, k.Key.ID), contracts.KindForbidden)
	_, err = e.svc.Keys.CreateKey(as(u.ID, contracts.CredentialOAuth), "x", []contracts.Scope{contracts.ScopeDecksRead}, 0)
	wantKind(t, err, contracts.KindForbidden)

	// Validation.
	_, err = e.svc.Keys.CreateKey(local, "x", nil, 0)
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Keys.CreateKey(local, "x", []contracts.Scope{"admin"}, 0)
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Keys.CreateKey(local, "x", []contracts.Scope{contracts.ScopeDecksRead}, -time.Hour)
	wantKind(t, err, contracts.KindInvalid)

	// Expiry.
	short, err := e.svc.Keys.CreateKey(local, "short", []contracts.Scope{contracts.ScopeDecksRead}, time.Hour)
	if err != nil || short.Key.ExpiresAt == nil {
		t.Fatalf("expiring key = %+v, %v", short, err)
	}
	if _, err := e.svc.Keys.Authenticate(bg, short.Secret); err != nil {
		t.Errorf("fresh expiring key refused: %v", err)
	}
	e.clock.Advance(time.Hour)
	_, err = e.svc.Keys.Authenticate(bg, short.Secret)
	wantKind(t, err, contracts.KindUnauthenticated)

	// Revocation.
	if err := e.svc.Keys.RevokeKey(local, k.Key.ID); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Keys.Authenticate(bg, k.Secret)
	wantKind(t, err, contracts.KindUnauthenticated)
	list, _ = e.svc.Keys.ListKeys(local)
	if len(list) != 2 || list[0].ID != short.Key.ID || list[1].RevokedAt == nil {
		t.Errorf("list after revoke (newest first) = %+v", list)
	}
	wantKind(t, e.svc.Keys.RevokeKey(local, "missing"), contracts.KindNotFound)

	// Another user cannot see or revoke the key.
	other, _ := e.svc.Accounts.CreateUser(bg, "bob@example.com", "")
	bob := as(other.ID, contracts.CredentialSession)
	if l, err := e.svc.Keys.ListKeys(bob); err != nil || len(l) != 0 {
		t.Errorf("bob's keys = %+v, %v", l, err)
	}
	wantKind(t, e.svc.Keys.RevokeKey(bob, short.Key.ID), contracts.KindNotFound)
}

func TestWebSessions(t *testing.T) { eachStore(t, testWebSessions) }

func testWebSessions(t *testing.T, store string) {
	e := newEnv(t, store)
	bg := context.Background()
	u, _ := e.svc.Accounts.CreateUser(bg, "ada@example.com", "")
	token, exp, err := e.svc.WebSessions.CreateLoginLink(bg, "ADA@example.com")
	if err != nil || len(token) < 22 || !exp.Equal(t0.Add(15*time.Minute)) {
		t.Fatalf("login link = %q %v %v", token, exp, err)
	}
	_, _, err = e.svc.WebSessions.CreateLoginLink(bg, "nobody@example.com")
	wantKind(t, err, contracts.KindNotFound)

	sess, user, err := e.svc.WebSessions.ConsumeLoginLink(bg, token)
	if err != nil || user.ID != u.ID || sess == "" || sess == token {
		t.Fatalf("consume = %q %+v %v", sess, user, err)
	}
	_, _, err = e.svc.WebSessions.ConsumeLoginLink(bg, token)
	wantKind(t, err, contracts.KindUnauthenticated)

	p, err := e.svc.WebSessions.Authenticate(bg, sess)
	if err != nil || p.UserID != u.ID || p.CredentialKind != contracts.CredentialSession || !slices.Equal(p.Scopes, contracts.AllScopes) {
		t.Fatalf("session principal = %+v, %v", p, err)
	}
	if p.CredentialID == "" || strings.Contains(sess, p.CredentialID) || p.CredentialID != identity.WebSessionID(sess) || len(p.CredentialID) != 16 {
		t.Errorf("session id %q must be a hash prefix, not the token", p.CredentialID)
	}
	if err := e.svc.WebSessions.SignOut(bg, sess); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.WebSessions.Authenticate(bg, sess)
	wantKind(t, err, contracts.KindUnauthenticated)
	if err := e.svc.WebSessions.SignOut(bg, "unknown"); err != nil {
		t.Errorf("signing out an unknown session: %v", err)
	}

	// Expired links and sessions are refused.
	token, _, _ = e.svc.WebSessions.CreateLoginLink(bg, "ada@example.com")
	e.clock.Advance(15 * time.Minute)
	_, _, err = e.svc.WebSessions.ConsumeLoginLink(bg, token)
	wantKind(t, err, contracts.KindUnauthenticated)
	token, _, _ = e.svc.WebSessions.CreateLoginLink(bg, "ada@example.com")
	sess, _, _ = e.svc.WebSessions.ConsumeLoginLink(bg, token)
	e.clock.Advance(domain.DefaultWebSessionTTL - time.Second)
	if _, err := e.svc.WebSessions.Authenticate(bg, sess); err != nil {
		t.Errorf("session refused before its end: %v", err)
	}
	e.clock.Advance(time.Second)
	_, err = e.svc.WebSessions.Authenticate(bg, sess)
	wantKind(t, err, contracts.KindUnauthenticated)
}

func TestExposure(t *testing.T) { eachStore(t, testExposure) }

func testExposure(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	x, err := e.svc.Exposure.Exposure(ctx)
	if err != nil || x.ReadOnly || x.DisabledTools == nil || len(x.DisabledTools) != 0 {
		t.Fatalf("default exposure = %+v, %v", x, err)
	}
	for _, tool := range contracts.Catalog() {
		if !x.Allows(tool) {
			t.Errorf("default exposure hides %s", tool.Name)
		}
	}
	set, err := e.svc.Exposure.SetExposure(ctx, contracts.ExposureSettings{ReadOnly: true, DisabledTools: []string{contracts.ToolGetStats, contracts.ToolListDecks, contracts.ToolGetStats}})
	if err != nil || !set.ReadOnly || !slices.Equal(set.DisabledTools, []string{contracts.ToolListDecks, contracts.ToolGetStats}) || !set.UpdatedAt.Equal(t0) {
		t.Fatalf("SetExposure = %+v, %v", set, err)
	}
	x, _ = e.svc.Exposure.Exposure(ctx)
	if !x.ReadOnly || !slices.Equal(x.DisabledTools, set.DisabledTools) {
		t.Errorf("stored exposure = %+v", x)
	}
	_, err = e.svc.Exposure.SetExposure(ctx, contracts.ExposureSettings{DisabledTools: []string{"drop_tables"}})
	wantKind(t, err, contracts.KindInvalid)
	uid, _ := contracts.UserID(ctx)
	for _, kind := range []contracts.CredentialKind{contracts.CredentialAPIKey, contracts.CredentialOAuth} {
		_, err = e.svc.Exposure.SetExposure(as(uid, kind), contracts.ExposureSettings{})
		wantKind(t, err, contracts.KindForbidden)
	}
	// Keys may read it (the MCP surface does, at call time).
	if x, err := e.svc.Exposure.Exposure(as(uid, contracts.CredentialAPIKey)); err != nil || !x.ReadOnly {
		t.Errorf("exposure read by a key = %+v, %v", x, err)
	}
}

// TestExposureToolsets: a new account's default toolsets are the lean
// ones until its owner chooses; a choice is stored in one form, a bad one
// is refused with the known names, and changing read-only mode or the
// tool switches without naming toolsets keeps the choice.
func TestExposureToolsets(t *testing.T) { eachStore(t, testExposureToolsets) }

func testExposureToolsets(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	x, err := e.svc.Exposure.Exposure(ctx)
	if err != nil || x.Toolsets != nil || !slices.Equal(x.ToolsetsOrDefault(), contracts.LeanToolsets) {
		t.Fatalf("a new account's exposure = %+v, %v; want no choice, the lean default", x, err)
	}
	// A change that names no toolsets leaves the lean default unchosen.
	if x, err = e.svc.Exposure.SetExposure(ctx, contracts.ExposureSettings{ReadOnly: true}); err != nil || x.Toolsets != nil {
		t.Fatalf("read-only on = %+v, %v; want toolsets still unchosen", x, err)
	}
	x, err = e.svc.Exposure.SetExposure(ctx, contracts.ExposureSettings{Toolsets: []string{contracts.ToolsetExchange, contracts.ToolsetStudy, contracts.ToolsetExchange}})
	if err != nil || !slices.Equal(x.Toolsets, []string{contracts.ToolsetStudy, contracts.ToolsetExchange}) || x.ReadOnly {
		t.Fatalf("choosing study and exchange = %+v, %v", x, err)
	}
	for _, change := range []contracts.ExposureSettings{
		{ReadOnly: true},
		{DisabledTools: []string{contracts.ToolGetStats}},
		{},
	} {
		if _, err := e.svc.Exposure.SetExposure(ctx, change); err != nil {
			t.Fatal(err)
		}
		x, err = e.svc.Exposure.Exposure(ctx)
		if err != nil || !slices.Equal(x.Toolsets, []string{contracts.ToolsetStudy, contracts.ToolsetExchange}) ||
			x.ReadOnly != change.ReadOnly || !slices.Equal(x.DisabledTools, append([]string{}, change.DisabledTools...)) {
			t.Errorf("after %+v the settings are %+v, %v; want the toolsets kept", change, x, err)
		}
	}
	if x, err = e.svc.Exposure.SetExposure(ctx, contracts.ExposureSettings{Toolsets: []string{contracts.ToolsetAdmin, contracts.ToolsetsAll}}); err != nil || !slices.Equal(x.Toolsets, []string{contracts.ToolsetsAll}) {
		t.Errorf("choosing all with admin = %+v, %v; want [all]", x, err)
	}
	for _, bad := range [][]string{{}, {"everything"}} {
		_, err = e.svc.Exposure.SetExposure(ctx, contracts.ExposureSettings{Toolsets: bad})
		wantKind(t, err, contracts.KindInvalid)
		if msg := contracts.MessageOf(err); !strings.Contains(msg, "study") || !strings.Contains(msg, "all") {
			t.Errorf("toolsets %q refused with %q; want the known names", bad, msg)
		}
	}
	if x, _ = e.svc.Exposure.Exposure(ctx); !slices.Equal(x.Toolsets, []string{contracts.ToolsetsAll}) {
		t.Errorf("a refused choice changed the settings: %+v", x)
	}
	// Another account's choice is its own.
	if other, err := e.svc.Exposure.Exposure(e.user("bo@example.com")); err != nil || other.Toolsets != nil {
		t.Errorf("another account's exposure = %+v, %v", other, err)
	}
}

func TestAuditPaging(t *testing.T) { eachStore(t, testAuditPaging) }

func testAuditPaging(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	uid, _ := contracts.UserID(ctx)
	keyCtx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: uid, CredentialKind: contracts.CredentialAPIKey, CredentialID: "key-1"})
	for i := range 7 {
		e.clock.Advance(time.Second)
		tool := contracts.ToolAddCards
		if i%2 == 1 {
			tool = contracts.ToolCreateDeck
		}
		err := e.svc.Audit.Record(keyCtx, contracts.AuditEvent{
			UserID: "someone-else", Tool: tool, Action: "x", Outcome: contracts.AuditOK,
			InputSummary: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	huge, _ := json.Marshal(map[string]string{"text": strings.Repeat("x", 5000)})
	if err := e.svc.Audit.Record(ctx, contracts.AuditEvent{Tool: contracts.ToolImportCards, Outcome: contracts.AuditOK, InputSummary: huge}); err != nil {
		t.Fatal(err)
	}

	var all []contracts.AuditEvent
	cursor := ""
	for {
		p, err := e.svc.Audit.List(ctx, contracts.AuditFilter{}, cursor, 3)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, p.Items...)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if len(all) != 8 || all[0].Tool != contracts.ToolImportCards || string(all[7].InputSummary) != `{"i":0}` {
		t.Fatalf("audit newest first: %d events, first %s, last %s", len(all), all[0].Tool, all[len(all)-1].InputSummary)
	}
	for i := 1; i < len(all); i++ {
		if all[i].At.After(all[i-1].At) {
			t.Errorf("event %d is newer than event %d", i, i-1)
		}
	}
	if e0 := all[7]; e0.UserID != uid || e0.ID == "" || e0.CredentialKind != contracts.CredentialAPIKey || e0.CredentialID != "key-1" || !e0.At.Equal(t0.Add(time.Second)) {
		t.Errorf("recorded event = %+v", e0)
	}
	if n := len(all[0].InputSummary); n > contracts.MaxAuditSummaryBytes || !json.Valid(all[0].InputSummary) {
		t.Errorf("summary kept %d bytes (valid %v)", n, json.Valid(all[0].InputSummary))
	}
	p, err := e.svc.Audit.List(ctx, contracts.AuditFilter{Tool: contracts.ToolCreateDeck}, "", 0)
	if err != nil || len(p.Items) != 3 {
		t.Errorf("filter by tool: %d, %v", len(p.Items), err)
	}
	p, err = e.svc.Audit.List(ctx, contracts.AuditFilter{CredentialID: "key-1"}, "", 0)
	if err != nil || len(p.Items) != 7 {
		t.Errorf("filter by credential: %d, %v", len(p.Items), err)
	}
	_, err = e.svc.Audit.List(ctx, contracts.AuditFilter{}, "", 201)
	wantKind(t, err, contracts.KindInvalid)
	_, err = e.svc.Audit.List(ctx, contracts.AuditFilter{}, "***", 0)
	wantKind(t, err, contracts.KindInvalid)
	bob := e.user("bob@example.com")
	if p, _ := e.svc.Audit.List(bob, contracts.AuditFilter{}, "", 0); len(p.Items) != 0 {
		t.Errorf("bob sees %d of ada's events", len(p.Items))
	}
	wantKind(t, e.svc.Audit.Record(context.Background(), contracts.AuditEvent{}), contracts.KindUnauthenticated)
}
