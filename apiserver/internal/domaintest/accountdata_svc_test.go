package domain_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/exchange"
	"github.com/takhtabush/takhtabush/domain/library"
)

// fillAccount gives ctx's account a deck with cards, a review, an audit
// event and an uploaded media file; it returns the media id.
func (e *env) fillAccount(ctx context.Context, deckName string) (contracts.Deck, string) {
	e.t.Helper()
	d := e.deck(ctx, deckName)
	e.add(ctx, d.ID, card("Bonjour", "Hello"), card("Merci", "Thank you"))
	s := e.start(ctx, d.ID, nil, nil)
	if s.Current == nil {
		e.t.Fatalf("session %+v has no card", s)
	}
	e.review(ctx, s.ID, s.Current.CardID, contracts.RatingGood)
	if err := e.svc.Audit.Record(ctx, contracts.AuditEvent{ID: domain.RandomIDs{}.NewID(), CredentialKind: contracts.CredentialAPIKey,
		CredentialID: "key-1", Tool: contracts.ToolAddCards, Action: "cards.add", InputSummary: json.RawMessage(`{"deckId":"` + d.ID + `"}`),
		AffectedIDs: []string{d.ID}, Outcome: contracts.AuditOK, At: t0}); err != nil {
		e.t.Fatal(err)
	}
	in, err := e.svc.Media.RequestUpload(ctx, contracts.RequestMediaUploadArgs{ContentType: "image/png", Bytes: int64(len(tinyPNG)), Filename: "cat.png"})
	if err != nil {
		e.t.Fatal(err)
	}
	token, _ := strings.CutPrefix(in.Headers["Authorization"], "Upload ")
	if err := e.svc.Media.AcceptUpload(context.Background(), in.MediaID, token, "image/png", strings.NewReader(tinyPNG)); err != nil {
		e.t.Fatal(err)
	}
	return d, in.MediaID
}

func TestExportAccount(t *testing.T) { eachStore(t, testExportAccount) }

func testExportAccount(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	other := e.user("bob@example.com")
	d, mediaID := e.fillAccount(ctx, "French")
	e.fillAccount(other, "Bob's secret deck")
	if _, err := e.svc.Settings.UpdateSettings(ctx, contracts.UpdateSettingsArgs{Timezone: ptr("Europe/Paris"), RolloverHour: ptr(5)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Keys.CreateKey(ctx, "laptop", []contracts.Scope{contracts.ScopeDecksRead}, 0); err != nil {
		t.Fatal(err)
	}
	// The deck's preset with fitted weights and its own retention, a note,
	// a deck and a card in the trash.
	weights := append([]float64(nil), contracts.DefaultWeights...)
	weights[0] = 0.5
	d, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: d.ID, DesiredRetention: ptr(0.85), Weights: weights})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Notes.AddNotes(ctx, contracts.AddNotesArgs{DeckID: d.ID, Notes: []contracts.NewNote{{NoteType: contracts.NoteTypeBasicReversed,
		Fields: map[string]string{"Front": "le chien", "Back": "the dog"}, Tags: []string{"animals"}}}}); err != nil {
		t.Fatal(err)
	}
	gone := e.add(ctx, d.ID, card("Au revoir", "Goodbye"))
	if _, err := e.svc.Cards.DeleteCards(ctx, contracts.DeleteCardsArgs{CardIDs: []string{gone.Items[0].ID}}); err != nil {
		t.Fatal(err)
	}
	old := e.deck(ctx, "Old Spanish")
	e.add(ctx, old.ID, card("Hola", "Hello"))
	if _, err := e.svc.Decks.DeleteDeck(ctx, contracts.DeleteDeckArgs{DeckID: old.ID}); err != nil {
		t.Fatal(err)
	}

	// An edit keeps a change record (undo_changes), as the deletions
	// above did; the export carries them.
	page, err := e.svc.Cards.SearchCards(ctx, contracts.SearchCardsArgs{DeckID: d.ID, Query: "Bonjour"})
	if err != nil || len(page.Items) == 0 {
		t.Fatalf("search: %v %+v", err, page)
	}
	edited := page.Items[0]
	if _, err := e.svc.Cards.UpdateCards(ctx, contracts.UpdateCardsArgs{Updates: []contracts.CardPatch{{ID: edited.ID, Tags: &[]string{"edited"}}}}); err != nil {
		t.Fatal(err)
	}

	var buf bytes.Buffer
	if err := e.svc.AccountData.Export(ctx, &buf); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatalf("the export is not a zip archive: %v", err)
	}
	files := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[f.Name], _ = io.ReadAll(rc)
		rc.Close()
	}
	var doc struct {
		Format   string                    `json:"format"`
		Version  int                       `json:"version"`
		Account  contracts.User            `json:"account"`
		Exposure map[string]any            `json:"exposure"`
		Settings contracts.AccountSettings `json:"settings"`
		APIKeys  []map[string]any          `json:"apiKeys"`
		Presets  []contracts.Preset        `json:"presets"`
		Decks    []contracts.Deck          `json:"decks"`
		Notes    []exchange.ExportNote     `json:"notes"`
		Cards    []contracts.Card          `json:"cards"`
		Trash    []contracts.TrashItem     `json:"trash"`
		Reviews  []exchange.ExportReview   `json:"reviews"`
		Audit    []contracts.AuditEvent    `json:"audit"`
		Changes  []contracts.ChangeRecord  `json:"changes"`
		Media    []exchange.ExportMedia    `json:"media"`
	}
	raw := files[exchange.ExportJSONName]
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("the export's JSON does not parse: %v\n%s", err, raw)
	}
	if doc.Format != exchange.ExportFormat || doc.Version != 1 || doc.Account.Email != "ada@example.com" {
		t.Errorf("header: %q v%d account %+v", doc.Format, doc.Version, doc.Account)
	}
	if len(doc.Decks) != 1 || doc.Decks[0].ID != d.ID || len(doc.Cards) != 4 || len(doc.Reviews) != 1 || doc.Reviews[0].Rating != contracts.RatingGood ||
		doc.Reviews[0].DurationMs != 4000 || len(doc.Audit) != 3 || doc.Audit[0].Tool != contracts.AuditExportAccount ||
		doc.Audit[1].Tool != contracts.AuditCreateKey || len(doc.Media) != 1 || doc.Media[0].ID != mediaID || doc.Exposure == nil {
		t.Errorf("export contents: %d decks, %d cards, %d reviews, %d audit, %d media, exposure %v",
			len(doc.Decks), len(doc.Cards), len(doc.Reviews), len(doc.Audit), len(doc.Media), doc.Exposure)
	}
	var preset *contracts.Preset
	for i, p := range doc.Presets {
		if p.ID == d.Settings.PresetID {
			preset = &doc.Presets[i]
		}
	}
	if preset == nil || preset.Settings.DesiredRetention != 0.85 || len(preset.Settings.Weights) != 21 || preset.Settings.Weights[0] != 0.5 ||
		preset.Settings.Weights[20] != contracts.DefaultWeights[20] {
		t.Errorf("the deck's preset %q in the export: %+v (all: %+v)", d.Settings.PresetID, preset, doc.Presets)
	}
	if len(doc.Notes) != 1 || doc.Notes[0].NoteType != contracts.NoteTypeBasicReversed || !slices.Equal(doc.Notes[0].Fields, []string{"le chien", "the dog"}) ||
		!slices.Equal(doc.Notes[0].FieldNames, []string{"Front", "Back"}) || !slices.Equal(doc.Notes[0].Tags, []string{"animals"}) || doc.Notes[0].GUID == "" {
		t.Errorf("notes = %+v", doc.Notes)
	} else {
		n := 0
		for _, c := range doc.Cards {
			if c.NoteID == doc.Notes[0].ID {
				n++
			}
		}
		if n != 2 {
			t.Errorf("%d exported cards name the reversed note, want 2", n)
		}
	}
	kinds := map[string]contracts.TrashItem{}
	for _, it := range doc.Trash {
		kinds[it.Kind] = it
		if it.DeletedAt.IsZero() || !it.ExpiresAt.Equal(it.DeletedAt.Add(contracts.TrashTTL)) {
			t.Errorf("trash item %+v: expiresAt is not deletedAt + %d days", it, contracts.TrashDays)
		}
	}
	if len(doc.Trash) != 2 || kinds[contracts.TrashKindDeck].ID != old.ID || kinds[contracts.TrashKindDeck].Cards != 1 ||
		kinds[contracts.TrashKindCard].ID != gone.Items[0].ID || kinds[contracts.TrashKindCard].Front != "Au revoir" {
		t.Errorf("trash = %+v", doc.Trash)
	}
	// The tag edit (newest first), the deletions and the additions.
	byKind := map[contracts.ChangeKind][]contracts.ChangeRecord{}
	for _, c := range doc.Changes {
		byKind[c.Kind] = append(byKind[c.Kind], c)
		if c.OperationID == "" || c.UserID != doc.Account.ID {
			t.Errorf("change record %+v: no operation or another account", c)
		}
	}
	upd, dd, cd := byKind[contracts.ChangeCardUpdate], byKind[contracts.ChangeDeckDelete], byKind[contracts.ChangeCardDelete]
	if len(doc.Changes) == 0 || doc.Changes[0].Kind != contracts.ChangeCardUpdate || len(upd) != 1 || upd[0].ItemID != edited.ID ||
		string(upd[0].Prev) != `{"tags":`+mustJSON(t, edited.Tags)+`}` || len(dd) != 1 || dd[0].ItemID != old.ID ||
		len(cd) != 1 || cd[0].ItemID != gone.Items[0].ID || len(byKind[contracts.ChangeCardAdd]) == 0 {
		t.Errorf("changes = %+v", doc.Changes)
	}
	if doc.Settings.Timezone != "Europe/Paris" || doc.Settings.RolloverHour != 5 {
		t.Errorf("settings = %+v", doc.Settings)
	}
	if len(doc.APIKeys) != 1 || doc.APIKeys[0]["name"] != "laptop" {
		t.Errorf("apiKeys = %v", doc.APIKeys)
	}
	if got := string(files[doc.Media[0].File]); got != tinyPNG {
		t.Errorf("media file %q in the archive holds %q", doc.Media[0].File, got)
	}
	for _, secret := range []string{"Bob's secret deck", "bob@example.com", "\"secret\"", "tokenHash", "hash"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("the export carries %q", secret)
		}
	}

	var sink bytes.Buffer
	wantKind(t, e.svc.AccountData.Export(as(doc.Account.ID, contracts.CredentialAPIKey), &sink), contracts.KindForbidden)
	wantKind(t, e.svc.AccountData.Export(context.Background(), &sink), contracts.KindUnauthenticated)
}

func TestDeleteAccount(t *testing.T) { eachStore(t, testDeleteAccount) }

func testDeleteAccount(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	other := e.user("bob@example.com")
	_, mediaID := e.fillAccount(ctx, "French")
	_, otherMedia := e.fillAccount(other, "German")
	row, err := e.store.Media().MediaByID(context.Background(), mediaID)
	if err != nil {
		t.Fatal(err)
	}
	mediaKey := library.MediaBlobKey(row)
	key, err := e.svc.Keys.CreateKey(ctx, "laptop", []contracts.Scope{contracts.ScopeDecksRead}, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := contracts.PrincipalFrom(ctx)

	// Agents cannot, and a wrong confirmation deletes nothing.
	wantKind(t, e.svc.AccountData.DeleteAccount(as(p.UserID, contracts.CredentialAPIKey), "ada@example.com"), contracts.KindForbidden)
	wantKind(t, e.svc.AccountData.DeleteAccount(ctx, "ada@example.org"), contracts.KindInvalid)
	if _, err := e.svc.Accounts.UserByID(context.Background(), p.UserID); err != nil {
		t.Fatalf("a refused deletion removed the account: %v", err)
	}

	if err := e.svc.AccountData.DeleteAccount(ctx, " Ada@Example.com "); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.Accounts.UserByEmail(context.Background(), "ada@example.com")
	wantKind(t, err, contracts.KindNotFound)
	_, err = e.svc.Keys.Authenticate(context.Background(), key.Secret)
	wantKind(t, err, contracts.KindUnauthenticated)
	if _, err := e.blobKey(mediaKey); !contracts.IsKind(err, contracts.KindNotFound) {
		t.Errorf("the deleted account's media file is still there: %v", err)
	}
	n, err := e.store.Users().CountDeletions(context.Background())
	if err != nil || n != 1 {
		t.Errorf("deletion records = %d, %v; want 1", n, err)
	}

	// The other account keeps everything.
	decks, err := e.svc.Decks.ListDecks(other, contracts.ListDecksArgs{})
	if err != nil || len(decks.Items) != 1 {
		t.Fatalf("the other account's decks: %+v, %v", decks, err)
	}
	if _, err := e.blob(otherMedia); err != nil {
		t.Errorf("the other account's media file: %v", err)
	}
}

// mustJSON encodes v.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
