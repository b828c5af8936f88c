package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// reviewTargetQuery joins what submit_review reads: the session, the
// card's lowest pending item (through the pending-items index), the card,
// its deck with its preset, and the account's settings.
const reviewTargetQuery = `SELECT s.deck_id, s.started_at, s.expires_at, s.mode, i.position, ` + cardCols + `, ` + deckCols + `,
a.timezone, a.rollover_hour, a.learn_ahead_minutes, a.new_per_day, a.reviews_per_day, a.updated_at,
CASE WHEN EXISTS (SELECT 1 FROM decks sd JOIN decks b ON b.user_id = sd.user_id AND substr(b.name, 1, length(sd.name) + 2) = sd.name || '::'
  WHERE sd.user_id = s.user_id AND sd.id = s.deck_id) THEN 1 ELSE 0 END
FROM study_sessions s
JOIN study_session_items i ON i.session_id = s.id AND i.user_id = s.user_id
JOIN cards c ON c.user_id = s.user_id AND c.id = i.card_id
JOIN decks d ON d.user_id = c.user_id AND d.id = c.deck_id
LEFT JOIN presets p ON p.id = d.preset_id AND p.user_id = d.user_id
LEFT JOIN account_settings a ON a.user_id = s.user_id
WHERE s.user_id = $1 AND s.id = $2 AND i.card_id = $3 AND i.reviewed_at IS NULL
ORDER BY i.position LIMIT 1`

// ReviewTarget reads what rating a card in a session needs (see ports).
func (s sessionStore) ReviewTarget(ctx context.Context, userID, sessionID, cardID string) (ports.ReviewTarget, error) {
	t := ports.ReviewTarget{Session: ports.StudySessionRow{ID: sessionID, UserID: userID}}
	var (
		started, expires int64
		card             cardDest
		deck             deckDest
		tz               sql.NullString
		rollover, ahead  sql.NullInt64
		perNew, perRev   sql.NullInt64
		updated          sql.NullInt64
		tree             int
	)
	dest := []any{&t.Session.DeckID, &started, &expires, &t.Session.Mode, &t.Item.Position}
	dest = append(dest, card.dest()...)
	dest = append(dest, deck.dest(&t.Deck)...)
	dest = append(dest, &tz, &rollover, &ahead, &perNew, &perRev, &updated, &tree)
	err := s.q.QueryRowContext(ctx, reviewTargetQuery, userID, sessionID, cardID).Scan(dest...)
	if errNoRows(err) {
		return ports.ReviewTarget{}, contracts.Errorf(contracts.KindNotFound, "the card is not pending in this study session")
	}
	if err != nil {
		return ports.ReviewTarget{}, s.s.wrap(ctx, err, "review target")
	}
	t.Session.StartedAt, t.Session.ExpiresAt = fromMs(started), fromMs(expires)
	if t.Card, err = card.row(); err != nil {
		return ports.ReviewTarget{}, s.s.wrap(ctx, err, "review target")
	}
	if err := deck.fill(&t.Deck); err != nil {
		return ports.ReviewTarget{}, s.s.wrap(ctx, err, "review target")
	}
	t.Item.CardID = t.Card.ID
	t.SessionTree = tree == 1
	if tz.Valid {
		t.SettingsFound = true
		t.Settings = contracts.AccountSettings{Timezone: tz.String, RolloverHour: int(rollover.Int64), LearnAheadMinutes: int(ahead.Int64),
			NewCardsPerDay: int(perNew.Int64), ReviewsPerDay: int(perRev.Int64), UpdatedAt: fromMs(updated.Int64)}
	}
	return t, nil
}

// nextDueQuery is NextDueItem's ordering joined to the card, beside the
// session's progress: the progress row always exists, the item row only
// when one is pending.
const nextDueQuery = `SELECT g.reviewed, g.remaining, n.position, n.due_ms, n.learning, ` + nextCardCols + `
FROM (SELECT COALESCE(SUM(CASE WHEN reviewed_at IS NULL THEN 0 ELSE 1 END), 0) AS reviewed,
  COALESCE(SUM(CASE WHEN reviewed_at IS NULL THEN 1 ELSE 0 END), 0) AS remaining
  FROM study_session_items WHERE user_id = $1 AND session_id = $2) g
LEFT JOIN (SELECT i.position, c.due AS due_ms, CASE WHEN ` + learningPhase + ` THEN 1 ELSE 0 END AS learning, ` + cardCols + `
  FROM study_session_items i JOIN cards c ON c.user_id = i.user_id AND c.id = i.card_id
  WHERE i.user_id = $1 AND i.session_id = $2 AND i.reviewed_at IS NULL
  ORDER BY CASE WHEN ` + learningPhase + ` AND c.due <= $3 THEN 0 WHEN NOT (` + learningPhase + `) THEN 1 WHEN c.due <= $4 THEN 2 ELSE 3 END,
  CASE WHEN ` + learningPhase + ` THEN c.due ELSE 0 END, i.position LIMIT 1) n ON 1 = 1`

// nextCardCols are cardCols read from the subquery n of nextDueQuery.
const nextCardCols = `n.id, n.deck_id, n.front, n.back, n.tags, n.suspended, n.phase, n.due, n.stability, n.difficulty,
n.scheduled_days, n.reps, n.lapses, n.step, n.last_review, n.hash, n.version, n.created_at, n.updated_at, n.note_id, n.ord,
n.buried_until`

// NextDueCard returns the pending item to show, its card and the
// session's progress (see ports).
func (s sessionStore) NextDueCard(ctx context.Context, userID, sessionID string, now, learnAheadUntil time.Time) (ports.NextDue, error) {
	var (
		out      ports.NextDue
		pos, due sql.NullInt64
		learning sql.NullInt64
		card     nullCardDest
	)
	dest := append([]any{&out.Reviewed, &out.Remaining, &pos, &due, &learning}, card.dest()...)
	if err := s.q.QueryRowContext(ctx, nextDueQuery, userID, sessionID, ms(now), ms(learnAheadUntil)).Scan(dest...); err != nil {
		return ports.NextDue{}, s.s.wrap(ctx, err, "next due card")
	}
	if out.Reviewed+out.Remaining == 0 {
		if err := s.checkSession(ctx, userID, sessionID); err != nil {
			return ports.NextDue{}, err
		}
	}
	if !pos.Valid {
		return out, nil
	}
	c, err := card.row()
	if err != nil {
		return ports.NextDue{}, s.s.wrap(ctx, err, "next due card")
	}
	out.Card = c
	out.Item = &ports.SessionItem{Position: int(pos.Int64), CardID: c.ID, Due: fromMs(due.Int64), Learning: learning.Int64 == 1}
	return out, nil
}

// nullCardDest scans cardCols that may all be NULL (an outer join found
// no card); row is only called when they are not.
type nullCardDest struct {
	id, deck, front, back, tags, phase, hash, note sql.NullString
	suspended                                      sql.NullBool
	due, version, created, updated, last, ord      sql.NullInt64
	buried                                         sql.NullInt64
	scheduled, reps, lapses, step                  sql.NullInt64
	stability, difficulty                          sql.NullFloat64
}

// dest returns the targets of cardCols, in order.
func (d *nullCardDest) dest() []any {
	return []any{&d.id, &d.deck, &d.front, &d.back, &d.tags, &d.suspended, &d.phase, &d.due, &d.stability, &d.difficulty,
		&d.scheduled, &d.reps, &d.lapses, &d.step, &d.last, &d.hash, &d.version, &d.created, &d.updated, &d.note, &d.ord,
		&d.buried}
}

// row converts a scanned card that is there.
func (d *nullCardDest) row() (ports.CardRow, error) {
	c := cardDest{tags: d.tags.String, phase: d.phase.String, due: d.due.Int64, created: d.created.Int64, updated: d.updated.Int64,
		last: d.last, ord: d.ord, note: d.note, buried: d.buried}
	c.c = ports.CardRow{Hash: d.hash.String, Version: d.version.Int64, Card: contracts.Card{ID: d.id.String, DeckID: d.deck.String,
		Front: d.front.String, Back: d.back.String, Suspended: d.suspended.Bool, State: contracts.CardState{
			Stability: d.stability.Float64, Difficulty: d.difficulty.Float64, ScheduledDays: int(d.scheduled.Int64),
			Reps: int(d.reps.Int64), Lapses: int(d.lapses.Int64), Step: int(d.step.Int64)}}}
	return c.row()
}
