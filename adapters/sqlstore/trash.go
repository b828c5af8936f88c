package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// The trash keeps rows as they were in their live tables (migration
// 00016): these are the columns copied each way, the same in both.
const (
	trashCardCols = `id, user_id, deck_id, front, back, tags, suspended, phase, due, stability, difficulty,
scheduled_days, reps, lapses, step, last_review, hash, version, created_at, updated_at, note_id, ord`
	trashReviewCols = `id, user_id, card_id, deck_id, session_id, rating, prev_phase, phase, due, stability, difficulty,
scheduled_days, reps, lapses, step, last_review, reviewed_at, duration_ms, day, kind, prev_interval, prev_state,
operation_id, credential_id, card_version`
)

// trashStore is the trash store on one handle.
type trashStore struct{ *handle }

// Trash returns the trash store on h.
func (h *handle) Trash() ports.TrashStore { return trashStore{h} }

// Trash returns the trash store outside any transaction.
func (s *Store) Trash() ports.TrashStore { return s.root.Trash() }

// trashCardsWhere copies the cards matching where (over cards, with its
// arguments in a, the first of them, $1, the user's id) and their review
// logs, those of published import stages too (liveReviews), into the
// trash, deleted at at, and returns how many cards it copied; withDeck
// names the deck they go with ("" for none).
func (h *handle) trashCardsWhere(ctx context.Context, where string, a args, withDeck string, at time.Time) (int, error) {
	cards := `(SELECT id FROM cards WHERE ` + where + `)`
	if _, err := h.exec(ctx, `INSERT INTO trash_review_logs (`+trashReviewCols+`) SELECT `+trashReviewCols+
		` FROM review_logs WHERE card_id IN `+cards+` UNION ALL `+
		stagedReviews("$1", columns(trashReviewCols))+` AND s.card_id IN `+cards, a...); err != nil {
		return 0, h.s.wrap(ctx, err, "trash review logs")
	}
	deck := a.add(nullString(withDeck))
	when := a.add(ms(at))
	res, err := h.exec(ctx, `INSERT INTO trash_cards (`+trashCardCols+`, trash_deck_id, deleted_at) SELECT `+trashCardCols+
		`, `+deck+`, `+when+` FROM cards WHERE `+where, a...)
	n, err := h.affected(ctx, res, err, "trash cards")
	return int(n), err
}

// trashDeckRow copies the user's deck into the trash, deleted at at, with
// its preset's settings as its own (the preset may be gone by the time it
// is restored), and returns its preset's id; not found when absent.
func (h *handle) trashDeckRow(ctx context.Context, userID, deckID string, at time.Time) (preset string, err error) {
	var d contracts.Deck
	err = scanDeck(h.q.QueryRowContext(ctx, `SELECT `+deckCols+deckFrom+`WHERE d.user_id = $1 AND d.id = $2`, userID, deckID), &d)
	if errNoRows(err) {
		return "", notFound("deck")
	}
	if err != nil {
		return "", h.s.wrap(ctx, err, "read deck")
	}
	settings, err := jsonText(stored(d.Settings))
	if err != nil {
		return "", contracts.Internal(err)
	}
	_, err = h.exec(ctx, `INSERT INTO trash_decks (id, user_id, name, description, settings, created_at, updated_at, preset_id, deleted_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, d.ID, userID, d.Name, d.Description, settings, ms(d.CreatedAt), ms(d.UpdatedAt),
		nullString(d.Settings.PresetID), ms(at))
	return d.Settings.PresetID, h.s.wrap(ctx, err, "trash deck")
}

// scanTrashItem reads a ports.TrashItem.
func scanTrashItem(rows *sql.Rows) (ports.TrashItem, error) {
	var it ports.TrashItem
	var kind string
	var at, deckTrashed int64
	err := rows.Scan(&kind, &it.ID, &it.Name, &it.Front, &it.DeckID, &it.Hash, &it.WithDeck, &deckTrashed, &it.Cards, &it.Version, &at)
	it.Kind, it.DeletedAt, it.DeckTrashed = ports.TrashKind(kind), fromMs(at), deckTrashed != 0
	return it, err
}

// The two halves of a trash listing, with the columns scanTrashItem reads;
// $1 is the user.
const (
	trashDecksSelect = `SELECT 'deck' AS kind, t.id, t.name, '' AS front, '' AS deck_id, '' AS hash, '' AS with_deck, 0 AS deck_trashed,
(SELECT COUNT(*) FROM trash_cards c WHERE c.user_id = t.user_id AND c.trash_deck_id = t.id) AS cards, 0 AS version, t.deleted_at
FROM trash_decks t WHERE t.user_id = $1`
	trashCardsSelect = `SELECT 'card' AS kind, c.id, COALESCE(d.name, td.name, '') AS name, c.front, c.deck_id, c.hash,
COALESCE(c.trash_deck_id, '') AS with_deck, CASE WHEN d.id IS NULL AND td.id IS NOT NULL THEN 1 ELSE 0 END AS deck_trashed,
0 AS cards, c.version, c.deleted_at
FROM trash_cards c LEFT JOIN decks d ON d.user_id = c.user_id AND d.id = c.deck_id
LEFT JOIN trash_decks td ON td.user_id = c.user_id AND td.id = c.deck_id WHERE c.user_id = $1`
)

// queryTrash runs a query of trash items.
func (s trashStore) queryTrash(ctx context.Context, op, q string, a ...any) ([]ports.TrashItem, error) {
	rows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, op)
	}
	defer rows.Close()
	out := []ports.TrashItem{}
	for rows.Next() {
		it, err := scanTrashItem(rows)
		if err != nil {
			return nil, s.s.wrap(ctx, err, op)
		}
		out = append(out, it)
	}
	return out, s.s.wrap(ctx, rows.Err(), op)
}

// ListTrash returns a page of the user's trash, newest first.
func (s trashStore) ListTrash(ctx context.Context, userID string, after *ports.TrashCursor, limit int) ([]ports.TrashItem, error) {
	if limit <= 0 {
		return []ports.TrashItem{}, nil
	}
	at, id := int64(math.MaxInt64), ""
	if after != nil {
		at, id = ms(after.DeletedAt), after.ID
	}
	return s.queryTrash(ctx, "list trash", `SELECT kind, id, name, front, deck_id, hash, with_deck, deck_trashed, cards, version, deleted_at FROM (`+
		trashDecksSelect+` UNION ALL `+trashCardsSelect+` AND c.trash_deck_id IS NULL) x
WHERE deleted_at < $2 OR (deleted_at = $2 AND $3 <> '' AND id < $3)
ORDER BY deleted_at DESC, id DESC LIMIT $4`, userID, at, id, limit)
}

// TrashedItems returns the named items of the user's trash.
func (s trashStore) TrashedItems(ctx context.Context, userID string, deckIDs, cardIDs []string) ([]ports.TrashItem, error) {
	out := []ports.TrashItem{}
	for _, part := range []struct {
		sel, col string
		ids      []string
	}{{trashDecksSelect, "t.id", dedupe(deckIDs)}, {trashCardsSelect, "c.id", dedupe(cardIDs)}} {
		for _, chunk := range chunks(part.ids, inChunk) {
			a := args{userID}
			items, err := s.queryTrash(ctx, "read trash", part.sel+` AND `+part.col+` IN (`+list(&a, chunk)+`)`, a...)
			if err != nil {
				return nil, err
			}
			out = append(out, items...)
		}
	}
	return out, nil
}

// RestoreDeck moves a trashed deck back with the cards that went with it.
func (s trashStore) RestoreDeck(ctx context.Context, userID, deckID string) (int, error) {
	var cards int
	err := s.atomic(ctx, func(h *handle) error {
		var d contracts.Deck
		var settings string
		var created, updated int64
		var preset sql.NullString
		err := h.q.QueryRowContext(ctx, `SELECT id, name, description, settings, created_at, updated_at, preset_id
FROM trash_decks WHERE user_id = $1 AND id = $2`, userID, deckID).Scan(&d.ID, &d.Name, &d.Description, &settings, &created, &updated, &preset)
		if errNoRows(err) {
			return notFound("deck")
		}
		if err != nil {
			return h.s.wrap(ctx, err, "read trashed deck")
		}
		var ss storedSettings
		if err := json.Unmarshal([]byte(settings), &ss); err != nil {
			return contracts.Internal(err)
		}
		d.Settings = ss.settings()
		d.CreatedAt, d.UpdatedAt = fromMs(created), fromMs(updated)
		d.Settings.PresetID = ""
		if preset.Valid {
			switch err := h.checkPreset(ctx, userID, preset.String); {
			case err == nil:
				d.Settings.PresetID = preset.String
			case !contracts.IsKind(err, contracts.KindNotFound):
				return err
			}
		}
		if err := (deckStore{h}).CreateDeck(ctx, userID, d); err != nil {
			return err
		}
		ofDeck := `SELECT id FROM trash_cards WHERE user_id = $1 AND trash_deck_id = $2`
		if err := h.restoreWhere(ctx, ofDeck, userID, deckID); err != nil {
			return err
		}
		res, err := h.exec(ctx, `DELETE FROM trash_decks WHERE user_id = $1 AND id = $2`, userID, deckID)
		if _, err := h.affected(ctx, res, err, "delete trashed deck"); err != nil {
			return err
		}
		return h.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM cards WHERE user_id = $1 AND deck_id = $2`, userID, deckID).Scan(&cards)
	})
	return cards, err
}

// restoreWhere moves the trashed cards whose ids the query ids selects
// (over trash_cards, with arguments a), and their review logs, back.
func (h *handle) restoreWhere(ctx context.Context, ids string, a ...any) error {
	_, err := h.exec(ctx, `INSERT INTO cards (`+trashCardCols+`) SELECT `+trashCardCols+` FROM trash_cards WHERE id IN (`+ids+`)`, a...)
	if err != nil {
		return h.fail(ctx, err, "restore cards", failMsgs{unique: "a card with the same front and back is in the deck"})
	}
	for _, q := range []string{
		`INSERT INTO review_logs (` + trashReviewCols + `) SELECT ` + trashReviewCols + ` FROM trash_review_logs WHERE card_id IN (` + ids + `)`,
		`DELETE FROM trash_review_logs WHERE card_id IN (` + ids + `)`,
		`DELETE FROM trash_cards WHERE id IN (` + ids + `)`,
	} {
		if _, err := h.exec(ctx, q, a...); err != nil {
			return h.s.wrap(ctx, err, "restore cards")
		}
	}
	return nil
}

// RestoreCard moves a trashed card back into its live deck.
func (s trashStore) RestoreCard(ctx context.Context, userID, cardID string) error {
	return s.atomic(ctx, func(h *handle) error {
		var deckID string
		err := h.q.QueryRowContext(ctx, `SELECT deck_id FROM trash_cards WHERE user_id = $1 AND id = $2`, userID, cardID).Scan(&deckID)
		if errNoRows(err) {
			return notFound("card")
		}
		if err != nil {
			return h.s.wrap(ctx, err, "read trashed card")
		}
		live, err := h.exists(ctx, "find deck", `SELECT 1 FROM decks WHERE user_id = $1 AND id = $2`, userID, deckID)
		if err != nil {
			return err
		}
		if !live {
			return notFound("deck")
		}
		return h.restoreWhere(ctx, `SELECT id FROM trash_cards WHERE user_id = $1 AND id = $2`, userID, cardID)
	})
}

// PurgeTrash deletes trashed cards (with their reviews), then trashed
// decks none of whose cards is left, deleted before before.
func (s trashStore) PurgeTrash(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	var n int
	err := s.atomic(ctx, func(h *handle) error {
		n = 0
		for _, part := range []struct{ pick, op, table, children string }{
			{`SELECT id FROM trash_cards WHERE deleted_at < $1 ORDER BY deleted_at LIMIT $2`, "purge trashed cards", "trash_cards",
				`DELETE FROM trash_review_logs WHERE card_id IN `},
			{`SELECT id FROM trash_decks t WHERE deleted_at < $1 AND NOT EXISTS
(SELECT 1 FROM trash_cards c WHERE c.user_id = t.user_id AND c.trash_deck_id = t.id) ORDER BY deleted_at LIMIT $2`, "purge trashed decks", "trash_decks", ""},
		} {
			if n >= limit {
				break
			}
			ids, err := h.strings(ctx, part.op, part.pick, ms(before), limit-n)
			if err != nil {
				return err
			}
			for _, chunk := range chunks(ids, inChunk) {
				var a args
				in := `(` + list(&a, chunk) + `)`
				if part.children != "" {
					if _, err := h.exec(ctx, part.children+in, a...); err != nil {
						return h.s.wrap(ctx, err, part.op)
					}
				}
				res, err := h.exec(ctx, `DELETE FROM `+part.table+` WHERE id IN `+in, a...)
				k, err := h.affected(ctx, res, err, part.op)
				if err != nil {
					return err
				}
				n += int(k)
			}
		}
		return nil
	})
	return n, err
}

// strings runs a query of one text column.
func (h *handle) strings(ctx context.Context, op, q string, a ...any) ([]string, error) {
	rows, err := h.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, h.s.wrap(ctx, err, op)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, h.s.wrap(ctx, err, op)
		}
		out = append(out, v)
	}
	return out, h.s.wrap(ctx, rows.Err(), op)
}
