package sqlstore

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// undoneKinds are the kinds of reviews undo_changes took back, as a SQL
// list: out of history and statistics, though an undone normal review
// still counts against the day's limits (StudiedSince).
const undoneKinds = `'` + ports.ReviewKindUndone + `', '` + ports.ReviewKindUndoneCram + `'`

// passed holds for a review rated hard, good or easy.
const passed = `CASE WHEN rating <> 'again' THEN 1 ELSE 0 END`

// AppendReview appends a review. Not found when the card is not the
// review's user's; conflict on a duplicate id. A zero DurationMs is stored
// as "not recorded".
func (s reviewStore) AppendReview(ctx context.Context, r ports.ReviewLog) error {
	var session, duration any
	if r.SessionID != "" {
		session = r.SessionID
	}
	if r.DurationMs > 0 {
		duration = r.DurationMs
	}
	var day any // 0 (1970-01-01) is "not recorded": UTC days then
	if r.Day != 0 {
		day = r.Day
	}
	kind := r.Kind
	if kind == "" {
		kind = ports.ReviewKindReview
	}
	prevState, err := stateJSON(r.PrevState)
	if err != nil {
		return s.s.wrap(ctx, err, "append review")
	}
	var cardVersion any // 0: not kept
	if r.CardVersion != 0 {
		cardVersion = r.CardVersion
	}
	st := r.State
	_, err = s.exec(ctx, `INSERT INTO review_logs (id, user_id, card_id, deck_id, session_id, rating, prev_phase,
phase, due, stability, difficulty, scheduled_days, reps, lapses, step, last_review, reviewed_at, duration_ms,
kind, day, prev_interval, prev_state, operation_id, credential_id, card_version)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)`,
		r.ID, r.UserID, r.CardID, r.DeckID, session, string(r.Rating), string(r.PrevPhase),
		string(st.Phase), ms(st.Due), st.Stability, st.Difficulty, st.ScheduledDays, st.Reps, st.Lapses, st.Step,
		msPtr(st.LastReview), ms(r.ReviewedAt), duration, kind, day, r.PrevInterval, prevState,
		nullString(r.OperationID), nullString(r.CredentialID), cardVersion)
	return s.fail(ctx, err, "append review", failMsgs{unique: "a review with this id already exists", fk: "card not found"})
}

// reviewSums is a query of sums over a user's (or a deck's) live review
// logs since since that also match cond (" AND …" or ""): each half, the
// review_logs rows and the logs of published imports not moved yet
// (stagedReviews), sums on its own, grouped by group unless it is "", and
// the query adds the halves up. The review_logs half is thus the plain
// aggregate over a covering index (review_logs_user_time, or
// review_logs_deck_time for a deck), not a row-by-row union. sums must add
// up (COUNT, SUM); the result is group first, when given, then each sum
// (0 when nothing matched), ordered by group.
func reviewSums(a *args, userID, deckID string, since time.Time, cond, group string, sums ...string) string {
	var decks []string
	if deckID != "" {
		decks = []string{deckID}
	}
	return reviewSumsIn(a, userID, decks, since, cond, group, sums...)
}

// reviewSumsIn is reviewSums over the logs of several decks (every
// deck's when deckIDs is empty).
func reviewSumsIn(a *args, userID string, deckIDs []string, since time.Time, cond, group string, sums ...string) string {
	u := a.add(userID)
	where, cols := ` WHERE user_id = `+u, statsReviewCols
	switch len(deckIDs) {
	case 0:
	case 1:
		where, cols = where+` AND deck_id = `+a.add(deckIDs[0]), deckStatsReviewCols
	default:
		where, cols = where+` AND deck_id IN (`+list(a, deckIDs)+`)`, deckStatsReviewCols
	}
	where += ` AND reviewed_at >= ` + a.add(ms(since)) + cond
	var inner, outer []string
	if group != "" {
		inner, outer = append(inner, group+` AS g`), append(outer, `g`)
	}
	for i, sum := range sums {
		n := `s` + strconv.Itoa(i)
		inner, outer = append(inner, sum+` AS `+n), append(outer, `COALESCE(SUM(`+n+`), 0)`)
	}
	half := func(from string) string {
		q := `SELECT ` + strings.Join(inner, ", ") + ` FROM ` + from + where
		if group != "" {
			q += ` GROUP BY 1`
		}
		return q
	}
	q := `SELECT ` + strings.Join(outer, ", ") + ` FROM (` + half(`review_logs`) + ` UNION ALL ` +
		half(`(`+stagedReviews(u, cols)+`) r`) + `) h`
	if group != "" {
		q += ` GROUP BY g ORDER BY g`
	}
	return q
}

// ReviewDays counts reviews (manual entries aside) per learner day since
// since, oldest first, days without reviews omitted. Logs written before
// the learner's day was recorded count in UTC days.
func (s reviewStore) ReviewDays(ctx context.Context, userID, deckID string, since time.Time) ([]ports.ReviewDay, error) {
	var a args
	q := reviewSums(&a, userID, deckID, since, ` AND kind NOT IN ('manual', `+undoneKinds+`)`, `COALESCE(day, reviewed_at / `+itoa(dayMs)+`)`,
		`COUNT(*)`, `SUM(`+passed+`)`, `SUM(COALESCE(duration_ms, 0))`)
	rows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "review days")
	}
	defer rows.Close()
	out := []ports.ReviewDay{}
	for rows.Next() {
		var day int64
		var d ports.ReviewDay
		if err := rows.Scan(&day, &d.Reviews, &d.Passed, &d.DurationMs); err != nil {
			return nil, s.s.wrap(ctx, err, "review days")
		}
		d.Day = fromMs(day * dayMs)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "review days")
	}
	return out, nil
}

// Retention counts reviews since since of cards that were in the review
// phase before the review, and how many of them passed.
func (s reviewStore) Retention(ctx context.Context, userID, deckID string, since time.Time) (total, pass int, err error) {
	var a args
	q := reviewSums(&a, userID, deckID, since, ` AND prev_phase = 'review' AND kind = 'review'`, "", `COUNT(*)`, `SUM(`+passed+`)`)
	if err := s.q.QueryRowContext(ctx, q, a...).Scan(&total, &pass); err != nil {
		return 0, 0, s.s.wrap(ctx, err, "retention")
	}
	return total, pass, nil
}

// NewCardsStudied counts reviews since since of cards that were new before
// the review.
func (s reviewStore) NewCardsStudied(ctx context.Context, userID, deckID string, since time.Time) (int, error) {
	var a args
	q := reviewSums(&a, userID, deckID, since, ` AND prev_phase = 'new' AND kind = 'review'`, "", `COUNT(*)`)
	var n int
	if err := s.q.QueryRowContext(ctx, q, a...).Scan(&n); err != nil {
		return 0, s.s.wrap(ctx, err, "new cards studied")
	}
	return n, nil
}

// StudiedSince counts the normal reviews since since by the card's phase
// before the review, and the interday learning ratings among them.
func (s reviewStore) StudiedSince(ctx context.Context, userID, deckID string, since time.Time) (ports.StudiedCounts, error) {
	var a args
	q := reviewSums(&a, userID, deckID, since, ` AND kind IN ('review', 'undone')`, "",
		`SUM(CASE WHEN prev_phase = 'new' THEN 1 ELSE 0 END)`, `SUM(CASE WHEN prev_phase = 'review' THEN 1 ELSE 0 END)`)
	// Interday learning: a learning or relearning card's first rating of
	// the period (no schedule-changing log of the card before it since
	// since: its step was set on an earlier day). Staged imports hold no
	// such ratings of today.
	// It reuses reviewSums's arguments (user first, then the deck, since
	// last), so the statement's arguments stay user, deck, since.
	interday := `SELECT COUNT(*) FROM review_logs f WHERE f.user_id = $1`
	if deckID != "" {
		interday += ` AND f.deck_id = $2`
	}
	at := `$` + strconv.Itoa(len(a))
	interday += ` AND f.reviewed_at >= ` + at + ` AND f.kind IN ('review', 'undone') AND f.prev_phase IN ('learning', 'relearning')
AND NOT EXISTS (SELECT 1 FROM review_logs e WHERE e.user_id = f.user_id AND e.card_id = f.card_id AND e.kind NOT IN ('cram', 'undone-cram')
AND e.reviewed_at >= ` + at + ` AND e.reviewed_at < f.reviewed_at)`
	q = `SELECT (` + interday + `), ` + strings.TrimPrefix(q, `SELECT `)
	var c ports.StudiedCounts
	if err := s.q.QueryRowContext(ctx, q, a...).Scan(&c.Interday, &c.New, &c.Review); err != nil {
		return ports.StudiedCounts{}, s.s.wrap(ctx, err, "studied since")
	}
	return c, nil
}

// StudiedByDeck is StudiedSince for each of deckIDs, in one statement:
// the sums grouped by deck, and each deck's interday learning ratings.
func (s reviewStore) StudiedByDeck(ctx context.Context, userID string, deckIDs []string, since time.Time) (map[string]ports.StudiedCounts, error) {
	out := map[string]ports.StudiedCounts{}
	if len(deckIDs) == 0 {
		return out, nil
	}
	var a args
	sums := reviewSumsIn(&a, userID, deckIDs, since, ` AND kind = 'review'`, `deck_id`,
		`SUM(CASE WHEN prev_phase = 'new' THEN 1 ELSE 0 END)`, `SUM(CASE WHEN prev_phase = 'review' THEN 1 ELSE 0 END)`)
	// Every interday rating is a normal review, so its deck has a row.
	at := a.add(ms(since))
	q := `WITH x(g, n, r) AS (` + sums + `)
SELECT x.g, x.n, x.r, (SELECT COUNT(*) FROM review_logs f WHERE f.user_id = ` + a.add(userID) + ` AND f.deck_id = x.g
AND f.reviewed_at >= ` + at + ` AND f.kind = 'review' AND f.prev_phase IN ('learning', 'relearning')
AND NOT EXISTS (SELECT 1 FROM review_logs e WHERE e.user_id = f.user_id AND e.card_id = f.card_id AND e.kind <> 'cram'
AND e.reviewed_at >= ` + at + ` AND e.reviewed_at < f.reviewed_at)) FROM x`
	rows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "studied by deck")
	}
	defer rows.Close()
	for rows.Next() {
		var deck string
		var c ports.StudiedCounts
		if err := rows.Scan(&deck, &c.New, &c.Review, &c.Interday); err != nil {
			return nil, s.s.wrap(ctx, err, "studied by deck")
		}
		out[deck] = c
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "studied by deck")
	}
	return out, nil
}

// RetentionSplit counts the normal reviews since since of review-phase
// cards, young (interval before the review below matureDays, or not
// recorded) and mature apart.
func (s reviewStore) RetentionSplit(ctx context.Context, userID, deckID string, since time.Time, matureDays int) (ports.RetentionCounts, error) {
	var a args
	mature := `COALESCE(prev_interval, 0) >= ` + a.add(matureDays)
	q := reviewSums(&a, userID, deckID, since, ` AND prev_phase = 'review' AND kind = 'review'`, "",
		`SUM(CASE WHEN `+mature+` THEN 0 ELSE 1 END)`, `SUM(CASE WHEN `+mature+` THEN 0 ELSE `+passed+` END)`,
		`SUM(CASE WHEN `+mature+` THEN 1 ELSE 0 END)`, `SUM(CASE WHEN `+mature+` THEN `+passed+` ELSE 0 END)`)
	var c ports.RetentionCounts
	if err := s.q.QueryRowContext(ctx, q, a...).Scan(&c.Young, &c.YoungPassed, &c.Mature, &c.MaturePassed); err != nil {
		return ports.RetentionCounts{}, s.s.wrap(ctx, err, "retention split")
	}
	return c, nil
}

// AnswerButtons counts the normal reviews since since by the card's age
// before each (learning, young, mature) and rating, in one pass.
func (s reviewStore) AnswerButtons(ctx context.Context, userID, deckID string, since time.Time, matureDays int) (contracts.Buttons, error) {
	var a args
	mature := `COALESCE(prev_interval, 0) >= ` + a.add(matureDays)
	ages := []string{
		`prev_phase <> 'review'`,
		`prev_phase = 'review' AND NOT (` + mature + `)`,
		`prev_phase = 'review' AND ` + mature,
	}
	var sums []string
	for _, age := range ages {
		for _, r := range contracts.Ratings {
			sums = append(sums, `SUM(CASE WHEN `+age+` AND rating = '`+string(r)+`' THEN 1 ELSE 0 END)`)
		}
	}
	q := reviewSums(&a, userID, deckID, since, ` AND kind = 'review'`, "", sums...)
	var b contracts.Buttons
	dest := make([]any, 0, 12)
	for _, row := range []*[4]int{&b.Learning, &b.Young, &b.Mature} {
		for i := range row {
			dest = append(dest, &row[i])
		}
	}
	if err := s.q.QueryRowContext(ctx, q, a...).Scan(dest...); err != nil {
		return contracts.Buttons{}, s.s.wrap(ctx, err, "answer buttons")
	}
	return b, nil
}

// AverageDuration returns the mean duration of the reviews since since
// that recorded one, and how many did.
func (s reviewStore) AverageDuration(ctx context.Context, userID string, since time.Time) (float64, int, error) {
	var sum float64
	var n int
	var a args
	q := reviewSums(&a, userID, "", since, ` AND duration_ms IS NOT NULL AND kind NOT IN (`+undoneKinds+`)`, "", `SUM(duration_ms)`, `COUNT(duration_ms)`)
	if err := s.q.QueryRowContext(ctx, q, a...).Scan(&sum, &n); err != nil {
		return 0, 0, s.s.wrap(ctx, err, "average duration")
	}
	if n == 0 {
		return 0, 0, nil
	}
	return sum / float64(n), n, nil
}
