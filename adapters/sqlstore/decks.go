package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
)

// deckCols reads a deck with its preset's settings (FROM deckFrom).
const deckCols = `d.id, d.name, d.description, d.settings, d.created_at, d.updated_at, d.preset_id, p.settings`

// deckFrom joins a deck to its preset.
const deckFrom = ` FROM decks d LEFT JOIN presets p ON p.id = d.preset_id AND p.user_id = d.user_id `

// scanDeck reads one row of deckCols into d: the deck's own settings with
// its preset's fields over them.
func scanDeck(row interface{ Scan(...any) error }, d *contracts.Deck) error {
	var dd deckDest
	if err := row.Scan(dd.dest(d)...); err != nil {
		return err
	}
	return dd.fill(d)
}

// deckDest holds the scan targets of deckCols besides the deck's own
// fields, for a query that reads a deck beside other columns.
type deckDest struct {
	settings         string
	presetID, preset sql.NullString
	created, updated int64
}

// dest returns the targets of deckCols, in order, reading into d.
func (dd *deckDest) dest(d *contracts.Deck) []any {
	return []any{&d.ID, &d.Name, &d.Description, &dd.settings, &dd.created, &dd.updated, &dd.presetID, &dd.preset}
}

// fill completes d from what was scanned: its settings with its preset's
// fields over them, its times.
func (dd *deckDest) fill(d *contracts.Deck) error {
	ss, err := deckSettingsCache.decode(dd.settings)
	if err != nil {
		return err
	}
	d.Settings = ss.settings()
	if dd.presetID.Valid && dd.preset.Valid {
		var p contracts.Preset
		if p.Settings, err = presetSettingsCache.decode(dd.preset.String); err != nil {
			return err
		}
		p.ID = dd.presetID.String
		d.Settings = d.Settings.WithPreset(p)
	}
	d.CreatedAt, d.UpdatedAt = fromMs(dd.created), fromMs(dd.updated)
	return nil
}

// deckSettingsText is the JSON a deck row keeps: with a preset, its
// settings without the preset's fields (the preset holds them).
func deckSettingsText(set contracts.DeckSettings) (string, error) {
	if set.PresetID != "" {
		keep := set
		set = contracts.DeckSettings{NewCardsPerDay: keep.NewCardsPerDay, ReviewsPerDay: keep.ReviewsPerDay,
			ReviewOrder: keep.ReviewOrder, NewOrder: keep.NewOrder}
	}
	set.PresetID = ""
	return jsonText(stored(set))
}

// checkPreset fails not found unless presetID is "" or a preset of the user.
func (h *handle) checkPreset(ctx context.Context, userID, presetID string) error {
	if presetID == "" {
		return nil
	}
	var one int
	err := h.q.QueryRowContext(ctx, `SELECT 1 FROM presets WHERE user_id = $1 AND id = $2`, userID, presetID).Scan(&one)
	if errNoRows(err) {
		return notFound("preset")
	}
	return h.s.wrap(ctx, err, "check preset")
}

// CreateDeck inserts a deck. Conflict when the user has a deck with the
// same name (or the id is taken); not found when the user does not exist.
func (s deckStore) CreateDeck(ctx context.Context, userID string, d contracts.Deck) error {
	settings, err := deckSettingsText(d.Settings)
	if err != nil {
		return contracts.Internal(err)
	}
	// The preset must be the user's; checked in the same statement, and
	// only when nothing was inserted is the reason looked up.
	res, err := s.exec(ctx, `INSERT INTO decks (id, user_id, name, description, settings, created_at, updated_at, preset_id)
SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE CAST($8 AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM presets WHERE user_id = $2 AND id = $8)
ON CONFLICT DO NOTHING`,
		d.ID, userID, d.Name, d.Description, settings, ms(d.CreatedAt), ms(d.UpdatedAt), nullString(d.Settings.PresetID))
	if err != nil {
		return s.fail(ctx, err, "create deck", failMsgs{fk: "user not found"})
	}
	n, err := s.affected(ctx, res, nil, "create deck")
	if err != nil {
		return err
	}
	if n == 0 {
		if err := s.checkPreset(ctx, userID, d.Settings.PresetID); err != nil {
			return err
		}
		return contracts.Errorf(contracts.KindConflict, "a deck named %q already exists", d.Name)
	}
	return nil
}

// GetDeck returns a deck with its counts as of now. Not found when absent.
func (s deckStore) GetDeck(ctx context.Context, userID, deckID string, now time.Time) (contracts.Deck, error) {
	rows, err := s.q.QueryContext(ctx, `SELECT `+deckCols+deckCountCols+deckFrom+deckCountJoin(`SELECT id, name FROM decks WHERE user_id = $1 AND id = $2`, 3)+`WHERE d.user_id = $1 AND d.id = $2`,
		userID, deckID, ms(now))
	if err != nil {
		return contracts.Deck{}, s.s.wrap(ctx, err, "get deck")
	}
	decks, err := s.scanDecks(ctx, rows)
	if err != nil {
		return contracts.Deck{}, err
	}
	if len(decks) == 0 {
		return contracts.Deck{}, notFound("deck")
	}
	return decks[0], nil
}

// DeckWithoutCounts returns a deck with zero Counts: GetDeck without the
// counting over its cards, for hot paths that need only its existence or
// settings (the domain's optional fast path). Not found when absent.
func (s deckStore) DeckWithoutCounts(ctx context.Context, userID, deckID string) (contracts.Deck, error) {
	var d contracts.Deck
	err := scanDeck(s.q.QueryRowContext(ctx, `SELECT `+deckCols+deckFrom+`WHERE d.user_id = $1 AND d.id = $2`, userID, deckID), &d)
	if errNoRows(err) {
		return contracts.Deck{}, notFound("deck")
	}
	if err != nil {
		return contracts.Deck{}, s.s.wrap(ctx, err, "get deck")
	}
	return d, nil
}

// DeckTree returns the deck and the decks below it, filtered decks
// aside, without counts: the deck first, then the others by name.
func (s deckStore) DeckTree(ctx context.Context, userID, deckID string) ([]contracts.Deck, error) {
	rows, err := s.q.QueryContext(ctx, `SELECT `+deckCols+deckFrom+`JOIN decks r ON r.user_id = d.user_id AND r.id = $2
WHERE d.user_id = $1 AND (d.id = r.id OR (substr(d.name, 1, length(r.name) + 2) = r.name || '::'
  AND NOT EXISTS (SELECT 1 FROM filtered_decks f WHERE f.deck_id = d.id)))
ORDER BY CASE WHEN d.id = r.id THEN 0 ELSE 1 END, d.name, d.id`, userID, deckID)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "deck tree")
	}
	defer rows.Close()
	var out []contracts.Deck
	for rows.Next() {
		var d contracts.Deck
		if err := scanDeck(rows, &d); err != nil {
			return nil, s.s.wrap(ctx, err, "deck tree")
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "deck tree")
	}
	if len(out) == 0 {
		return nil, notFound("deck")
	}
	return out, nil
}

// DeckIDByName returns the id of the user's deck named name. Not found
// when absent.
func (s deckStore) DeckIDByName(ctx context.Context, userID, name string) (string, error) {
	var id string
	err := s.q.QueryRowContext(ctx, `SELECT id FROM decks WHERE user_id = $1 AND name = $2`, userID, name).Scan(&id)
	if errNoRows(err) {
		return "", notFound("deck")
	}
	if err != nil {
		return "", s.s.wrap(ctx, err, "deck by name")
	}
	return id, nil
}

// ListDecks returns up to limit decks with ids greater than afterID,
// ordered by id, with counts as of now.
func (s deckStore) ListDecks(ctx context.Context, userID, afterID string, limit int, now time.Time) ([]contracts.Deck, error) {
	if limit <= 0 {
		return []contracts.Deck{}, nil
	}
	rows, err := s.q.QueryContext(ctx, `SELECT `+deckCols+deckCountCols+deckFrom+deckCountJoin(`SELECT id, name FROM decks WHERE user_id = $1 AND id > $2 ORDER BY id LIMIT $3`, 4)+
		`WHERE d.user_id = $1 AND d.id > $2 ORDER BY d.id LIMIT $3`,
		userID, afterID, limit, ms(now))
	if err != nil {
		return nil, s.s.wrap(ctx, err, "list decks")
	}
	return s.scanDecks(ctx, rows)
}

// deckCountCols reads a deck's counts beside deckCols (FROM deckFrom
// with deckCountJoin), in the same statement.
const deckCountCols = `, COALESCE(dc.total, 0), COALESCE(dc.fresh, 0), COALESCE(dc.learning, 0), COALESCE(dc.review, 0), COALESCE(dc.suspended, 0),
  COALESCE(dc.due, 0)`

// deckCountJoin joins a deck (d) to its counts, for deckCountCols: those
// of its cards and of the cards of the decks below it (named d::…, the
// deck tree, issue 27 §4), for the decks page selects (a SELECT of id
// and name; $1 is the user). The counts by phase are kept per deck by
// triggers (deck_counts), and so are the queued cards by due time
// (deck_due), so the due-now count adds up the decks' due times up to
// now (the query's parameter now, in ms), one row each; neither reads
// the decks' cards.
func deckCountJoin(page string, now int) string {
	return `LEFT JOIN (SELECT t.root AS deck_id, SUM(t.total) AS total, SUM(t.fresh) AS fresh, SUM(t.learning) AS learning,
  SUM(t.review) AS review, SUM(t.suspended) AS suspended, SUM(t.due) AS due
FROM (SELECT r.id AS root, COALESCE(c.total, 0) AS total, COALESCE(c.fresh, 0) AS fresh, COALESCE(c.learning, 0) AS learning,
    COALESCE(c.review, 0) AS review, COALESCE(c.suspended, 0) AS suspended,
    (SELECT COALESCE(SUM(dd.n), 0) FROM deck_due dd WHERE dd.user_id = s.user_id AND dd.deck_id = s.id AND dd.due <= $` + strconv.Itoa(now) + `) AS due
  FROM (` + page + `) r
  JOIN decks s ON s.user_id = $1 AND (s.id = r.id OR substr(s.name, 1, length(r.name) + 2) = r.name || '::')
  LEFT JOIN deck_counts c ON c.deck_id = s.id) t
GROUP BY t.root) dc ON dc.deck_id = d.id `
}

// scanDecks reads rows of deckCols with deckCountCols.
func (s deckStore) scanDecks(ctx context.Context, rows *sql.Rows) ([]contracts.Deck, error) {
	decks := []contracts.Deck{}
	defer rows.Close()
	for rows.Next() {
		var d contracts.Deck
		var dd deckDest
		c := &d.Counts
		if err := rows.Scan(append(dd.dest(&d), &c.Total, &c.New, &c.Learning, &c.Review, &c.Suspended, &c.DueNow)...); err != nil {
			return nil, s.s.wrap(ctx, err, "read decks")
		}
		if err := dd.fill(&d); err != nil {
			return nil, s.s.wrap(ctx, err, "read decks")
		}
		decks = append(decks, d)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "read decks")
	}
	return decks, nil
}

// UpdateDeck stores name, description, settings, the preset id and
// UpdatedAt. Not found when absent (or the preset is); conflict on a
// duplicate name.
func (s deckStore) UpdateDeck(ctx context.Context, userID string, d contracts.Deck) error {
	settings, err := deckSettingsText(d.Settings)
	if err != nil {
		return contracts.Internal(err)
	}
	return s.atomic(ctx, func(h *handle) error {
		res, err := h.exec(ctx, `UPDATE decks SET name = $3, description = $4, settings = $5, updated_at = $6, preset_id = $7
WHERE user_id = $1 AND id = $2 AND (CAST($7 AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM presets WHERE user_id = $1 AND id = $7))`,
			userID, d.ID, d.Name, d.Description, settings, ms(d.UpdatedAt), nullString(d.Settings.PresetID))
		if err != nil {
			return h.fail(ctx, err, "update deck", failMsgs{unique: "a deck named \"" + d.Name + "\" already exists"})
		}
		n, err := h.affected(ctx, res, nil, "update deck")
		if err != nil {
			return err
		}
		if n == 0 {
			if err := h.checkPreset(ctx, userID, d.Settings.PresetID); err != nil {
				return err
			}
			return notFound("deck")
		}
		return nil
	})
}

// RenameSubtree renames the decks below from to lie below to (see ports).
func (s deckStore) RenameSubtree(ctx context.Context, userID, from, to string, now time.Time) (int, error) {
	prefix := from + contracts.DeckSeparator
	k := utf8.RuneCountInString(prefix)
	var n int64
	err := s.atomic(ctx, func(h *handle) error {
		var longest int
		if err := h.q.QueryRowContext(ctx, `SELECT COALESCE(MAX(length(name)), 0) FROM decks WHERE user_id = $1 AND substr(name, 1, CAST($2 AS INTEGER)) = CAST($3 AS TEXT)`,
			userID, k, prefix).Scan(&longest); err != nil {
			return h.s.wrap(ctx, err, "rename decks")
		}
		if longest > 0 && longest-k+utf8.RuneCountInString(to+contracts.DeckSeparator) > contracts.MaxDeckNameLen {
			return contracts.Errorf(contracts.KindInvalid, "a deck below %q would get a name over %d characters; choose a shorter name", to, contracts.MaxDeckNameLen)
		}
		res, err := h.exec(ctx, `UPDATE decks SET name = CAST($3 AS TEXT) || substr(name, CAST($4 AS INTEGER)), updated_at = $5
WHERE user_id = $1 AND substr(name, 1, CAST($6 AS INTEGER)) = CAST($2 AS TEXT)`,
			userID, prefix, to+contracts.DeckSeparator, k+1, ms(now), k)
		if err != nil {
			return h.fail(ctx, err, "rename decks", failMsgs{unique: "a deck below \"" + to + "\" would take the name of another deck"})
		}
		n, err = h.affected(ctx, res, nil, "rename decks")
		return err
	})
	return int(n), err
}

// LockDeck takes the deck's row lock (a no-op write) for the rest of the
// transaction. Not found when absent.
func (s deckStore) LockDeck(ctx context.Context, userID, deckID string) error {
	res, err := s.exec(ctx, `UPDATE decks SET updated_at = updated_at WHERE user_id = $1 AND id = $2`, userID, deckID)
	n, err := s.affected(ctx, res, err, "lock deck")
	if err == nil && n == 0 {
		return notFound("deck")
	}
	return err
}

// TrashDeck moves a deck with its cards and their reviews to the trash
// and deletes them; its study sessions go by foreign key cascade, and its
// preset when no other deck uses it. Not found when absent.
func (s deckStore) TrashDeck(ctx context.Context, userID, deckID string, at time.Time) (int, error) {
	var cards int
	err := s.atomic(ctx, func(h *handle) error {
		preset, err := h.trashDeckRow(ctx, userID, deckID, at)
		if err != nil {
			return err
		}
		// A filtered deck's cards go home first, and the cards of this deck
		// a filtered deck holds come back to go with it (issue 28 §4).
		if _, err := h.exec(ctx, `UPDATE cards SET deck_id = home_deck_id, home_deck_id = NULL, version = version + 1, updated_at = $3
WHERE user_id = $1 AND home_deck_id IS NOT NULL AND (deck_id = $2 OR home_deck_id = $2)`, userID, deckID, ms(at)); err != nil {
			return h.fail(ctx, err, "return cards home", failMsgs{unique: "a card's home deck has a card with the same front and back now; edit or delete one of them first"})
		}
		if cards, err = h.trashCardsWhere(ctx, `user_id = $1 AND deck_id = $2`, args{userID, deckID}, deckID, at); err != nil {
			return err
		}
		res, err := h.exec(ctx, `DELETE FROM decks WHERE user_id = $1 AND id = $2`, userID, deckID)
		if _, err := h.affected(ctx, res, err, "delete deck"); err != nil {
			return err
		}
		if preset != "" {
			_, err := presetStore{h}.DeleteUnusedPreset(ctx, userID, preset)
			return err
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return cards, nil
}

// errNoRows reports a missing row.
func errNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
