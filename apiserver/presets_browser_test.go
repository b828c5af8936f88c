package apiserver_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// TestDeckPresetsInABrowser: the deck settings page shows the preset's
// fields; a deck joins another deck's preset; a change then shows in
// both decks; bad weights are refused with a reason.
func TestDeckPresetsInABrowser(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	b := newBrowser(t, e)
	b.signIn(testUser)
	u, err := e.app.Services().Accounts.UserByEmail(context.Background(), testUser)
	if err != nil {
		t.Fatal(err)
	}
	ctx := contracts.WithPrincipal(context.Background(), contracts.Principal{UserID: u.ID, CredentialKind: contracts.CredentialSession, Scopes: contracts.AllScopes})
	decks := e.app.Services().Decks
	es, err := decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Spanish"})
	if err != nil {
		t.Fatal(err)
	}
	fr, err := decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "French"})
	if err != nil {
		t.Fatal(err)
	}

	// French joins Spanish's preset.
	b.open("/decks/" + fr.ID + "/settings")
	if v := evalJS[string](b, `document.querySelector("#learningSteps").value`); v != "1 10" {
		t.Errorf("learning steps field shows %q; want the defaults 1 10", v)
	}
	b.do("choose Spanish's preset", chromedpSetSelect("#presetId", es.Settings.PresetID))
	b.submit(`form[action="/decks/` + fr.ID + `/settings"] button[type="submit"]`)
	if !strings.Contains(b.text(), "Saved") {
		t.Fatalf("after joining, the page says:\n%s", b.text())
	}
	if got, _ := decks.GetDeck(ctx, fr.ID); got.Settings.PresetID != es.Settings.PresetID {
		t.Fatalf("French uses preset %q; want Spanish's %q", got.Settings.PresetID, es.Settings.PresetID)
	}

	// Spanish's page says the preset is shared; a change applies to French too.
	b.open("/decks/" + es.ID + "/settings")
	if !strings.Contains(b.text(), "Shared by 2 decks") {
		t.Errorf("the settings page does not say the preset is shared:\n%s", b.text())
	}
	b.look("deck-settings")
	b.fill("#desiredRetention", "0.85")
	b.fill("#learningSteps", "2, 20")
	b.fill("#relearningSteps", "5")
	b.fill("#maximumIntervalDays", "365")
	b.submit(`form[action="/decks/` + es.ID + `/settings"] button[type="submit"]`)
	got, err := decks.GetDeck(ctx, fr.ID)
	if err != nil || got.Settings.DesiredRetention != 0.85 || got.Settings.MaximumIntervalDays != 365 ||
		len(got.Settings.LearningSteps) != 2 || got.Settings.LearningSteps[1] != 20 || got.Settings.RelearningSteps[0] != 5 {
		t.Errorf("French after Spanish's page changed the preset: %+v, %v", got.Settings, err)
	}

	// Easy days and rescheduling on change are the preset's too (issue 28).
	b.open("/decks/" + es.ID + "/settings")
	b.fill("#easy5", "0")
	b.fill("#easy6", "0.5")
	b.click("#rescheduleOnChange")
	b.submit(`form[action="/decks/` + es.ID + `/settings"] button[type="submit"]`)
	if got, err := decks.GetDeck(ctx, fr.ID); err != nil || !slices.Equal(got.Settings.EasyDays, []float64{1, 1, 1, 1, 1, 0, 0.5}) || !got.Settings.RescheduleOnChange {
		t.Errorf("French after the easy days were set on Spanish's page: easy days %v, reschedule %v (%v)", got.Settings.EasyDays, got.Settings.RescheduleOnChange, err)
	}
	b.open("/decks/" + es.ID + "/settings")
	if v, on := evalJS[string](b, `document.querySelector("#easy6").value`), evalJS[bool](b, `document.querySelector("#rescheduleOnChange").checked`); v != "0.5" || !on {
		t.Errorf("the form shows Sunday %q and rescheduling %v; want 0.5 and on", v, on)
	}
	b.fill("#easy0", "2")
	b.submitUnchecked(`form[action="/decks/` + es.ID + `/settings"] button[type="submit"]`)
	b.refusedField("#easy0", "2", "easyDays[0] must be 0-1")
	b.click("#rescheduleOnChange") // off again: an unchecked box is sent as off
	b.fill("#easy0", "1")
	b.submit(`form[action="/decks/` + es.ID + `/settings"] button[type="submit"]`)
	if got, _ := decks.GetDeck(ctx, es.ID); got.Settings.RescheduleOnChange {
		t.Error("unchecking the box left rescheduling on")
	}

	// The desired-retention advisor simulates the deck at each retention.
	if _, err := e.app.Services().Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: es.ID, Cards: []contracts.NewCard{
		{Front: "hola", Back: "hello"}, {Front: "adiós", Back: "goodbye"}, {Front: "gracias", Back: "thank you"}}}); err != nil {
		t.Fatal(err)
	}
	b.open("/decks/" + es.ID + "/retention")
	if txt := b.text(); !strings.HasPrefix(b.textOf(`tr[aria-current="true"] th`), "85%") || !strings.Contains(txt, "97%") || !strings.Contains(txt, "Minimum recommended") {
		t.Errorf("the advisor page says:\n%s", txt)
	}
	b.look("retention")
	// On a phone the table fits its panel: nothing to scroll sideways.
	b.emulate(360, 780, true, "light")
	if w := evalJS[[]int64](b, `(e => [e.scrollWidth, e.clientWidth])(document.querySelector("main .table-wrap"))`); w[0] > w[1] {
		t.Errorf("at 360px the advisor's table is %dpx wide in a %dpx panel: it scrolls sideways", w[0], w[1])
	}
	b.emulate(0, 0, false, "")
	b.open("/decks/" + es.ID + "/settings")

	// Twenty weights are refused with a reason, and nothing changes.
	b.fill("#weights", strings.Repeat("1 ", 20))
	b.submit(`form[action="/decks/` + es.ID + `/settings"] button[type="submit"]`)
	if txt := b.text(); !strings.Contains(txt, "weights must be 21 numbers") {
		t.Errorf("20 weights: the page says\n%s", txt)
	}
	if got, _ := decks.GetDeck(ctx, es.ID); got.Settings.Weights[0] != contracts.DefaultWeights[0] {
		t.Errorf("a refused save changed the weights: %v", got.Settings.Weights)
	}
}
