package servers

import (
	"context"
	"fmt"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"

	"github.com/takhtabush/takhtabush/bench/internal/fixture"
	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// Full-stack seed sizes.
const (
	// SessionCards is the number of new cards in each study session
	// submit_review rates (a day's worth at the default review cap).
	SessionCards = 200
	// AddCallsPerDeck is the most add_cards calls one deck receives: the
	// decks add_cards fills stay below 500 cards, as a deck being built
	// by hand or by an agent would be.
	AddCallsPerDeck = 50
	// MaxPreparedCalls caps the calls prepared for each mutating scenario
	// (pending reviews; empty decks × AddCallsPerDeck): the writer's
	// account then holds what 50 days of 200 reviews would leave, however
	// long the run. The harness shares the prepared calls out over the
	// run's phases.
	MaxPreparedCalls = 10_000
	// minCalls is what a scenario is sized for when the run gives no count.
	minCalls = 64
)

// account is a seeded user with an API key of every scope.
type account struct {
	email string
	keyID string
	key   string
	who   contracts.Principal
}

// in returns ctx acting as the account's owner on the command line (a
// local operator, every scope), for the domain services.
func (a account) in(ctx context.Context) context.Context { return contracts.WithPrincipal(ctx, a.who) }

// seeded is what seed made.
type seeded struct {
	app      *apiserver.App
	reader   account // owns the 20 decks list_decks returns
	writer   account // owns the review decks and the deck add_cards fills
	study    scenario.StudyData
	addDecks []string // empty decks add_cards fills, AddCallsPerDeck calls each
}

// seed creates the two accounts and their keys through the operator path
// (App.CreateUser, App.CreateKey: what `takhtabush users create` and
// `takhtabush keys create --scopes <all>` do), then, through the domain
// services: the fixture's 20 decks with a few cards each for the reader;
// for the writer, enough decks of SessionCards new cards, each with a
// study session started on it, that each of up to reviews submit_review
// requests rates a different pending card, and enough empty decks for
// adds add_cards requests (both capped at MaxPreparedCalls).
func seed(ctx context.Context, app *apiserver.App, reviews, adds int) (*seeded, error) {
	sd := &seeded{app: app}
	var err error
	if sd.reader, err = newAccount(ctx, app, "reader@mcpbench.example", "Reader"); err != nil {
		return nil, err
	}
	if sd.writer, err = newAccount(ctx, app, "writer@mcpbench.example", "Writer"); err != nil {
		return nil, err
	}
	if err := sd.seedReader(ctx); err != nil {
		return nil, err
	}
	if err := sd.seedAddDecks(ctx, prepared(adds)); err != nil {
		return nil, err
	}
	return sd, sd.seedStudy(ctx, prepared(reviews))
}

// prepared is how many calls of a mutating scenario to prepare for a run
// that may send calls of them.
func prepared(calls int) int { return min(max(calls, minCalls), MaxPreparedCalls) }

// seedAddDecks creates the empty decks that adds add_cards calls fill.
func (sd *seeded) seedAddDecks(ctx context.Context, adds int) error {
	ctx = sd.writer.in(ctx)
	for k := 0; len(sd.addDecks)*AddCallsPerDeck < adds; k++ {
		d, err := sd.app.Services().Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: fmt.Sprintf("Inbox %05d", k)})
		if err != nil {
			return err
		}
		sd.addDecks = append(sd.addDecks, d.ID)
	}
	return nil
}

// newAccount creates a user and mints a key with every scope.
func newAccount(ctx context.Context, app *apiserver.App, email, name string) (account, error) {
	u, err := app.CreateUser(ctx, email, name)
	if err != nil {
		return account{}, err
	}
	k, err := app.CreateKey(ctx, email, "mcpbench", contracts.AllScopes, 0)
	if err != nil {
		return account{}, err
	}
	p := contracts.Principal{UserID: u.ID, Scopes: contracts.AllScopes, CredentialKind: contracts.CredentialLocal}
	return account{email: email, keyID: k.Key.ID, key: k.Secret, who: p}, nil
}

// seedReader creates the fixture's decks, oldest first, with
// scenario.ReaderDeckCards cards each.
func (sd *seeded) seedReader(ctx context.Context) error {
	svc, ctx := sd.app.Services(), sd.reader.in(ctx)
	for i, d := range fixture.Decks() {
		deck, err := svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: d.Name, Description: d.Description})
		if err != nil {
			return err
		}
		if _, err := addNew(ctx, sd.app, deck.ID, fmt.Sprintf("deck %d", i), scenario.ReaderDeckCards(i)); err != nil {
			return err
		}
	}
	return nil
}

// seedStudy makes at least reviews pending (session, card) pairs: decks of
// SessionCards new cards, each with one session queueing all of them.
func (sd *seeded) seedStudy(ctx context.Context, reviews int) error {
	svc, ctx := sd.app.Services(), sd.writer.in(ctx)
	perDay := SessionCards
	for k := 0; sd.study.Pairs() < reviews; k++ {
		deck, err := svc.Decks.CreateDeck(ctx, contracts.CreateDeckArgs{Name: fmt.Sprintf("Review %05d", k), NewCardsPerDay: &perDay})
		if err != nil {
			return err
		}
		ids, err := addNew(ctx, sd.app, deck.ID, fmt.Sprintf("review deck %d", k), SessionCards)
		if err != nil {
			return err
		}
		s, err := svc.Study.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: deck.ID})
		if err != nil {
			return err
		}
		if s.Remaining != len(ids) {
			return fmt.Errorf("session on %s queues %d cards, want %d", deck.Name, s.Remaining, len(ids))
		}
		if s.Current == nil || s.Current.CardID != ids[0] || s.Current.Position != 0 {
			return fmt.Errorf("session on %s does not queue its new cards in the order they were added", deck.Name)
		}
		sd.study.Sessions = append(sd.study.Sessions, scenario.StudySet{SessionID: s.ID, CardIDs: ids})
	}
	return nil
}

// addNew adds n distinct cards to a deck and returns their ids.
func addNew(ctx context.Context, app *apiserver.App, deckID, label string, n int) ([]string, error) {
	cards := make([]contracts.NewCard, n)
	for i := range cards {
		cards[i] = contracts.NewCard{
			Front: fmt.Sprintf("Seed card %d of %s: كتاب", i, label),
			Back:  fmt.Sprintf("book (%d)", i),
			Tags:  []string{"seed"},
		}
	}
	res, err := app.Services().Cards.AddCards(ctx, contracts.AddCardsArgs{DeckID: deckID, Cards: cards})
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, n)
	for _, it := range res.Items {
		if it.Status != contracts.OutcomeCreated {
			return nil, fmt.Errorf("seeding %s: item %d %s %s", label, it.Index, it.Status, it.Reason)
		}
		ids = append(ids, it.ID)
	}
	return ids, nil
}
