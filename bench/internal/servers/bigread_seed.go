package servers

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"time"

	"github.com/takhtabush/takhtabush/adapters/postgres"
	"github.com/takhtabush/takhtabush/adapters/sqlite"
	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain"
	"github.com/takhtabush/takhtabush/domain/cardtext"
	"github.com/takhtabush/takhtabush/ports"

	"github.com/takhtabush/takhtabush/bench/internal/scenario"
)

// The big account's search words: bigRare is on one card, bigCommon on
// every bigCommonEvery-th.
const (
	bigRare        = "zyzzyva"
	bigCommon      = "house"
	bigCommonEvery = 4
	bigChunk       = 2000 // rows staged per statement batch
)

// bigWords make the fronts and backs varied text, as a vocabulary deck's.
var bigWords = []string{"water", "bread", "river", "mountain", "window", "garden", "teacher", "market",
	"evening", "morning", "winter", "summer", "letter", "friend", "village", "station", "kitchen",
	"doctor", "forest", "island", "bridge", "street", "school", "office", "animal", "flower", "castle"}

// bulkStore is what seeding needs of the store: the import staging store
// (the bulk insert path package imports use) and transactions.
type bulkStore interface {
	ImportStages() ports.ImportStageStore
	InTx(ctx context.Context, fn func(tx ports.Stores) error) error
	Close() error
}

// openBulk opens a second store on the service's database; on Postgres
// without the service's statement and I/O timeouts (publishing 100,000
// cards in one statement takes longer than a request may).
func openBulk(ctx context.Context, db *benchDB) (bulkStore, error) {
	if db.pg {
		u, err := url.Parse(db.url)
		if err != nil {
			return nil, err
		}
		q := u.Query()
		q.Set("statement_timeout", "0")
		q.Set(postgres.IOTimeoutParam, "10m")
		u.RawQuery = q.Encode()
		return postgres.Open(ctx, u.String(), postgres.WithoutMigrate())
	}
	return sqlite.Open(ctx, filepath.Join(db.dir, "takhtabush.db"), sqlite.WithoutMigrate())
}

// seedBig creates the user and its key through the operator path, five
// decks through the deck service, then stages n cards spread evenly over
// them with a review history and publishes the stage in one transaction,
// as a package import does:
//
//   - 60% in review (1–4 reps, one review log each, stability 1–120 days,
//     last reviewed 0–95 days ago, due from 5 days ago to 90 days ahead,
//     from the start of the due day in the learner's day, as the
//     scheduler sets review cards' due times),
//     3% learning and 1% relearning (due within the hour), the rest new;
//   - 1% of the cards suspended;
//   - every card's front and back are distinct text from a small
//     vocabulary; bigCommon is on every bigCommonEvery-th card and
//     bigRare on one.
//
// The seed is fixed, so every run measures the same account.
func seedBig(ctx context.Context, app *apiserver.App, db *benchDB, n int) (scenario.BigData, string, error) {
	acc, err := newAccount(ctx, app, "big@mcpbench.example", "Big")
	if err != nil {
		return scenario.BigData{}, "", err
	}
	data := scenario.BigData{Cards: n, Rare: bigRare, Common: bigCommon, CommonEvery: bigCommonEvery}
	for k := range BigDecks {
		d, err := app.Services().Decks.CreateDeck(acc.in(ctx), contracts.CreateDeckArgs{Name: fmt.Sprintf("Big deck %d", k+1)})
		if err != nil {
			return data, "", err
		}
		data.DeckIDs = append(data.DeckIDs, d.ID)
	}
	st, err := openBulk(ctx, db)
	if err != nil {
		return data, "", err
	}
	err = stageBig(ctx, st, acc.who.UserID, data)
	if err == nil && db.pg {
		err = settle(ctx, st)
	}
	return data, acc.key, errors.Join(err, st.Close())
}

// settle does on Postgres what autovacuum does within a minute of a bulk
// change (a server may run with it off, as the CI machine's does): it
// gathers the planner's statistics of the 100,000 new cards and their
// logs and marks the pages all-visible. Without it the planner sizes the
// cards table as empty, and a measured read would cost what a database
// that had never been analyzed costs.
func settle(ctx context.Context, st bulkStore) error {
	pg, ok := st.(interface{ DB() *sql.DB })
	if !ok {
		return errors.New("the Postgres store has no DB")
	}
	_, err := pg.DB().ExecContext(ctx, "VACUUM ANALYZE")
	return err
}

// stageBig stages the cards and reviews, publishes them and drops the
// stage, which moves the review logs into the review log, as an import
// does.
func stageBig(ctx context.Context, st bulkStore, uid string, data scenario.BigData) error {
	ids := domain.RandomIDs{}
	now := time.Now().UTC()
	stage := ports.ImportStage{ID: ids.NewID(), UserID: uid}
	stages := st.ImportStages()
	if err := stages.CreateStage(ctx, stage, now); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(12, 3))
	var cards []ports.CardRow
	var logs []ports.ReviewLog
	flush := func(force bool) error {
		if len(cards) >= bigChunk || (force && len(cards) > 0) {
			if err := stages.StageCards(ctx, uid, stage.ID, cards); err != nil {
				return err
			}
			cards = cards[:0]
		}
		if len(logs) >= bigChunk || (force && len(logs) > 0) {
			if err := stages.StageReviews(ctx, uid, stage.ID, logs); err != nil {
				return err
			}
			logs = logs[:0]
		}
		return nil
	}
	for i := range data.Cards {
		c, l := bigCard(rng, ids, uid, data, i, now)
		cards = append(cards, c)
		logs = append(logs, l...)
		if err := flush(false); err != nil {
			return err
		}
	}
	if err := flush(true); err != nil {
		return err
	}
	err := st.InTx(ctx, func(tx ports.Stores) error {
		pub, err := tx.ImportStages().PublishStage(ctx, uid, stage.ID, now)
		if err != nil {
			return err
		}
		if pub.Cards != data.Cards || pub.CardsSkipped != 0 {
			return fmt.Errorf("published %d cards (%d skipped), want %d", pub.Cards, pub.CardsSkipped, data.Cards)
		}
		return nil
	})
	for gone := false; err == nil && !gone; {
		gone, err = stages.DropStage(ctx, stage.ID, 20*bigChunk)
	}
	return err
}

// bigDay is the big account's learner's day: it keeps the default
// settings.
var bigDay = contracts.NewLearnerDay(contracts.DefaultAccountSettings())

// bigCard makes card i with its review logs.
func bigCard(rng *rand.Rand, ids domain.RandomIDs, uid string, data scenario.BigData, i int, now time.Time) (ports.CardRow, []ports.ReviewLog) {
	w := func() string { return bigWords[rng.IntN(len(bigWords))] }
	front := fmt.Sprintf("%s %s %s no. %d", w(), w(), w(), i)
	if i%data.CommonEvery == 0 {
		front += " " + data.Common
	}
	if i == data.Cards/2 {
		front += " " + data.Rare
	}
	back := fmt.Sprintf("the %s of the %s (%d)", w(), w(), i)
	deck := data.DeckIDs[i%len(data.DeckIDs)]
	created := now.Add(-time.Duration(100+rng.IntN(200)) * 24 * time.Hour)
	c := ports.CardRow{Card: contracts.Card{ID: ids.NewID(), DeckID: deck, Front: front, Back: back, Tags: []string{"big"},
		Suspended: rng.IntN(100) == 0, CreatedAt: created, UpdatedAt: created,
		State: contracts.CardState{Phase: contracts.PhaseNew, Due: created}}, Hash: cardtext.Hash(front, back)}
	p := rng.IntN(100)
	if p >= 64 {
		return c, nil
	}
	var s contracts.CardState
	switch {
	case p < 60:
		sched := 1 + rng.IntN(90)
		elapsed := rng.IntN(sched + 6)
		last := now.Add(-time.Duration(elapsed)*24*time.Hour - time.Duration(rng.IntN(3600))*time.Second)
		// As the scheduler does (fsrs dueIn): due from the start of the
		// learner's day sched days after the review's.
		due := bigDay.StartOfDate(bigDay.Date(last).AddDate(0, 0, sched))
		s = contracts.CardState{Phase: contracts.PhaseReview, Due: due,
			Stability: float64(sched) * (0.8 + 0.4*rng.Float64()), Difficulty: 1 + 9*rng.Float64(),
			ScheduledDays: sched, Reps: 1 + rng.IntN(4), Lapses: rng.IntN(2), LastReview: &last}
	default:
		phase := contracts.PhaseLearning
		if p >= 63 {
			phase = contracts.PhaseRelearning
		}
		last := now.Add(-time.Duration(rng.IntN(600)) * time.Second)
		s = contracts.CardState{Phase: phase, Due: last.Add(10 * time.Minute), Stability: 0.5 + rng.Float64(),
			Difficulty: 3 + 5*rng.Float64(), Reps: 1, LastReview: &last}
	}
	c.State = s
	logs := make([]ports.ReviewLog, 0, s.Reps)
	at := *s.LastReview
	for k := s.Reps - 1; k >= 0; k-- {
		rating, prev := contracts.RatingGood, contracts.PhaseReview
		if rng.IntN(10) == 0 {
			rating = contracts.RatingAgain
		}
		if k == 0 {
			prev = contracts.PhaseNew
		}
		when := at.Add(-time.Duration(k*max(1, s.ScheduledDays/2)) * 24 * time.Hour)
		logs = append(logs, ports.ReviewLog{ID: ids.NewID(), UserID: uid, CardID: c.ID, DeckID: deck,
			Rating: rating, PrevPhase: prev, State: s, ReviewedAt: when, DurationMs: 3000 + rng.IntN(9000),
			Kind: ports.ReviewKindReview, Day: int(when.Unix() / 86400), PrevInterval: s.ScheduledDays / 2})
	}
	return c, logs
}
