package sqlstore

import (
	"context"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// filteredStore keeps filtered decks (issue 28 §4).
type filteredStore struct{ *handle }

// Filtered returns the filtered-deck store on h.
func (h *handle) Filtered() ports.FilteredStore { return filteredStore{h} }

// Filtered returns the filtered-deck store outside any transaction.
func (s *Store) Filtered() ports.FilteredStore { return s.root.Filtered() }

const filteredCols = `deck_id, search, card_limit, card_order, reschedule, built_at`

// SaveFiltered implements ports.FilteredStore.
func (s filteredStore) SaveFiltered(ctx context.Context, userID string, f ports.FilteredDeckRow) error {
	ok, err := s.exists(ctx, "find deck", `SELECT 1 FROM decks WHERE user_id = $1 AND id = $2`, userID, f.DeckID)
	if err != nil {
		return err
	}
	if !ok {
		return notFound("deck")
	}
	_, err = s.exec(ctx, `INSERT INTO filtered_decks (deck_id, user_id, search, card_limit, card_order, reschedule, built_at)
VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT (deck_id) DO UPDATE SET search = excluded.search, card_limit = excluded.card_limit,
card_order = excluded.card_order, reschedule = excluded.reschedule, built_at = excluded.built_at`,
		f.DeckID, userID, f.Search, f.Limit, f.Order, f.Reschedule, ms(f.BuiltAt))
	return s.s.wrap(ctx, err, "save filtered deck")
}

// Filtered implements ports.FilteredStore.
func (s filteredStore) Filtered(ctx context.Context, userID, deckID string) (ports.FilteredDeckRow, error) {
	rows, err := s.list(ctx, ` AND deck_id = $2`, userID, deckID)
	if err != nil {
		return ports.FilteredDeckRow{}, err
	}
	if len(rows) == 0 {
		return ports.FilteredDeckRow{}, notFound("filtered deck")
	}
	return rows[0], nil
}

// ListFiltered implements ports.FilteredStore.
func (s filteredStore) ListFiltered(ctx context.Context, userID string) ([]ports.FilteredDeckRow, error) {
	return s.list(ctx, ``, userID)
}

func (s filteredStore) list(ctx context.Context, where string, a ...any) ([]ports.FilteredDeckRow, error) {
	rows, err := s.q.QueryContext(ctx, `SELECT `+filteredCols+` FROM filtered_decks WHERE user_id = $1`+where+` ORDER BY deck_id`, a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "read filtered decks")
	}
	defer rows.Close()
	out := []ports.FilteredDeckRow{}
	for rows.Next() {
		var f ports.FilteredDeckRow
		var built int64
		if err := rows.Scan(&f.DeckID, &f.Search, &f.Limit, &f.Order, &f.Reschedule, &built); err != nil {
			return nil, s.s.wrap(ctx, err, "read filtered decks")
		}
		f.BuiltAt = fromMs(built)
		out = append(out, f)
	}
	return out, s.s.wrap(ctx, rows.Err(), "read filtered decks")
}

// propOps are the comparisons a PropFilter may make.
var propOps = []string{"<", "<=", ">", ">=", "=", "!="}

// Candidates implements ports.FilteredStore.
func (s filteredStore) Candidates(ctx context.Context, userID string, q ports.FilteredQuery) ([]ports.CardRow, error) {
	if q.Limit <= 0 {
		return []ports.CardRow{}, nil
	}
	var a args
	user := a.add(userID)
	w := `SELECT ` + cardCols + ` FROM cards c WHERE c.user_id = ` + user + ` AND c.home_deck_id IS NULL AND c.suspended = FALSE AND ` +
		unburied(a.add(ms(q.Now))) + ` AND c.deck_id NOT IN (SELECT f.deck_id FROM filtered_decks f WHERE f.user_id = ` + user + `)`
	f := q.Filter
	if f.DeckID != "" {
		w += ` AND c.deck_id = ` + a.add(f.DeckID)
	}
	if words := queryWords(f.Query); len(words) > 0 {
		cond, arg, err := s.s.d.MatchText(ctx, s.q, "$"+itoa(len(a)+1), words)
		if err != nil {
			return nil, s.s.wrap(ctx, err, "filtered deck search")
		}
		a.add(arg)
		w += ` AND ` + cond
	}
	cond, err := cardStore(s).filterCards(f, &a, q.Now)
	if err != nil {
		return nil, err
	}
	w += cond
	for _, p := range q.Props {
		if !slices.Contains(ports.PropColumns, p.Column) || !slices.Contains(propOps, p.Op) {
			return nil, contracts.Errorf(contracts.KindInvalid, "unknown property comparison %s %s", p.Column, p.Op)
		}
		v := any(p.Value)
		switch p.Column {
		case "due":
			w += ` AND ` + queued
			v = int64(p.Value)
		case "scheduled_days", "lapses", "reps":
			v = int64(p.Value)
		}
		op := p.Op
		if op == "!=" {
			op = "<>"
		}
		w += ` AND c.` + p.Column + ` ` + op + ` ` + a.add(v)
	}
	if q.RatedSince != nil {
		w += ` AND EXISTS (SELECT 1 FROM review_logs r WHERE r.user_id = c.user_id AND r.card_id = c.id AND r.reviewed_at >= ` + a.add(ms(*q.RatedSince)) + ` AND r.kind NOT IN (` + undoneKinds + `))`
	}
	switch q.Order {
	case contracts.FilteredOrderDue:
		w += ` ORDER BY c.due, c.id`
	case contracts.FilteredOrderAdded:
		w += ` ORDER BY c.created_at, c.id`
	case contracts.FilteredOrderLapses:
		w += ` ORDER BY c.lapses DESC, c.due, c.id`
	case contracts.FilteredOrderInterval:
		w += ` ORDER BY c.scheduled_days, c.due, c.id`
	case contracts.FilteredOrderRandom:
		w += ` ORDER BY c.id`
	default:
		return nil, contracts.Errorf(contracts.KindInvalid, "unknown filtered deck order %q", q.Order)
	}
	return s.scanCards(ctx, "filtered deck search", w+` LIMIT `+a.add(q.Limit), a...)
}

// Gather implements ports.FilteredStore.
func (s filteredStore) Gather(ctx context.Context, userID, deckID string, ids []string, at time.Time) ([]string, error) {
	out := []string{}
	err := s.atomic(ctx, func(h *handle) error {
		for _, chunk := range chunks(dedupe(ids), inChunk) {
			var a args
			q := `UPDATE cards SET home_deck_id = deck_id, deck_id = ` + a.add(deckID) + `, version = version + 1, updated_at = ` + a.add(ms(at)) +
				` WHERE user_id = ` + a.add(userID) + ` AND home_deck_id IS NULL AND deck_id <> $1 AND id IN (` + list(&a, chunk) + `) RETURNING id`
			got, err := h.strings(ctx, "gather cards", q, a...)
			if contracts.IsKind(err, contracts.KindConflict) {
				return contracts.Errorf(contracts.KindConflict, "two cards with the same front and back cannot share a filtered deck")
			}
			if err != nil {
				return err
			}
			out = append(out, got...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReturnHome implements ports.FilteredStore.
func (s filteredStore) ReturnHome(ctx context.Context, userID, deckID string, at time.Time) (map[string]int64, error) {
	const msg = "a card's home deck has a card with the same front and back now; edit or delete one of them, then empty again"
	rows, err := s.q.QueryContext(ctx, `UPDATE cards SET deck_id = home_deck_id, home_deck_id = NULL, version = version + 1, updated_at = $3
WHERE user_id = $1 AND deck_id = $2 AND home_deck_id IS NOT NULL RETURNING id, version`, userID, deckID, ms(at))
	if err != nil {
		return nil, s.fail(ctx, err, "return cards home", failMsgs{unique: msg})
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var v int64
		if err := rows.Scan(&id, &v); err != nil {
			return nil, s.fail(ctx, err, "return cards home", failMsgs{unique: msg})
		}
		out[id] = v
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(ctx, err, "return cards home", failMsgs{unique: msg})
	}
	return out, nil
}
