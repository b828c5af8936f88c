package storetest

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testExpiry checks DeleteExpired for every kind: it deletes only what
// expired before the given time, at most limit rows a call, any user's,
// and says so when nothing is left; live rows (and uploaded media, however
// old their intent) stay.
func testExpiry(t *testing.T, f *fixture) {
	a, b := f.user(), f.user()
	old, live := f.now.Add(-time.Hour), f.now.Add(time.Hour)
	d := f.deck(a, "Expiring")
	card := f.insert(a, f.card(d.ID, "front", "back"))[0]
	session := func(user, deck string, exp time.Time) string {
		id := f.id("ses")
		must(t, f.s.Sessions().CreateSession(f.ctx, ports.StudySessionRow{ID: id, UserID: user, DeckID: deck,
			StartedAt: exp.Add(-time.Hour), ExpiresAt: exp}, []string{card.ID}))
		return id
	}
	db := f.deck(b, "Other")
	cardB := f.insert(b, f.card(db.ID, "front", "back"))[0]
	liveSession := session(a, d.ID, live)
	session(a, d.ID, old)
	session(a, d.ID, old)
	must(t, f.s.Sessions().CreateSession(f.ctx, ports.StudySessionRow{ID: f.id("ses"), UserID: b, DeckID: db.ID,
		StartedAt: old.Add(-time.Hour), ExpiresAt: old}, []string{cardB.ID}))

	for i, exp := range []time.Time{old, old, live} {
		must(t, f.s.WebSessions().CreateWebSession(f.ctx, ports.WebSessionRow{Hash: []byte{byte(i), 1}, UserID: a,
			Kind: []string{"login_link", "session", "session"}[i], CreatedAt: exp.Add(-time.Minute), ExpiresAt: exp}))
	}
	err := f.s.InTx(f.ctx, func(tx ports.Stores) error {
		for i, at := range []time.Time{old, old, live} {
			if _, _, _, err := tx.Idempotency().ClaimKey(f.ctx, a, "add", f.id("key"), "fp"+string(rune('a'+i)), at); err != nil {
				return err
			}
		}
		return nil
	})
	must(t, err)

	uploaded := f.now.Add(-2 * time.Hour)
	for i, m := range []ports.MediaRow{
		{ExpiresAt: old},                        // an intent never used: goes
		{ExpiresAt: old, UploadedAt: &uploaded}, // uploaded media: stays
		{ExpiresAt: live},                       // an open intent: stays
	} {
		m.ID, m.UserID, m.ContentType, m.MaxBytes, m.TokenHash, m.CreatedAt = f.id("med"), b, "image/png", 1024, []byte{byte(i)}, old.Add(-time.Hour)
		must(t, f.s.Media().CreateMedia(f.ctx, m))
	}

	o := f.s.OAuth()
	for i, exp := range []time.Time{old, live} {
		must(t, o.CreateCode(f.ctx, ports.OAuthCodeRow{Hash: []byte{'c', byte(i)}, UserID: a, ClientID: "client-1", ClientName: "App",
			ClientKind: contracts.OAuthClientRegistered, RedirectURI: "https://app.example/cb", Challenge: "challenge",
			Resource: "https://tb.example/mcp", Scopes: []contracts.Scope{contracts.ScopeDecksRead}, CreatedAt: exp.Add(-time.Minute), ExpiresAt: exp}))
	}
	g := f.oauthGrant(a, old.Add(-time.Hour))
	for i, exp := range []time.Time{old, old, live} {
		must(t, o.CreateToken(f.ctx, ports.OAuthTokenRow{Hash: []byte{'t', byte(i)}, Kind: ports.OAuthAccessToken, GrantID: g.ID,
			Scopes: g.Scopes, CreatedAt: exp.Add(-time.Hour), ExpiresAt: exp}))
	}

	for _, r := range []contracts.ChangeRecord{
		f.change(a, "op-old", "key", contracts.ChangeCardUpdate, card.ID, old.Add(-contracts.ChangeTTL)),
		f.change(b, "op-old", "key", contracts.ChangeCardUpdate, cardB.ID, old.Add(-contracts.ChangeTTL)),
		f.change(a, "op-live", "key", contracts.ChangeCardUpdate, card.ID, live.Add(-contracts.ChangeTTL)),
	} {
		must(t, f.s.Changes().AppendChanges(f.ctx, r.UserID, []contracts.ChangeRecord{r}))
	}

	for i, exp := range []time.Time{old, live} {
		must(t, f.s.WebSessions().CreateSignupLink(f.ctx, ports.SignupLinkRow{Hash: []byte{'s', byte(i)}, Email: "new@example.com",
			CreatedAt: exp.Add(-15 * time.Minute), ExpiresAt: exp}))
	}
	for i, exp := range []time.Time{old, live} {
		must(t, f.s.Confirmations().CreateConfirmation(f.ctx, ports.ConfirmationRow{Hash: []byte{'c', byte(i)}, UserID: a, ArgsHash: []byte{1},
			Confirmation: contracts.Confirmation{Tool: contracts.ToolDeleteDeck, State: contracts.ConfirmPending,
				CreatedAt: exp.Add(-contracts.ConfirmTTL), ExpiresAt: exp}}))
	}
	// Registered clients: one never used (goes), one a grant names, one
	// with an outstanding code, one registered after the time (stay).
	for _, c := range []struct {
		id string
		at time.Time
	}{{"tbc_unused", old}, {"tbc_granted", old}, {"tbc_coded", old}, {"tbc_new", live}} {
		must(t, o.CreateClient(f.ctx, contracts.OAuthClient{ID: c.id, Kind: contracts.OAuthClientRegistered, Name: "App",
			RedirectURIs: []string{"https://app.example/cb"}, CreatedAt: c.at}))
	}
	granted := f.oauthGrant(b, old)
	granted.ID, granted.ClientID, granted.ClientKind = f.id("grant"), "tbc_granted", contracts.OAuthClientRegistered
	must(t, o.CreateGrant(f.ctx, granted))
	must(t, o.RevokeGrant(f.ctx, b, granted.ID, old))
	must(t, o.CreateCode(f.ctx, ports.OAuthCodeRow{Hash: []byte("coded"), UserID: b, ClientID: "tbc_coded", ClientName: "App",
		ClientKind: contracts.OAuthClientRegistered, RedirectURI: "https://app.example/cb", Challenge: "challenge",
		Resource: "https://tb.example/mcp", Scopes: []contracts.Scope{contracts.ScopeDecksRead}, CreatedAt: old, ExpiresAt: live}))

	want := map[ports.Expiring]int{
		ports.ExpiringStudySessions:   3, // two of a's, one of b's
		ports.ExpiringWebSessions:     2, // a sign-in link and a session
		ports.ExpiringIdempotencyKeys: 2,
		ports.ExpiringUploadIntents:   1,
		ports.ExpiringOAuthCodes:      1,
		ports.ExpiringOAuthTokens:     2,
		ports.ExpiringChangeRecords:   2, // a's and b's old ones
		ports.ExpiringSignupLinks:     1,
		ports.ExpiringOAuthClients:    1, // the one never used
		ports.ExpiringConfirmations:   1,
	}
	e := f.s.Expiry()
	for _, what := range ports.ExpiringKinds {
		if n, err := e.DeleteExpired(f.ctx, what, f.now, 0); err != nil || n != 0 {
			t.Errorf("DeleteExpired(%s, limit 0) = %d, %v; want 0, nil", what, n, err)
		}
		total := 0
		for round := 0; ; round++ {
			n, err := e.DeleteExpired(f.ctx, what, f.now, 1)
			must(t, err)
			if n > 1 {
				t.Fatalf("DeleteExpired(%s, limit 1) deleted %d rows", what, n)
			}
			total += n
			if n == 0 || round > 10 {
				break
			}
		}
		if total != want[what] {
			t.Errorf("DeleteExpired(%s) deleted %d rows in all, want %d", what, total, want[what])
		}
	}
	_, err = e.DeleteExpired(f.ctx, "elsewhere", f.now, 10)
	wantKind(t, err, contracts.KindInvalid, "DeleteExpired of an unknown kind")

	// What was live is still there.
	for _, id := range []string{"tbc_granted", "tbc_coded", "tbc_new"} {
		if _, err := o.ClientByID(f.ctx, id); err != nil {
			t.Errorf("the client %s went: %v", id, err)
		}
	}
	if _, err := o.ClientByID(f.ctx, "tbc_unused"); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("the client never used is still there: %v", err)
	}
	if _, err := f.s.Sessions().GetSession(f.ctx, a, liveSession); err != nil {
		t.Errorf("the live study session went: %v", err)
	}
	if _, err := f.s.WebSessions().WebSession(f.ctx, "session", []byte{2, 1}); err != nil {
		t.Errorf("the live web session went: %v", err)
	}
	if _, err := f.s.WebSessions().WebSession(f.ctx, "login_link", []byte{0, 1}); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("the expired sign-in link is still there: %v", err)
	}
	media, err := f.s.Media().ListMedia(f.ctx, b, "", 10)
	must(t, err)
	if len(media) != 2 || media[0].UploadedAt == nil || media[1].UploadedAt != nil || !media[1].ExpiresAt.After(f.now) {
		t.Errorf("after the purge the media rows are %+v, want the uploaded one and the open intent", media)
	}
	if _, _, err := o.TokenByHash(f.ctx, ports.OAuthAccessToken, []byte{'t', 2}); err != nil {
		t.Errorf("the live OAuth token went: %v", err)
	}
	if _, _, err := o.TokenByHash(f.ctx, ports.OAuthAccessToken, []byte{'t', 0}); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("the expired OAuth token is still there: %v", err)
	}
	if left, err := f.s.Changes().ListChanges(f.ctx, a, contracts.ChangeFilter{}, "", 10); err != nil || len(left) != 1 || left[0].OperationID != "op-live" {
		t.Errorf("after the purge a's change records are %+v, %v; want the live one", left, err)
	}
	if _, err := f.s.WebSessions().SignupLink(f.ctx, []byte{'s', 1}); err != nil {
		t.Errorf("the live sign-up link went: %v", err)
	}
	// The card of a purged session keeps its place.
	f.get(a, card.ID)

	// Several instances purging at once delete each row once.
	const pile = 40
	for i := range pile {
		must(t, f.s.WebSessions().CreateWebSession(f.ctx, ports.WebSessionRow{Hash: []byte{'p', byte(i)}, UserID: b,
			Kind: "session", CreatedAt: old.Add(-time.Minute), ExpiresAt: old}))
	}
	var deleted atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n, err := e.DeleteExpired(f.ctx, ports.ExpiringWebSessions, f.now, 3)
				if err != nil {
					t.Errorf("concurrent DeleteExpired: %v", err)
					return
				}
				deleted.Add(int64(n))
				if n == 0 {
					return
				}
			}
		}()
	}
	wg.Wait()
	if deleted.Load() != pile {
		t.Errorf("four concurrent purges deleted %d rows in all, want %d", deleted.Load(), pile)
	}
}
