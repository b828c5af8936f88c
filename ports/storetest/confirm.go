package storetest

import (
	"bytes"
	"reflect"
	"testing"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// testConfirmations: a confirmation reads back as written; a state moves
// once from the state it is in and never after its expiry; keys, grants
// and exposure settings keep the marks and thresholds of issue 26 §3.
func testConfirmations(t *testing.T, f *fixture) {
	a := f.user()
	cs := f.s.Confirmations()
	row := ports.ConfirmationRow{Hash: []byte(f.id("hash")), UserID: a, ArgsHash: []byte{1, 2, 3},
		Confirmation: contracts.Confirmation{Tool: contracts.ToolDeleteCards, State: contracts.ConfirmPending,
			Preview:   contracts.ConfirmPreview{Count: 60, Counts: map[string]int{"deleted": 60}},
			CreatedAt: f.now, ExpiresAt: f.now.Add(contracts.ConfirmTTL)}}
	must(t, cs.CreateConfirmation(f.ctx, row))
	got, err := cs.ConfirmationByHash(f.ctx, row.Hash)
	must(t, err)
	if got.UserID != a || got.Tool != row.Tool || !bytes.Equal(got.ArgsHash, row.ArgsHash) || got.State != contracts.ConfirmPending ||
		!reflect.DeepEqual(got.Preview, row.Preview) || !got.ExpiresAt.Equal(row.ExpiresAt) {
		t.Errorf("ConfirmationByHash = %+v, want %+v", got, row)
	}
	if _, err := cs.ConfirmationByHash(f.ctx, []byte("nope")); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("an unknown hash: %v, want not found", err)
	}
	move := func(from, to contracts.ConfirmState, at time.Time, want bool) {
		t.Helper()
		moved, err := cs.MoveConfirmation(f.ctx, row.Hash, from, to, at)
		must(t, err)
		if moved != want {
			t.Errorf("MoveConfirmation(%s → %s) = %v, want %v", from, to, moved, want)
		}
	}
	move(contracts.ConfirmApproved, contracts.ConfirmUsed, f.now, false)                              // not approved yet
	move(contracts.ConfirmPending, contracts.ConfirmApproved, f.now.Add(contracts.ConfirmTTL), false) // expired
	move(contracts.ConfirmPending, contracts.ConfirmApproved, f.now, true)
	move(contracts.ConfirmPending, contracts.ConfirmDeclined, f.now, false) // answered once
	move(contracts.ConfirmApproved, contracts.ConfirmUsed, f.now, true)
	move(contracts.ConfirmApproved, contracts.ConfirmUsed, f.now, false) // used once

	// Trusted marks on a key and a grant, and the account's thresholds.
	k := ports.APIKeyRow{UserID: a, Hash: []byte("h"), APIKeyView: contracts.APIKeyView{ID: f.id("key"), Name: "x",
		Scopes: []contracts.Scope{contracts.ScopeDecksRead}, Hint: "hhhhhh", CreatedAt: f.now}}
	must(t, f.s.Keys().CreateKey(f.ctx, k))
	must(t, f.s.Keys().SetKeyTrusted(f.ctx, a, k.ID, true))
	if kr, err := f.s.Keys().KeyByID(f.ctx, k.ID); err != nil || !kr.Trusted {
		t.Errorf("KeyByID after SetKeyTrusted = %+v, %v; want trusted", kr.APIKeyView, err)
	}
	if err := f.s.Keys().SetKeyTrusted(f.ctx, f.user(), k.ID, true); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("trusting another user's key: %v, want not found", err)
	}
	g := f.oauthGrant(a, f.now)
	must(t, f.s.OAuth().SetGrantTrusted(f.ctx, a, g.ID, true))
	if gr, err := f.s.OAuth().GrantByID(f.ctx, g.ID); err != nil || !gr.Trusted {
		t.Errorf("GrantByID after SetGrantTrusted = %+v, %v; want trusted", gr.OAuthGrant, err)
	}
	th := contracts.ConfirmThresholds{DeckCards: 0, DeleteCards: 5, UpdateCards: 7, RescheduleCards: 9}
	must(t, f.s.Exposure().PutExposure(f.ctx, a, contracts.ExposureSettings{Confirm: &th, UpdatedAt: f.now}))
	e, err := f.s.Exposure().GetExposure(f.ctx, a)
	must(t, err)
	if e.Confirm == nil || *e.Confirm != th {
		t.Errorf("GetExposure's thresholds = %+v, want %+v", e.Confirm, th)
	}
	if kr, err := f.s.Keys().KeyByID(f.ctx, k.ID); err != nil || (kr.Exposure != nil && (kr.Exposure.Confirm == nil || *kr.Exposure.Confirm != th)) {
		t.Errorf("KeyByID's thresholds = %+v, %v; want %+v", kr.Exposure, err, th)
	}
}
