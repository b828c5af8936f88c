package storetest

import (
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

func testOAuthClients(t *testing.T, f *fixture) {
	o := f.s.OAuth()
	c := contracts.OAuthClient{ID: f.id("client"), Kind: contracts.OAuthClientRegistered, Name: "Claude", URI: "https://claude.ai",
		RedirectURIs: []string{"https://claude.ai/api/mcp/auth_callback", "http://127.0.0.1/cb"},
		Scopes:       []contracts.Scope{contracts.ScopeDecksRead}, CreatedAt: f.now}
	must(t, o.CreateClient(f.ctx, c))
	wantKind(t, o.CreateClient(f.ctx, c), contracts.KindConflict, "CreateClient with a taken id")
	got, err := o.ClientByID(f.ctx, c.ID)
	must(t, err)
	got.CreatedAt = ms(got.CreatedAt)
	if !reflect.DeepEqual(got, c) {
		t.Errorf("ClientByID:\n got %+v\nwant %+v", got, c)
	}
	all := contracts.OAuthClient{ID: f.id("client"), Kind: contracts.OAuthClientRegistered, RedirectURIs: []string{"cursor://cb"}, CreatedAt: f.now}
	must(t, o.CreateClient(f.ctx, all))
	got, err = o.ClientByID(f.ctx, all.ID)
	must(t, err)
	if got.Scopes != nil || got.Name != "" || !reflect.DeepEqual(got.RedirectURIs, all.RedirectURIs) {
		t.Errorf("ClientByID of a client without scopes or name = %+v", got)
	}
	_, err = o.ClientByID(f.ctx, "client-missing")
	wantKind(t, err, contracts.KindNotFound, "ClientByID of a missing client")
}

// oauthGrant creates a grant of user for the tests.
func (f *fixture) oauthGrant(user string, at time.Time) ports.OAuthGrantRow {
	g := ports.OAuthGrantRow{UserID: user, OAuthGrant: contracts.OAuthGrant{ID: f.id("grant"), ClientID: "https://app.example/client.json",
		ClientName: "App", ClientKind: contracts.OAuthClientMetadataDocument, Resource: "https://tb.example/mcp",
		Scopes: []contracts.Scope{contracts.ScopeDecksRead, contracts.ScopeStudyWrite}, CreatedAt: at}}
	must(f.t, f.s.OAuth().CreateGrant(f.ctx, g))
	return g
}

func testOAuthCodes(t *testing.T, f *fixture) {
	o := f.s.OAuth()
	a := f.user()
	code := ports.OAuthCodeRow{Hash: []byte("code-hash-1"), UserID: a, ClientID: "client-1", ClientName: "App", ClientKind: contracts.OAuthClientRegistered,
		RedirectURI: "https://app.example/cb", Challenge: "challenge", Resource: "https://tb.example/mcp",
		Scopes: []contracts.Scope{contracts.ScopeDecksRead}, CreatedAt: f.now, ExpiresAt: f.now.Add(time.Minute)}
	must(t, o.CreateCode(f.ctx, code))
	bad := code
	bad.Hash, bad.UserID = []byte("code-hash-2"), "user-missing"
	wantKind(t, o.CreateCode(f.ctx, bad), contracts.KindNotFound, "CreateCode for a missing user")

	used := f.now.Add(time.Second)
	got, first, err := o.UseCode(f.ctx, code.Hash, used)
	must(t, err)
	if !first {
		t.Fatal("UseCode: the first use is not first")
	}
	want := code
	want.UsedAt = &used
	got.CreatedAt, got.ExpiresAt, got.UsedAt = ms(got.CreatedAt), ms(got.ExpiresAt), msp(got.UsedAt)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("UseCode:\n got %+v\nwant %+v", got, want)
	}
	g := f.oauthGrant(a, f.now)
	must(t, o.SetCodeGrant(f.ctx, code.Hash, g.ID))
	again, first, err := o.UseCode(f.ctx, code.Hash, used.Add(time.Second))
	must(t, err)
	if first || again.GrantID != g.ID || again.UsedAt == nil || !again.UsedAt.Equal(used) {
		t.Errorf("UseCode again: first=%v grant=%q used=%v, want false, %q, the first use's time", first, again.GrantID, again.UsedAt, g.ID)
	}
	_, _, err = o.UseCode(f.ctx, []byte("nope"), used)
	wantKind(t, err, contracts.KindNotFound, "UseCode of a missing code")
	wantKind(t, o.SetCodeGrant(f.ctx, []byte("nope"), g.ID), contracts.KindNotFound, "SetCodeGrant of a missing code")

	// Of concurrent uses, exactly one is first.
	c2 := code
	c2.Hash = []byte("code-hash-3")
	must(t, o.CreateCode(f.ctx, c2))
	var firsts atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, first, err := o.UseCode(f.ctx, c2.Hash, used)
			if err != nil {
				t.Error(err)
			}
			if first {
				firsts.Add(1)
			}
		}()
	}
	wg.Wait()
	if firsts.Load() != 1 {
		t.Errorf("concurrent UseCode: %d firsts, want 1", firsts.Load())
	}

	n, err := o.PurgeExpired(f.ctx, f.now.Add(2*time.Minute))
	must(t, err)
	if n != 2 {
		t.Errorf("PurgeExpired removed %d rows, want the 2 codes", n)
	}
	_, _, err = o.UseCode(f.ctx, code.Hash, used)
	wantKind(t, err, contracts.KindNotFound, "UseCode of a purged code")
}

func testOAuthGrantsAndTokens(t *testing.T, f *fixture) {
	o := f.s.OAuth()
	a, b := f.user(), f.user()
	g1 := f.oauthGrant(a, f.now)
	g2 := f.oauthGrant(a, f.now.Add(time.Hour))
	gb := f.oauthGrant(b, f.now)
	bad := g1
	bad.ID, bad.UserID = f.id("grant"), "user-missing"
	wantKind(t, o.CreateGrant(f.ctx, bad), contracts.KindNotFound, "CreateGrant for a missing user")

	got, err := o.GrantByID(f.ctx, g1.ID)
	must(t, err)
	got.CreatedAt = ms(got.CreatedAt)
	if !reflect.DeepEqual(got, g1) {
		t.Errorf("GrantByID:\n got %+v\nwant %+v", got, g1)
	}
	_, err = o.GrantByID(f.ctx, "grant-missing")
	wantKind(t, err, contracts.KindNotFound, "GrantByID of a missing grant")

	list, err := o.ListGrants(f.ctx, a)
	must(t, err)
	if len(list) != 2 || list[0].ID != g2.ID || list[1].ID != g1.ID {
		t.Fatalf("ListGrants = %d grants, want [%s %s] (newest first, the user's only)", len(list), g2.ID, g1.ID)
	}

	touched := f.now.Add(2 * time.Hour)
	must(t, o.TouchGrant(f.ctx, g1.ID, touched))
	must(t, o.TouchGrant(f.ctx, g1.ID, f.now)) // never backwards
	got, err = o.GrantByID(f.ctx, g1.ID)
	must(t, err)
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(touched) {
		t.Errorf("TouchGrant: last used %v, want %v", got.LastUsedAt, touched)
	}
	wantKind(t, o.TouchGrant(f.ctx, "grant-missing", f.now), contracts.KindNotFound, "TouchGrant of a missing grant")

	access := ports.OAuthTokenRow{Hash: []byte("access-1"), Kind: ports.OAuthAccessToken, GrantID: g1.ID,
		Scopes: []contracts.Scope{contracts.ScopeDecksRead}, CreatedAt: f.now, ExpiresAt: f.now.Add(time.Hour)}
	refresh := ports.OAuthTokenRow{Hash: []byte("refresh-1"), Kind: ports.OAuthRefreshToken, GrantID: g1.ID,
		Scopes: g1.Scopes, CreatedAt: f.now, ExpiresAt: f.now.Add(30 * day)}
	must(t, o.CreateToken(f.ctx, access))
	must(t, o.CreateToken(f.ctx, refresh))
	orphan := access
	orphan.Hash, orphan.GrantID = []byte("orphan"), "grant-missing"
	wantKind(t, o.CreateToken(f.ctx, orphan), contracts.KindNotFound, "CreateToken under a missing grant")

	tok, tg, err := o.TokenByHash(f.ctx, ports.OAuthAccessToken, access.Hash)
	must(t, err)
	tok.CreatedAt, tok.ExpiresAt = ms(tok.CreatedAt), ms(tok.ExpiresAt)
	if !reflect.DeepEqual(tok, access) || tg.ID != g1.ID || tg.UserID != a {
		t.Errorf("TokenByHash:\n got %+v (grant %s of %s)\nwant %+v (grant %s of %s)", tok, tg.ID, tg.UserID, access, g1.ID, a)
	}
	_, _, err = o.TokenByHash(f.ctx, ports.OAuthRefreshToken, access.Hash)
	wantKind(t, err, contracts.KindNotFound, "TokenByHash of an access token as a refresh token")

	first, err := o.UseToken(f.ctx, refresh.Hash, f.now)
	must(t, err)
	again, err := o.UseToken(f.ctx, refresh.Hash, f.now.Add(time.Second))
	must(t, err)
	if !first || again {
		t.Errorf("UseToken: first=%v again=%v, want true then false", first, again)
	}
	_, err = o.UseToken(f.ctx, []byte("nope"), f.now)
	wantKind(t, err, contracts.KindNotFound, "UseToken of a missing token")

	must(t, o.RevokeToken(f.ctx, access.Hash, f.now))
	tok, _, err = o.TokenByHash(f.ctx, ports.OAuthAccessToken, access.Hash)
	must(t, err)
	if tok.RevokedAt == nil {
		t.Error("RevokeToken: the token is not revoked")
	}
	wantKind(t, o.RevokeToken(f.ctx, []byte("nope"), f.now), contracts.KindNotFound, "RevokeToken of a missing token")

	// Revocation is the owner's; it hides the grant from the list and shows on its tokens.
	wantKind(t, o.RevokeGrant(f.ctx, b, g1.ID, f.now), contracts.KindNotFound, "RevokeGrant of another user's grant")
	must(t, o.RevokeGrant(f.ctx, a, g1.ID, f.now))
	must(t, o.RevokeGrant(f.ctx, a, g1.ID, f.now.Add(time.Hour)))
	_, tg, err = o.TokenByHash(f.ctx, ports.OAuthRefreshToken, refresh.Hash)
	must(t, err)
	if tg.RevokedAt == nil || !tg.RevokedAt.Equal(f.now) {
		t.Errorf("the revoked grant's token shows revoked at %v, want %v (the first revocation)", tg.RevokedAt, f.now)
	}
	list, err = o.ListGrants(f.ctx, a)
	must(t, err)
	if len(list) != 1 || list[0].ID != g2.ID {
		t.Errorf("ListGrants after revoking %s = %d grants, want only %s", g1.ID, len(list), g2.ID)
	}
	list, err = o.ListGrants(f.ctx, b)
	must(t, err)
	if len(list) != 1 || list[0].ID != gb.ID {
		t.Errorf("ListGrants of the other user changed: %d grants", len(list))
	}

	n, err := o.PurgeExpired(f.ctx, f.now.Add(2*time.Hour))
	must(t, err)
	if n != 1 {
		t.Errorf("PurgeExpired removed %d tokens, want the expired access token", n)
	}
	if _, _, err := o.TokenByHash(f.ctx, ports.OAuthRefreshToken, refresh.Hash); err != nil {
		t.Errorf("PurgeExpired removed a live refresh token: %v", err)
	}
}
