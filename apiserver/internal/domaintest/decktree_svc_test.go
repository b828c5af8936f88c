package domain_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
)

// Issue 27 §4, the deck tree's names: Parent::Child levels follow one
// rule (each trimmed, none empty), and renaming or moving a deck moves
// the decks below it; a deck cannot move below itself, and a move that
// would give a deck below another deck's name changes nothing.
func TestDeckTreeNames(t *testing.T) { eachStore(t, testDeckTreeNames) }

func testDeckTreeNames(t *testing.T, store string) {
	e := newEnv(t, store)
	ctx := e.user("ada@example.com")
	bob := e.user("bob@example.com")
	names := func(c context.Context) []string {
		t.Helper()
		p, err := e.svc.Decks.ListDecks(c, contracts.ListDecksArgs{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range p.Items {
			out = append(out, d.Name)
		}
		slices.Sort(out)
		return out
	}
	lang := e.deck(ctx, "Lang")
	if d := e.deck(ctx, "  Lang ::  Verbs  "); d.Name != "Lang::Verbs" {
		t.Errorf("levels trimmed: %q, want Lang::Verbs", d.Name)
	}
	e.deck(ctx, "Lang::Verbs::Strong")
	e.deck(ctx, "Language") // a prefix of the name, not below it
	e.deck(ctx, "Other::Lang::X")
	e.deck(bob, "Lang::Verbs") // another user's
	for _, bad := range []string{"Lang::", "::Lang", "Lang::::Verbs", "Lang:: ::Verbs"} {
		if _, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: bad}); !contracts.IsKind(err, contracts.KindInvalid) || !strings.Contains(err.Error(), "empty level") {
			t.Errorf("name %q: %v; want invalid, an empty level", bad, err)
		}
	}

	// A rename moves the decks below.
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: lang.ID, Name: ptr("Languages")}); err != nil {
		t.Fatal(err)
	}
	want := []string{"Language", "Languages", "Languages::Verbs", "Languages::Verbs::Strong", "Other::Lang::X"}
	if got := names(ctx); !slices.Equal(got, want) {
		t.Errorf("after renaming Lang to Languages: %v, want %v", got, want)
	}
	if got := names(bob); !slices.Equal(got, []string{"Lang::Verbs"}) {
		t.Errorf("another user's decks: %v", got)
	}
	// A move under another deck.
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: lang.ID, Name: ptr("Other::Languages")}); err != nil {
		t.Fatal(err)
	}
	want = []string{"Language", "Other::Lang::X", "Other::Languages", "Other::Languages::Verbs", "Other::Languages::Verbs::Strong"}
	if got := names(ctx); !slices.Equal(got, want) {
		t.Errorf("after moving under Other: %v, want %v", got, want)
	}
	// Below itself: refused.
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: lang.ID, Name: ptr("Other::Languages::Verbs::Mine")}); !contracts.IsKind(err, contracts.KindInvalid) {
		t.Errorf("a move below itself: %v; want invalid", err)
	}
	// A deck below would take another deck's name: refused, nothing moved.
	e.deck(ctx, "Sprachen::Verbs")
	_, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: lang.ID, Name: ptr("Sprachen")})
	if !contracts.IsKind(err, contracts.KindConflict) {
		t.Errorf("a move onto a taken name below: %v; want conflict", err)
	}
	want = append(want, "Sprachen::Verbs")
	slices.Sort(want)
	if got := names(ctx); !slices.Equal(got, want) {
		t.Errorf("after the refused move: %v, want %v", got, want)
	}
	// A name below that would grow past the limit: refused.
	long := strings.Repeat("x", contracts.MaxDeckNameLen-len("Other::Languages::"))
	if _, err := e.svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: "Other::Languages::" + long}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Decks.UpdateDeck(ctx, contracts.UpdateDeckArgs{DeckID: lang.ID, Name: ptr("Other::Languages2")}); !contracts.IsKind(err, contracts.KindInvalid) {
		t.Errorf("a move making a name below too long: %v; want invalid", err)
	}
}
