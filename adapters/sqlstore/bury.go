package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/takhtabush/takhtabush/ports"
)

// unburied holds for cards of the cards row aliased c not buried at the
// time of the placeholder now.
func unburied(now string) string {
	return `(c.buried_until IS NULL OR c.buried_until <= ` + now + `)`
}

// FreshCards returns up to limit unsuspended new cards of a deck not
// buried at now, oldest first (ties by id).
func (s cardStore) FreshCards(ctx context.Context, userID, deckID string, now time.Time, limit int) ([]ports.CardRow, error) {
	if limit <= 0 {
		return []ports.CardRow{}, nil
	}
	return s.scanCards(ctx, "new cards", `SELECT `+cardCols+` FROM cards c
WHERE c.user_id = $1 AND c.deck_id = $2 AND c.suspended = FALSE AND c.phase = 'new' AND `+unburied("$3")+`
ORDER BY c.created_at, c.id LIMIT $4`, userID, deckID, ms(now), limit)
}

// FreshCardIDs returns the ids of a deck's unsuspended new cards not
// buried at now.
func (s cardStore) FreshCardIDs(ctx context.Context, userID, deckID string, now time.Time) ([]string, error) {
	ids, err := s.strings(ctx, "new card ids", `SELECT c.id FROM cards c
WHERE c.user_id = $1 AND c.deck_id = $2 AND c.suspended = FALSE AND c.phase = 'new' AND `+unburied("$3"),
		userID, deckID, ms(now))
	if ids == nil {
		ids = []string{}
	}
	return ids, err
}

// FreshCardDecks returns the deck of each unsuspended new card of
// deckIDs not buried at now, by card id.
func (s cardStore) FreshCardDecks(ctx context.Context, userID string, deckIDs []string, now time.Time) (map[string]string, error) {
	out := map[string]string{}
	if len(deckIDs) == 0 {
		return out, nil
	}
	var a args
	user, at := a.add(userID), a.add(ms(now))
	rows, err := s.q.QueryContext(ctx, `SELECT c.id, c.deck_id FROM cards c
WHERE c.user_id = `+user+` AND c.deck_id IN (`+list(&a, deckIDs)+`) AND c.suspended = FALSE AND c.phase = 'new' AND `+unburied(at), a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "new card decks")
	}
	defer rows.Close()
	for rows.Next() {
		var id, deck string
		if err := rows.Scan(&id, &deck); err != nil {
			return nil, s.s.wrap(ctx, err, "new card decks")
		}
		out[id] = deck
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "new card decks")
	}
	return out, nil
}

// FreshCardsIn returns up to perDeck unsuspended new cards of each of
// deckIDs not buried at now, oldest first within a deck (ties by id).
func (s cardStore) FreshCardsIn(ctx context.Context, userID string, deckIDs []string, now time.Time, perDeck int) ([]ports.CardRow, error) {
	if perDeck <= 0 || len(deckIDs) == 0 {
		return []ports.CardRow{}, nil
	}
	var a args
	user, at := a.add(userID), a.add(ms(now))
	in := list(&a, deckIDs)
	return s.scanCards(ctx, "new cards", `SELECT `+cardCols+` FROM (SELECT x.*, ROW_NUMBER() OVER (PARTITION BY x.deck_id ORDER BY x.created_at, x.id) AS deck_rank
  FROM cards x WHERE x.user_id = `+user+` AND x.deck_id IN (`+in+`) AND x.suspended = FALSE AND x.phase = 'new'
  AND (x.buried_until IS NULL OR x.buried_until <= `+at+`)) c
WHERE c.deck_rank <= `+a.add(perDeck)+` ORDER BY c.created_at, c.id`, a...)
}

// BuryCards buries the user's cards with these ids until until, and
// returns the ids buried. A card buried beyond until keeps its burial.
// The card's version stays: burying is the queue's state, not the card's,
// and a review racing it must not fail.
func (s cardStore) BuryCards(ctx context.Context, userID string, ids []string, until time.Time) ([]string, error) {
	ids = dedupe(ids)
	out := []string{}
	err := s.atomic(ctx, func(h *handle) error {
		for _, chunk := range chunks(ids, inChunk) {
			var a args
			u := a.add(ms(until))
			q := `UPDATE cards SET buried_until = CASE WHEN buried_until IS NOT NULL AND buried_until > ` + u + ` THEN buried_until ELSE ` + u + ` END
WHERE user_id = ` + a.add(userID) + ` AND id IN (` + list(&a, chunk) + `) RETURNING id`
			got, err := h.strings(ctx, "bury cards", q, a...)
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

// Unbury ends the burial of the user's cards buried at now (of one deck
// when deckID is set) at now, and returns how many.
func (s cardStore) Unbury(ctx context.Context, userID, deckID string, now time.Time) (int, error) {
	var a args
	at := a.add(ms(now))
	q := `UPDATE cards SET buried_until = ` + at + ` WHERE user_id = ` + a.add(userID) + ` AND buried_until > ` + at
	if deckID != "" {
		q += ` AND deck_id = ` + a.add(deckID)
	}
	res, err := s.exec(ctx, q, a...)
	n, err := s.affected(ctx, res, err, "unbury cards")
	return int(n), err
}

// StudiedSiblings returns, by note, the cards of these notes with a
// normal review at or after since. The user's reviews since the start of
// the day are few: the review_logs_user_time index finds them, and each
// joins its card.
func (s reviewStore) StudiedSiblings(ctx context.Context, userID string, noteIDs []string, since time.Time) (map[string][]string, error) {
	out := map[string][]string{}
	for _, chunk := range chunks(dedupe(noteIDs), inChunk) {
		var a args
		q := `SELECT DISTINCT c.note_id, c.id FROM review_logs r JOIN cards c ON c.user_id = r.user_id AND c.id = r.card_id
WHERE r.user_id = ` + a.add(userID) + ` AND r.reviewed_at >= ` + a.add(ms(since)) + ` AND r.kind = 'review'
AND c.note_id IN (` + list(&a, chunk) + `)`
		rows, err := s.q.QueryContext(ctx, q, a...)
		if err != nil {
			return nil, s.s.wrap(ctx, err, "studied siblings")
		}
		for rows.Next() {
			var note, card string
			if err := rows.Scan(&note, &card); err != nil {
				rows.Close()
				return nil, s.s.wrap(ctx, err, "studied siblings")
			}
			out[note] = append(out[note], card)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, s.s.wrap(ctx, err, "studied siblings")
		}
	}
	return out, nil
}

// NextDueAt returns the earliest time an unsuspended, non-new card of the
// deck can be studied: its due time, or the end of its burial when it is
// buried past now and past its due time.
func (s cardStore) NextDueAt(ctx context.Context, userID, deckID string, now time.Time) (time.Time, bool, error) {
	return s.NextDueAtIn(ctx, userID, []string{deckID}, now)
}

// NextDueAtIn is NextDueAt over the cards of several decks.
func (s cardStore) NextDueAtIn(ctx context.Context, userID string, deckIDs []string, now time.Time) (time.Time, bool, error) {
	var at sql.NullInt64
	var a args
	user, t := a.add(userID), a.add(ms(now))
	if len(deckIDs) == 0 {
		return time.Time{}, false, nil
	}
	decks := `c.deck_id IN (` + list(&a, deckIDs) + `)`
	err := s.q.QueryRowContext(ctx, `SELECT MIN(CASE WHEN c.buried_until > `+t+` AND c.buried_until > c.due THEN c.buried_until ELSE c.due END)
FROM cards c WHERE c.user_id = `+user+` AND `+decks+` AND `+queued, a...).Scan(&at)
	if err != nil {
		return time.Time{}, false, s.s.wrap(ctx, err, "next due card")
	}
	if !at.Valid {
		return time.Time{}, false, nil
	}
	return fromMs(at.Int64), true, nil
}

// BuriedCards returns the burial of the user's cards buried at now (of
// one deck when deckID is set), by card id.
func (s cardStore) BuriedCards(ctx context.Context, userID, deckID string, now time.Time) (map[string]time.Time, error) {
	var a args
	at := a.add(ms(now))
	q := `SELECT id, buried_until FROM cards WHERE user_id = ` + a.add(userID) + ` AND buried_until > ` + at
	if deckID != "" {
		q += ` AND deck_id = ` + a.add(deckID)
	}
	rows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "buried cards")
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var id string
		var until int64
		if err := rows.Scan(&id, &until); err != nil {
			return nil, s.s.wrap(ctx, err, "buried cards")
		}
		out[id] = fromMs(until)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "buried cards")
	}
	return out, nil
}

// SetBurial sets a card's burial to to when it is was (nil: none).
func (s cardStore) SetBurial(ctx context.Context, userID, cardID string, was, to *time.Time) (bool, error) {
	var a args
	q := `UPDATE cards SET buried_until = ` + a.add(msPtr(to)) + ` WHERE user_id = ` + a.add(userID) + ` AND id = ` + a.add(cardID) + ` AND `
	if was == nil {
		q += `buried_until IS NULL`
	} else {
		q += `buried_until = ` + a.add(ms(*was))
	}
	res, err := s.exec(ctx, q, a...)
	n, err := s.affected(ctx, res, err, "set card burial")
	return n == 1, err
}
