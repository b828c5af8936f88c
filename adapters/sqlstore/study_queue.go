package sqlstore

import (
	"context"
	"sort"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// learningPhase holds for cards in a learning or relearning step.
const learningPhase = `c.phase IN ('learning', 'relearning')`

// reviewOrder is the SQL ordering of review-phase cards; now returns the
// placeholder of the time they are computed at (called only when used:
// Postgres refuses a parameter the statement does not use).
func reviewOrder(order string, now func() string) (string, bool) {
	switch order {
	case "", "due":
		return `c.due, c.id`, true
	case "retrievability":
		// FSRS recall falls with elapsed time over stability, whatever the
		// decay: the largest ratio is the lowest retrievability.
		return `CASE WHEN c.stability > 0 AND c.last_review IS NOT NULL THEN (` + now() + ` - c.last_review) / c.stability ELSE 0 END DESC, c.due, c.id`, true
	case "overdueness":
		return `(` + now() + ` - c.due) / (CASE WHEN c.scheduled_days > 0 THEN c.scheduled_days ELSE 1 END) DESC, c.due, c.id`, true
	case "random":
		return `c.id`, true
	}
	return "", false
}

// StudyCards returns a deck's learning cards due by q.LearnDueBy and its
// review-phase cards due by q.ReviewDueBy in q.Order, those buried at q.Now
// left out (a cram session takes buried cards too).
func (s cardStore) StudyCards(ctx context.Context, userID, deckID string, q ports.StudyQuery) ([]ports.CardRow, []ports.CardRow, error) {
	var a args
	order, ok := reviewOrder(q.Order, func() string { return "CAST(" + a.add(ms(q.Now)) + " AS DOUBLE PRECISION)" })
	if !ok {
		return nil, nil, contracts.Errorf(contracts.KindInvalid, "unknown review order %q: use due, retrievability, overdueness or random", q.Order)
	}
	// decks selects the deck's cards, or those of q.DeckIDs.
	decks := func(a *args) string {
		if len(q.DeckIDs) > 0 {
			return `c.deck_id IN (` + list(a, q.DeckIDs) + `)`
		}
		return `c.deck_id = ` + a.add(deckID)
	}
	var learning []ports.CardRow
	if !q.Cram {
		var err error
		var la args
		user := la.add(userID)
		in := decks(&la)
		learning, err = s.scanCards(ctx, "learning cards", `SELECT `+cardCols+` FROM cards c
WHERE c.user_id = `+user+` AND `+in+` AND `+queued+` AND `+learningPhase+` AND c.due <= `+la.add(ms(q.LearnDueBy))+
			` AND `+unburied(la.add(ms(q.Now)))+` ORDER BY c.due, c.id`, la...)
		if err != nil {
			return nil, nil, err
		}
	}
	if q.ReviewLimit <= 0 {
		return learning, []ports.CardRow{}, nil
	}
	where := func() string {
		w := ` FROM cards c WHERE c.user_id = ` + a.add(userID) + ` AND ` + decks(&a) + ` AND ` + queued
		if !q.Cram {
			w += ` AND c.phase = 'review' AND c.due <= ` + a.add(ms(q.ReviewDueBy)) + ` AND ` + unburied(a.add(ms(q.Now)))
		}
		return w
	}
	if len(q.DeckIDs) > 0 {
		// Up to ReviewLimit cards of each deck, in the order, ranked
		// within their deck.
		inner, _ := reviewOrder(q.Order, func() string { return "CAST(" + a.add(ms(q.Now)) + " AS DOUBLE PRECISION)" })
		query := `SELECT ` + cardCols + ` FROM (SELECT c.*, ROW_NUMBER() OVER (PARTITION BY c.deck_id ORDER BY ` + inner + `) AS deck_rank` +
			where() + `) c WHERE c.deck_rank <= ` + a.add(q.ReviewLimit) + ` ORDER BY ` + order
		review, err := s.scanCards(ctx, "review cards", query, a...)
		return learning, review, err
	}
	query := `SELECT ` + cardCols + where()
	limit := q.ReviewLimit
	if q.WithTies && (q.Order == "" || q.Order == "due") {
		// Every card due no later than the ReviewLimit-th: the limit's
		// cards and the ties at its edge.
		query += ` AND c.due <= COALESCE((SELECT c.due` + where() + ` ORDER BY c.due LIMIT 1 OFFSET ` + a.add(q.ReviewLimit-1) + `), c.due)`
		limit = max(q.TieLimit, q.ReviewLimit)
	}
	query += ` ORDER BY ` + order + ` LIMIT ` + a.add(limit)
	review, err := s.scanCards(ctx, "review cards", query, a...)
	if err != nil {
		return nil, nil, err
	}
	return learning, review, nil
}

// DueCounts counts unsuspended non-new cards by due time into the buckets
// bounds delimit; bucket 0 also holds everything due before bounds[0].
func (s cardStore) DueCounts(ctx context.Context, userID, deckID string, bounds []time.Time) ([]int, error) {
	if len(bounds) < 2 {
		return []int{}, nil
	}
	out := make([]int, len(bounds)-1)
	var a args
	// deck_due holds the queued cards' counts by due time (kept by triggers).
	q := `SELECT dd.due, SUM(dd.n) FROM deck_due dd WHERE dd.user_id = ` + a.add(userID)
	if deckID != "" {
		q += ` AND dd.deck_id = ` + a.add(deckID)
	}
	q += ` AND dd.due < ` + a.add(ms(bounds[len(bounds)-1])) + ` GROUP BY dd.due`
	rows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "due counts")
	}
	defer rows.Close()
	for rows.Next() {
		var due int64
		var n int
		if err := rows.Scan(&due, &n); err != nil {
			return nil, s.s.wrap(ctx, err, "due counts")
		}
		t := fromMs(due)
		// The first bound after t closes t's bucket.
		i := sort.Search(len(bounds), func(i int) bool { return bounds[i].After(t) })
		out[max(0, i-1)] += n
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "due counts")
	}
	return out, nil
}

// NextDueItem returns the pending item to show at now (see ports).
func (s sessionStore) NextDueItem(ctx context.Context, userID, sessionID string, now, learnAheadUntil time.Time) (*ports.SessionItem, error) {
	var it ports.SessionItem
	var due int64
	var learning bool
	err := s.q.QueryRowContext(ctx, `SELECT i.position, i.card_id, c.due, CASE WHEN `+learningPhase+` THEN TRUE ELSE FALSE END
FROM study_session_items i JOIN cards c ON c.user_id = i.user_id AND c.id = i.card_id
WHERE i.user_id = $1 AND i.session_id = $2 AND i.reviewed_at IS NULL
ORDER BY CASE WHEN `+learningPhase+` AND c.due <= $3 THEN 0 WHEN NOT (`+learningPhase+`) THEN 1 WHEN c.due <= $4 THEN 2 ELSE 3 END,
CASE WHEN `+learningPhase+` THEN c.due ELSE 0 END, i.position LIMIT 1`,
		userID, sessionID, ms(now), ms(learnAheadUntil)).Scan(&it.Position, &it.CardID, &due, &learning)
	if errNoRows(err) {
		// A pending item whose card is gone has no row in the join; the
		// card cascade deletes its items, so none is pending.
		if err := s.checkSession(ctx, userID, sessionID); err != nil {
			return nil, err
		}
		return nil, nil
	}
	if err != nil {
		return nil, s.s.wrap(ctx, err, "next due item")
	}
	it.Due, it.Learning = fromMs(due), learning
	return &it, nil
}
