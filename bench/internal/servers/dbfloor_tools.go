package servers

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/domain/study"
)

// listDecks answers list_decks: one read.
func (f *dbFloor) listDecks(ctx context.Context, p principal) (contracts.DeckPage, error) {
	if err := p.may(contracts.ToolListDecks); err != nil {
		return contracts.DeckPage{}, err
	}
	const limit = library.DefaultDeckPage
	st, err := f.stmt(ctx, sqlListDecks)
	if err != nil {
		return contracts.DeckPage{}, err
	}
	rows, err := st.QueryContext(ctx, p.userID, time.Now().UnixMilli(), limit+1)
	if err != nil {
		return contracts.DeckPage{}, err
	}
	defer rows.Close()
	page := contracts.DeckPage{Items: make([]contracts.Deck, 0, 32)}
	for rows.Next() {
		var (
			d                contracts.Deck
			settings         string
			presetID, preset sql.NullString
			created, updated int64
		)
		c := &d.Counts
		if err := rows.Scan(&d.ID, &d.Name, &d.Description, &settings, &presetID, &preset, &created, &updated,
			&c.Total, &c.New, &c.Learning, &c.Review, &c.Suspended, &c.DueNow); err != nil {
			return contracts.DeckPage{}, err
		}
		if d.Settings, err = f.deckSettings(settings, presetID, preset); err != nil {
			return contracts.DeckPage{}, err
		}
		d.CreatedAt, d.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
		page.Items = append(page.Items, d)
	}
	if err := rows.Err(); err != nil {
		return contracts.DeckPage{}, err
	}
	if len(page.Items) > limit {
		page.Items = page.Items[:limit]
		page.NextCursor = page.Items[limit-1].ID // (the service encodes its cursors; the benchmark reads one page)
	}
	return page, nil
}

// settingsKey is what a deck's answered settings are made of.
type settingsKey struct{ deck, presetID, preset string }

// deckSettings returns a deck's settings as list_decks answers them: its
// own with its preset's scheduling fields over them and the defaults for
// what neither sets. Decoding the JSON costs more than reading the row,
// so, as the service does, what the same texts make is remembered (by
// content: a changed setting is a new text); the answer only reads it.
func (f *dbFloor) deckSettings(deck string, presetID, preset sql.NullString) (contracts.DeckSettings, error) {
	k := settingsKey{deck: deck}
	if presetID.Valid && preset.Valid {
		k.presetID, k.preset = presetID.String, preset.String
	}
	if v, ok := f.settings.Load(k); ok {
		return v.(contracts.DeckSettings), nil
	}
	var set contracts.DeckSettings
	if err := json.Unmarshal([]byte(deck), &set); err != nil {
		return set, err
	}
	if k.presetID != "" { // the preset's scheduling fields over the deck's own
		pr := contracts.Preset{ID: k.presetID}
		if err := json.Unmarshal([]byte(k.preset), &pr.Settings); err != nil {
			return set, err
		}
		set = set.WithPreset(pr)
	}
	set = set.WithDefaults() // steps and weights left unset are the defaults, as the answer states them
	f.settings.Store(k, set)
	return set, nil
}

// submitReview answers submit_review in one transaction: read, charge
// the daily quota, (lock the deck and count today's reviews against its
// daily limits), mark the item, update the card, append the log,
// (requeue), read the progress, write the audit row.
func (f *dbFloor) submitReview(ctx context.Context, p principal, op string, reqID, raw json.RawMessage) (contracts.ReviewResult, error) {
	if err := p.may(contracts.ToolSubmitReview); err != nil {
		return contracts.ReviewResult{}, err
	}
	var args contracts.SubmitReviewArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return contracts.ReviewResult{}, err
	}
	out := contracts.ReviewResult{SessionID: args.SessionID, CardID: args.CardID, Rating: args.Rating}
	err := f.writeTx(ctx, func(tx *sql.Tx) error {
		now := time.Now().UTC().Truncate(time.Millisecond)
		var (
			pos                   int
			deckID, settings      string
			preset                sql.NullString
			phase                 string
			st                    contracts.CardState
			suspended             bool
			due, expires, version int64
			last                  sql.NullInt64
			tz                    sql.NullString
			rollover, ahead       sql.NullInt64
			acctNew, acctReviews  sql.NullInt64
		)
		err := f.in(ctx, tx, sqlReviewTarget).QueryRowContext(ctx, args.SessionID, args.CardID, p.userID, now.UnixMilli()).Scan(
			&pos, &deckID, &suspended, &phase, &due, &st.Stability, &st.Difficulty, &st.ScheduledDays,
			&st.Reps, &st.Lapses, &st.Step, &last, &version, &settings, &preset, &expires,
			&tz, &rollover, &ahead, &acctNew, &acctReviews)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("card %s is not waiting in session %s", args.CardID, args.SessionID)
		}
		if err != nil {
			return err
		}
		if args.Position != nil && *args.Position != pos {
			return fmt.Errorf("card %s at position %d was already rated", args.CardID, *args.Position)
		}
		st.Phase, st.Due = contracts.Phase(phase), time.UnixMilli(due).UTC()
		if last.Valid {
			t := time.UnixMilli(last.Int64).UTC()
			st.LastReview = &t
		}
		acct := contracts.DefaultAccountSettings()
		if tz.Valid {
			acct.Timezone, acct.RolloverHour, acct.LearnAheadMinutes = tz.String, int(rollover.Int64), int(ahead.Int64)
			acct.NewCardsPerDay, acct.ReviewsPerDay = int(acctNew.Int64), int(acctReviews.Int64)
		}
		day := contracts.NewLearnerDay(acct)
		var ds contracts.DeckSettings
		if err := json.Unmarshal([]byte(settings), &ds); err != nil {
			return err
		}
		if preset.Valid {
			var pr contracts.Preset
			if err := json.Unmarshal([]byte(preset.String), &pr.Settings); err != nil {
				return err
			}
			ds = ds.WithPreset(pr)
		}
		var writes int
		err = f.in(ctx, tx, sqlChargeWrites).QueryRowContext(ctx, p.userID, day.DateString(now), 1, benchDailyWrites).Scan(&writes)
		if errors.Is(err, sql.ErrNoRows) {
			return errors.New("daily write quota reached")
		}
		if err != nil {
			return err
		}
		if acct.NewCardsPerDay > 0 || acct.ReviewsPerDay > 0 {
			return errors.New("dbfloor: account-wide daily caps are not mirrored (the benchmark sets none)")
		}
		if st.Phase == contracts.PhaseNew || st.Phase == contracts.PhaseReview {
			if err := one(f.in(ctx, tx, sqlLockDeck).ExecContext(ctx, p.userID, deckID)); err != nil {
				return err
			}
			var doneNew, doneReview int
			if err := f.in(ctx, tx, sqlStudiedToday).QueryRowContext(ctx, p.userID, deckID, day.Start(now).UnixMilli()).Scan(&doneNew, &doneReview); err != nil {
				return err
			}
			leftNew, leftReview := ds.NewCardsPerDay-doneNew, ds.ReviewsPerDay-doneReview-doneNew
			if (st.Phase == contracts.PhaseNew && min(leftNew, leftReview) <= 0) || (st.Phase == contracts.PhaseReview && leftReview <= 0) {
				return errors.New("today's limit for this deck was reached")
			}
		}
		next, err := f.sched.ReviewOn(st, ds, day, now, args.Rating)
		if err != nil {
			return err
		}
		if err := one(f.in(ctx, tx, sqlMarkItem).ExecContext(ctx, now.UnixMilli(), args.SessionID, pos)); err != nil {
			return err
		}
		var lastMs any
		if next.LastReview != nil {
			lastMs = next.LastReview.UnixMilli()
		}
		if err := one(f.in(ctx, tx, sqlUpdateCard).ExecContext(ctx, string(next.Phase), next.Due.UnixMilli(), next.Stability, next.Difficulty,
			next.ScheduledDays, next.Reps, next.Lapses, next.Step, lastMs, now.UnixMilli(), p.userID, args.CardID, version)); err != nil {
			return err
		}
		prev, err := json.Marshal(st)
		if err != nil {
			return err
		}
		if _, err := f.in(ctx, tx, sqlInsertReview).ExecContext(ctx, f.ids.NewID(), p.userID, args.CardID, deckID, args.SessionID,
			string(args.Rating), phase, string(next.Phase), next.Due.UnixMilli(), next.Stability, next.Difficulty,
			next.ScheduledDays, next.Reps, next.Lapses, next.Step, lastMs, now.UnixMilli(), args.DurationMs,
			int(day.Date(now).Unix()/86400), st.ScheduledDays, string(prev), op, p.keyID, version+1); err != nil {
			return err
		}
		if next.Due.Before(now.Add(study.RequeueWindow)) && next.Due.UnixMilli() < expires && !suspended {
			if _, err := f.in(ctx, tx, sqlRequeue).ExecContext(ctx, args.SessionID, p.userID, args.CardID); err != nil {
				return err
			}
		}
		var (
			npos                      sql.NullInt64
			nid, nfront, nback, ntags sql.NullString
			nphase                    sql.NullString
		)
		if err := f.in(ctx, tx, sqlProgress).QueryRowContext(ctx, args.SessionID, p.userID, now.UnixMilli()).Scan(&out.Reviewed, &out.Remaining,
			&npos, &nid, &nfront, &nback, &ntags, &nphase); err != nil {
			return err
		}
		if nid.Valid {
			n := &contracts.StudyCard{CardID: nid.String, Position: int(npos.Int64), Front: nfront.String, Back: nback.String, Phase: contracts.Phase(nphase.String)}
			if err := json.Unmarshal([]byte(ntags.String), &n.Tags); err != nil {
				return err
			}
			out.Next = n
		}
		out.State, out.NextDue, out.Done = next, next.Due, out.Remaining == 0
		out.IntervalHuman = study.HumanInterval(next, now)
		return f.audit(ctx, tx, p, op, contracts.ToolSubmitReview, reqID, raw, []string{args.SessionID, args.CardID})
	})
	return out, err
}

// addCards answers add_cards in one transaction: the daily quota and card
// cap (one upsert), one multi-row insert (ownership, dedupe and insert at
// once), a read of the colliding cards only when some were duplicates,
// and the audit row. The learner's day the quota counts in comes from
// a per-process cache of the account's settings, as in the service.
func (f *dbFloor) addCards(ctx context.Context, p principal, op string, reqID, raw json.RawMessage) (contracts.BulkResult, error) {
	if err := p.may(contracts.ToolAddCards); err != nil {
		return contracts.BulkResult{}, err
	}
	var args contracts.AddCardsArgs
	if err := json.Unmarshal(raw, &args); err != nil {
		return contracts.BulkResult{}, err
	}
	n := len(args.Cards)
	if n == 0 || n > 1000 {
		return contracts.BulkResult{}, errors.New("cards must hold 1 to 1000 cards")
	}
	now := time.Now().UnixMilli()
	ids := make([]string, n)
	hashes := make([]string, n)
	params := make([]any, 0, n*insertCardsCols)
	for i, c := range args.Cards {
		if strings.TrimSpace(c.Front) == "" || strings.TrimSpace(c.Back) == "" {
			return contracts.BulkResult{}, fmt.Errorf("card %d needs a front and a back", i)
		}
		tags, err := json.Marshal(nonNil(c.Tags))
		if err != nil {
			return contracts.BulkResult{}, err
		}
		sum := sha256.Sum256([]byte(c.Front + "\x00" + c.Back))
		ids[i], hashes[i] = f.ids.NewID(), hex.EncodeToString(sum[:])
		params = append(params, ids[i], p.userID, args.DeckID, c.Front, c.Back, string(tags), now, hashes[i], now, now)
	}
	if _, err := f.stmt(ctx, f.insertCards(n)); err != nil {
		return contracts.BulkResult{}, err
	}
	res := contracts.BulkResult{DeckID: args.DeckID, Items: make([]contracts.ItemOutcome, n), Counts: map[string]int{}}
	day, err := f.learnerDay(ctx, p.userID)
	if err != nil {
		return contracts.BulkResult{}, err
	}
	err = f.writeTx(ctx, func(tx *sql.Tx) error {
		var writes, held int64
		err := f.in(ctx, tx, sqlChargeCards).QueryRowContext(ctx, p.userID, day.DateString(time.UnixMilli(now)), n, benchDailyWrites).Scan(&writes, &held)
		if errors.Is(err, sql.ErrNoRows) {
			return errors.New("daily write quota reached")
		}
		if err != nil {
			return err
		}
		if held+int64(n) > benchMaxCards {
			return errors.New("card limit reached")
		}
		rows, err := f.in(ctx, tx, f.insertCards(n)).QueryContext(ctx, params...)
		if err != nil {
			return err
		}
		created := make(map[string]bool, n)
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			created[id] = true
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
		affected := make([]string, 0, n+1)
		affected = append(affected, args.DeckID)
		for i := range n {
			it := &res.Items[i]
			it.Index = i
			if created[ids[i]] {
				it.Status, it.ID = contracts.OutcomeCreated, ids[i]
				affected = append(affected, ids[i])
				continue
			}
			it.Status = contracts.OutcomeDuplicate
			var existing, hash string
			if err := f.in(ctx, tx, sqlExistingHashes).QueryRowContext(ctx, p.userID, args.DeckID, hashes[i]).Scan(&existing, &hash); err == nil {
				it.ExistingID = existing
			}
		}
		for _, it := range res.Items {
			res.Counts[string(it.Status)]++
		}
		return f.audit(ctx, tx, p, op, contracts.ToolAddCards, reqID, raw, affected)
	})
	return res, err
}

// insertCardsText caches the multi-row insert's text per row count, so
// the database parses it once per connection like any prepared statement.
var insertCardsText sync.Map // "pg/n" → string

// insertCards returns the insert of n cards in the floor's dialect.
func (f *dbFloor) insertCards(n int) string {
	key := fmt.Sprintf("%v/%d", f.pg, n)
	if q, ok := insertCardsText.Load(key); ok {
		return q.(string)
	}
	var b strings.Builder
	b.WriteString(insertCardsHead)
	k := 0
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for j := range insertCardsCols {
			if j > 0 {
				b.WriteString(", ")
			}
			k++
			if f.pg {
				fmt.Fprintf(&b, "$%d", k)
			} else {
				b.WriteByte('?')
			}
			if j == 5 { // after tags: suspended and phase are constants
				b.WriteString(", FALSE, 'new'")
			}
			if j == 7 { // after hash: the first version
				b.WriteString(", 1")
			}
		}
		b.WriteByte(')')
	}
	b.WriteString(insertCardsTail)
	q, _ := insertCardsText.LoadOrStore(key, b.String())
	return q.(string)
}

// one checks that a conditional write changed exactly one row.
func one(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return errors.New("a concurrent request changed the card or the session first; retry")
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// in returns q, prepared before the transaction began (never on the pool
// while the transaction holds a connection), bound to tx's connection.
func (f *dbFloor) in(ctx context.Context, tx *sql.Tx, q string) *sql.Stmt {
	f.stmtsMu.RLock()
	st, ok := f.stmts[q]
	f.stmtsMu.RUnlock()
	if !ok {
		panic("dbfloor: statement not prepared before its transaction")
	}
	return tx.StmtContext(ctx, st)
}

// dayTTL is how long the floor remembers an account's learner's day, as
// the service does for the daily quota of a write that reads no settings.
const dayTTL = 5 * time.Minute

type floorDay struct {
	day   contracts.LearnerDay
	until time.Time
}

// learnerDay returns the account's learner's day, reading its settings
// (one statement) at most once per dayTTL.
func (f *dbFloor) learnerDay(ctx context.Context, uid string) (contracts.LearnerDay, error) {
	now := time.Now()
	if e, ok := f.days.Load(uid); ok && now.Before(e.(floorDay).until) {
		return e.(floorDay).day, nil
	}
	acct := contracts.DefaultAccountSettings()
	var (
		tz       string
		rollover int
	)
	st, err := f.stmt(ctx, sqlAccountDay)
	if err != nil {
		return contracts.LearnerDay{}, err
	}
	switch err := st.QueryRowContext(ctx, uid).Scan(&tz, &rollover); {
	case err == nil:
		acct.Timezone, acct.RolloverHour = tz, rollover
	case !errors.Is(err, sql.ErrNoRows):
		return contracts.LearnerDay{}, err
	}
	day := contracts.NewLearnerDay(acct)
	f.days.Store(uid, floorDay{day: day, until: now.Add(dayTTL)})
	return day, nil
}
