package sqlstore

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// cardCols are the columns scanCard reads, in order, from the cards row aliased c.
const cardCols = `c.id, c.deck_id, c.front, c.back, c.tags, c.suspended, c.phase, c.due, c.stability, c.difficulty,
c.scheduled_days, c.reps, c.lapses, c.step, c.last_review, c.hash, c.version, c.created_at, c.updated_at, c.note_id, c.ord,
c.buried_until, c.flag, c.home_deck_id`

// insertCols are the columns InsertCards writes, one placeholder each.
const insertCols = `id, user_id, deck_id, front, back, tags, suspended, phase, due, stability, difficulty,
scheduled_days, reps, lapses, step, last_review, hash, version, created_at, updated_at, note_id, ord`

const insertColCount = 22

// insertBatchSizes are the row counts of the multi-row INSERTs of cards
// beyond the first 15 rows, largest first (22 placeholders a row): a batch
// is cut into as many of each as fit, and the rest (0–15 rows) goes in one
// more statement. So a call runs few statements and their texts take at
// most 18 shapes, each prepared once per connection (prepared batch
// inserts, issue 12).
var insertBatchSizes = []int{256, 64, 16}

// batches cuts cards into insertBatchSizes pieces and a remainder.
func batches[T any](vs []T) [][]T {
	var out [][]T
	for _, n := range insertBatchSizes {
		for len(vs) >= n {
			out = append(out, vs[:n])
			vs = vs[n:]
		}
	}
	if len(vs) > 0 {
		out = append(out, vs)
	}
	return out
}

// scanCard reads one row of cardCols.
func scanCard(sc interface{ Scan(...any) error }) (ports.CardRow, error) {
	var d cardDest
	if err := sc.Scan(d.dest()...); err != nil {
		return ports.CardRow{}, err
	}
	return d.row()
}

// cardDest holds the scan targets of cardCols, for a query that reads a
// card beside other columns: scan into dest, then convert with row.
type cardDest struct {
	c                     ports.CardRow
	tags, phase           string
	due, created, updated int64
	last, ord, buried     sql.NullInt64
	note, home            sql.NullString
}

// dest returns the targets of cardCols, in order.
func (d *cardDest) dest() []any {
	c := &d.c
	return []any{&c.ID, &c.DeckID, &c.Front, &c.Back, &d.tags, &c.Suspended, &d.phase, &d.due, &c.State.Stability, &c.State.Difficulty,
		&c.State.ScheduledDays, &c.State.Reps, &c.State.Lapses, &c.State.Step, &d.last, &c.Hash, &c.Version, &d.created, &d.updated, &d.note, &d.ord,
		&d.buried, &c.Flag, &d.home}
}

// row converts what was scanned into the card.
func (d *cardDest) row() (ports.CardRow, error) {
	c := d.c
	var err error
	c.NoteID, c.Ord, c.HomeDeckID = d.note.String, int(d.ord.Int64), d.home.String
	if c.Tags, err = parseStrings(d.tags); err != nil {
		return c, err
	}
	c.State.Phase = contracts.Phase(d.phase)
	c.State.Due = fromMs(d.due)
	c.State.LastReview = fromNullMs(d.last)
	c.BuriedUntil = fromNullMs(d.buried)
	c.CreatedAt, c.UpdatedAt = fromMs(d.created), fromMs(d.updated)
	return c, nil
}

// scanCards reads every row of cardCols.
func (h *handle) scanCards(ctx context.Context, op, query string, a ...any) ([]ports.CardRow, error) {
	rows, err := h.q.QueryContext(ctx, query, a...)
	if err != nil {
		return nil, h.s.wrap(ctx, err, op)
	}
	defer rows.Close()
	out := []ports.CardRow{}
	for rows.Next() {
		c, err := scanCard(rows)
		if err != nil {
			return nil, h.s.wrap(ctx, err, op)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, h.s.wrap(ctx, err, op)
	}
	return out, nil
}

// InsertCards inserts cards with Version 1. Not found when a card's deck is
// not the user's; conflict when a hash already exists in its deck (or
// twice in the batch). Nothing is inserted on failure.
func (s cardStore) InsertCards(ctx context.Context, userID string, cards []ports.CardRow) error {
	if len(cards) == 0 {
		return nil
	}
	if !s.inTx {
		return s.s.runTx(ctx, func(h *handle) error { return h.insertCards(ctx, userID, cards) })
	}
	return s.insertCards(ctx, userID, cards)
}

// insertCards is InsertCards in a transaction, without a savepoint: the
// decks are checked (and, on Postgres, locked against deletion) first,
// and a row whose hash or id already exists is skipped instead of failing
// the statement (ON CONFLICT DO NOTHING), so no expected failure can
// abort the caller's transaction; when a row was skipped, the rows
// inserted are deleted again and the call fails with conflict.
func (h *handle) insertCards(ctx context.Context, userID string, cards []ports.CardRow) error {
	inserted, err := h.insertSkipping(ctx, userID, cards)
	if err != nil || len(inserted) == len(cards) {
		return err
	}
	for _, chunk := range chunks(inserted, inChunk) {
		var a args
		q := `DELETE FROM cards WHERE user_id = ` + a.add(userID) + ` AND id IN (` + list(&a, chunk) + `)`
		if _, err := h.exec(ctx, q, a...); err != nil {
			return h.s.wrap(ctx, err, "insert cards")
		}
	}
	return contracts.Errorf(contracts.KindConflict, "a card with the same content already exists in the deck")
}

// InsertNewCards inserts the cards whose hash is not in their deck yet
// (see ports) and returns the indexes of those it skipped.
func (s cardStore) InsertNewCards(ctx context.Context, userID string, cards []ports.CardRow) ([]int, error) {
	if len(cards) == 0 {
		return nil, nil
	}
	var inserted []string
	err := s.atomicIfOutside(ctx, func(h *handle) error {
		var err error
		inserted, err = h.insertSkipping(ctx, userID, cards)
		return err
	})
	if err != nil {
		return nil, err
	}
	in := make(map[string]bool, len(inserted))
	for _, id := range inserted {
		in[id] = true
	}
	var skipped []int
	for i, c := range cards {
		if !in[c.ID] {
			skipped = append(skipped, i)
		}
	}
	return skipped, nil
}

// atomicIfOutside runs fn in a transaction of its own outside one, and
// on h's transaction (without a savepoint) inside one.
func (h *handle) atomicIfOutside(ctx context.Context, fn func(h *handle) error) error {
	if !h.inTx {
		return h.s.runTx(ctx, fn)
	}
	return fn(h)
}

// insertSkipping checks the decks (and, on Postgres, locks them against
// deletion), inserts the cards with ON CONFLICT DO NOTHING, so that no
// expected failure can abort the caller's transaction, and returns the
// ids inserted.
func (h *handle) insertSkipping(ctx context.Context, userID string, cards []ports.CardRow) ([]string, error) {
	if err := h.checkDecks(ctx, userID, cards); err != nil {
		return nil, err
	}
	inserted := make([]string, 0, len(cards))
	var b strings.Builder
	for _, chunk := range batches(cards) {
		b.Reset()
		b.WriteString(`INSERT INTO cards (` + insertCols + `) VALUES `)
		a := make(args, 0, len(chunk)*insertColCount)
		for i, c := range chunk {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('(')
			b.WriteString(seq(&a, h.s.d, []any{c.ID, userID, c.DeckID, c.Front, c.Back, stringsJSON(c.Tags), c.Suspended,
				string(c.State.Phase), ms(c.State.Due), c.State.Stability, c.State.Difficulty, c.State.ScheduledDays,
				c.State.Reps, c.State.Lapses, c.State.Step, msPtr(c.State.LastReview), c.Hash, int64(1),
				ms(c.CreatedAt), ms(c.UpdatedAt), nullString(c.NoteID), nullOrd(c.NoteID, c.Ord)}))
			b.WriteByte(')')
		}
		b.WriteString(` ON CONFLICT DO NOTHING RETURNING id`)
		if err := h.collect(ctx, b.String(), a, &inserted); err != nil {
			return nil, h.fail(ctx, err, "insert cards", failMsgs{
				unique: "a card with the same content already exists in the deck",
				fk:     "deck not found",
			})
		}
	}
	return inserted, nil
}

// collect runs a bulk statement returning ids and appends them to ids.
func (h *handle) collect(ctx context.Context, q string, a args, ids *[]string) error {
	rows, err := h.queryBulk(ctx, q, a...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		*ids = append(*ids, id)
	}
	return rows.Err()
}

// nullString is NULL for "".
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullOrd is a card's ord, NULL for a card without a note.
func nullOrd(noteID string, ord int) any {
	if noteID == "" {
		return nil
	}
	return int64(ord)
}

// checkDecks fails not found unless every card's deck is the user's.
func (h *handle) checkDecks(ctx context.Context, userID string, cards []ports.CardRow) error {
	ids := make([]string, len(cards))
	for i, c := range cards {
		ids[i] = c.DeckID
	}
	ids = dedupe(ids)
	var a args
	user, in := a.add(userID), list(&a, ids)
	q := `SELECT COUNT(*) FROM decks WHERE user_id = ` + user + ` AND id IN (` + in + `)`
	if l, ok := h.s.d.(ShareLocker); ok && h.inTx {
		// Count through a locking subquery: a concurrent delete of a
		// deck waits for this transaction instead of breaking its insert.
		q = `SELECT COUNT(*) FROM (SELECT id FROM decks WHERE user_id = ` + user + ` AND id IN (` + in + `)` + l.ShareLock() + `) locked`
	}
	var n int
	if err := h.q.QueryRowContext(ctx, q, a...).Scan(&n); err != nil {
		return h.s.wrap(ctx, err, "check decks")
	}
	if n != len(ids) {
		return notFound("deck")
	}
	return nil
}

// HashesInDeck maps each given hash present in the deck to its card's id.
func (s cardStore) HashesInDeck(ctx context.Context, userID, deckID string, hashes []string) (map[string]string, error) {
	out := make(map[string]string, len(hashes))
	for _, chunk := range chunks(dedupe(hashes), inChunk) {
		var a args
		q := `SELECT hash, id FROM cards WHERE user_id = ` + a.add(userID) + ` AND deck_id = ` + a.add(deckID) +
			` AND hash IN (` + list(&a, chunk) + `)`
		rows, err := s.q.QueryContext(ctx, q, a...)
		if err != nil {
			return nil, s.s.wrap(ctx, err, "find hashes")
		}
		for rows.Next() {
			var hash, id string
			if err := rows.Scan(&hash, &id); err != nil {
				rows.Close()
				return nil, s.s.wrap(ctx, err, "find hashes")
			}
			out[hash] = id
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, s.s.wrap(ctx, err, "find hashes")
		}
	}
	return out, nil
}

// GetCards returns the user's cards with the given ids that exist.
func (s cardStore) GetCards(ctx context.Context, userID string, ids []string) ([]ports.CardRow, error) {
	out := []ports.CardRow{}
	for _, chunk := range chunks(dedupe(ids), inChunk) {
		var a args
		q := `SELECT ` + cardCols + ` FROM cards c WHERE c.user_id = ` + a.add(userID) + ` AND c.id IN (` + list(&a, chunk) + `)`
		cards, err := s.scanCards(ctx, "get cards", q, a...)
		if err != nil {
			return nil, err
		}
		out = append(out, cards...)
	}
	return out, nil
}

// UpdateCard stores deck, front, back, tags, suspension, flag, hash and
// UpdatedAt when the stored version equals c.Version, and bumps it. A
// card moved to another deck takes its review log with it and is at home
// there (a filtered deck's card moved elsewhere leaves it for good); a
// card a filtered deck holds, edited in place, keeps its home and its
// review log stays there. Not found when
// the card or the target deck is absent; conflict when the version moved
// or the hash exists in the target deck.
func (s cardStore) UpdateCard(ctx context.Context, userID string, c ports.CardRow) error {
	return s.atomic(ctx, func(h *handle) error {
		res, err := h.exec(ctx, `UPDATE cards SET home_deck_id = CASE WHEN deck_id = $3 THEN home_deck_id END,
deck_id = $3, front = $4, back = $5, tags = $6, suspended = $7, hash = $8,
updated_at = $9, flag = $11, version = version + 1 WHERE user_id = $1 AND id = $2 AND version = $10`,
			userID, c.ID, c.DeckID, c.Front, c.Back, stringsJSON(c.Tags), c.Suspended, c.Hash, ms(c.UpdatedAt), c.Version, c.Flag)
		if err != nil {
			return h.fail(ctx, err, "update card", failMsgs{
				unique: "a card with the same content already exists in the target deck",
				fk:     "deck not found",
			})
		}
		n, err := h.affected(ctx, res, nil, "update card")
		if err != nil {
			return err
		}
		if n == 0 {
			return h.versionMiss(ctx, userID, c.ID)
		}
		// Reviews belong to the card's home: an edit of a card a filtered
		// deck holds (its home kept) moves none.
		_, err = h.exec(ctx, `UPDATE review_logs SET deck_id = $3 WHERE user_id = $1 AND card_id = $2 AND deck_id <> $3
AND NOT EXISTS (SELECT 1 FROM cards WHERE user_id = $1 AND id = $2 AND home_deck_id IS NOT NULL)`,
			userID, c.ID, c.DeckID)
		return h.s.wrap(ctx, err, "move reviews")
	})
}

// versionMiss explains an update that matched no row: not found or conflict.
func (h *handle) versionMiss(ctx context.Context, userID, cardID string) error {
	ok, err := h.exists(ctx, "find card", `SELECT 1 FROM cards WHERE user_id = $1 AND id = $2`, userID, cardID)
	if err != nil {
		return err
	}
	if !ok {
		return notFound("card")
	}
	return contracts.Errorf(contracts.KindConflict, "the card changed since it was read; reload it and retry")
}

// UpdateState stores a new schedule when the stored version equals
// version, and bumps it. Not found when absent; conflict when the version
// moved (a concurrent review won).
func (s cardStore) UpdateState(ctx context.Context, userID, cardID string, version int64, st contracts.CardState, updatedAt time.Time) error {
	res, err := s.exec(ctx, `UPDATE cards SET phase = $3, due = $4, stability = $5, difficulty = $6, scheduled_days = $7,
reps = $8, lapses = $9, step = $10, last_review = $11, updated_at = $12, version = version + 1
WHERE user_id = $1 AND id = $2 AND version = $13`,
		userID, cardID, string(st.Phase), ms(st.Due), st.Stability, st.Difficulty, st.ScheduledDays,
		st.Reps, st.Lapses, st.Step, msPtr(st.LastReview), ms(updatedAt), version)
	n, err := s.affected(ctx, res, err, "update card state")
	if err != nil {
		return err
	}
	if n == 0 {
		return s.versionMiss(ctx, userID, cardID)
	}
	return nil
}

// TrashCards moves the user's cards with the given ids, with their
// reviews, to the trash and deletes them and their queue entries, and
// returns the ids moved in input order.
func (s cardStore) TrashCards(ctx context.Context, userID string, ids []string, at time.Time) ([]string, error) {
	ids = dedupe(ids)
	deleted := map[string]bool{}
	err := s.atomic(ctx, func(h *handle) error {
		for _, chunk := range chunks(ids, inChunk) {
			var a args
			where := `user_id = ` + a.add(userID) + ` AND id IN (` + list(&a, chunk) + `)`
			if _, err := h.trashCardsWhere(ctx, where, slices.Clone(a), "", at); err != nil {
				return err
			}
			rows, err := h.q.QueryContext(ctx, `DELETE FROM cards WHERE `+where+` RETURNING id`, a...)
			if err != nil {
				return h.s.wrap(ctx, err, "delete cards")
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return h.s.wrap(ctx, err, "delete cards")
				}
				deleted[id] = true
			}
			err = rows.Err()
			rows.Close()
			if err != nil {
				return h.s.wrap(ctx, err, "delete cards")
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(deleted))
	for _, id := range ids {
		if deleted[id] {
			out = append(out, id)
		}
	}
	return out, nil
}
