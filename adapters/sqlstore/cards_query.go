package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// dayMs is one day in milliseconds.
const dayMs = 24 * 60 * 60 * 1000

// queued holds for cards a study queue would show: unsuspended and not new.
// Indexes repeat it verbatim, so keep the text in step with the migrations.
const queued = `c.suspended = FALSE AND c.phase <> 'new'`

// Search returns up to limit of the user's cards matching f with ids
// greater than afterID, ordered by id. f.Query must match as full text
// (every word in front, back or tags; the last word as a prefix). f.State
// "suspended" selects suspended cards, "buried" those buried at now,
// "leech" those tagged leech; a phase selects unsuspended cards in that
// phase. f.DueBy selects unsuspended, non-new cards due at or before it.
// Invalid for an unknown state.
func (s cardStore) Search(ctx context.Context, userID string, f contracts.CardFilter, afterID string, limit int, now time.Time) ([]ports.CardRow, error) {
	if limit <= 0 {
		return []ports.CardRow{}, nil
	}
	if f.Sort != "" {
		return s.searchSorted(ctx, userID, f, afterID, limit, now)
	}
	words := queryWords(f.Query)
	if w, ok := s.s.d.(TextWindower); ok && len(words) > 0 {
		rows, done, err := s.searchWindow(ctx, w, userID, f, words, afterID, limit, now)
		if err != nil || done {
			return rows, err
		}
	}
	rm, rowMatch := s.s.d.(RowTextMatcher)
	if rowMatch && len(words) > 0 {
		rows, done, err := s.searchRowWindow(ctx, rm, userID, f, words, afterID, limit, now)
		if err != nil || done {
			return rows, err
		}
	}
	var a args
	q := `SELECT ` + cardCols + ` FROM cards c WHERE c.user_id = ` + a.add(userID)
	if f.DeckID != "" {
		q += ` AND c.deck_id = ` + a.add(f.DeckID)
	}
	if afterID != "" {
		q += ` AND c.id > ` + a.add(afterID)
	}
	if len(words) > 0 {
		param := "$" + itoa(len(a)+1)
		cond, arg, err := s.s.d.MatchText(ctx, s.q, param, words)
		if err != nil {
			return nil, s.s.wrap(ctx, err, "search cards")
		}
		a.add(arg)
		q += ` AND ` + cond
	}
	cond, err := s.filterCards(f, &a, now)
	if err != nil {
		return nil, err
	}
	if rowMatch && len(words) > 0 {
		// Every match first (the text index), then the page: the words
		// are rarer than the window found them, and ORDER BY id LIMIT on
		// the cards themselves could be planned as a walk of every card
		// by id testing each (searchRowWindow).
		q = `WITH m AS MATERIALIZED (` + q + cond + `) SELECT * FROM m ORDER BY m.id LIMIT ` + a.add(limit)
	} else {
		q += cond + ` ORDER BY c.id LIMIT ` + a.add(limit)
	}
	return s.scanCards(ctx, "search cards", q, a...)
}

// sortCols are the columns of the card browser's orders, and whether the
// value is a whole number (passed as one, so Postgres compares it with
// its bigint column).
var sortCols = map[contracts.CardSort]struct {
	col   string
	whole bool
}{
	contracts.SortDue: {"c.due", true}, contracts.SortInterval: {"c.scheduled_days", true},
	contracts.SortDifficulty: {"c.difficulty", false}, contracts.SortLapses: {"c.lapses", true},
	contracts.SortAdded: {"c.created_at", true},
}

// searchSorted is Search in f.Sort's order (ties by id), going on after
// (f.AfterKey, afterID) when afterID is given. Words match through the
// dialect's text condition, without the id-ordered windows.
func (s cardStore) searchSorted(ctx context.Context, userID string, f contracts.CardFilter, afterID string, limit int, now time.Time) ([]ports.CardRow, error) {
	sc, ok := sortCols[f.Sort]
	if !ok {
		return nil, contracts.Errorf(contracts.KindInvalid, "unknown card order %q", f.Sort)
	}
	var a args
	q := `SELECT ` + cardCols + ` FROM cards c WHERE c.user_id = ` + a.add(userID)
	if f.DeckID != "" {
		q += ` AND c.deck_id = ` + a.add(f.DeckID)
	}
	if words := queryWords(f.Query); len(words) > 0 {
		param := "$" + itoa(len(a)+1)
		cond, arg, err := s.s.d.MatchText(ctx, s.q, param, words)
		if err != nil {
			return nil, s.s.wrap(ctx, err, "search cards")
		}
		a.add(arg)
		q += ` AND ` + cond
	}
	cond, err := s.filterCards(f, &a, now)
	if err != nil {
		return nil, err
	}
	q += cond
	dir, cmp := ``, ` > `
	if f.Desc {
		dir, cmp = ` DESC`, ` < `
	}
	if afterID != "" {
		var key any = f.AfterKey
		if sc.whole {
			key = int64(f.AfterKey)
		}
		k := a.add(key)
		q += ` AND (` + sc.col + cmp + k + ` OR (` + sc.col + ` = ` + k + ` AND c.id > ` + a.add(afterID) + `))`
	}
	q += ` ORDER BY ` + sc.col + dir + `, c.id LIMIT ` + a.add(limit)
	return s.scanCards(ctx, "search cards", q, a...)
}

// filterCards returns the conditions of f's tags, state and due time on
// the cards row aliased c, each starting with AND, adding their
// arguments to a; "buried" means buried at now. Invalid for an unknown
// state.
func (s cardStore) filterCards(f contracts.CardFilter, a *args, now time.Time) (string, error) {
	var q string
	if f.Flag != nil {
		q += ` AND c.flag = ` + a.add(*f.Flag)
	}
	for _, tag := range dedupe(f.Tags) {
		q += ` AND ` + s.s.d.HasTag(a.add(tag))
	}
	switch f.State {
	case "":
	case "suspended":
		q += ` AND c.suspended = TRUE`
	case string(contracts.PhaseNew), string(contracts.PhaseLearning), string(contracts.PhaseReview), string(contracts.PhaseRelearning):
		q += ` AND c.suspended = FALSE AND c.phase = ` + a.add(f.State)
	case "buried":
		q += ` AND c.buried_until > ` + a.add(ms(now))
	case "leech":
		q += ` AND ` + s.s.d.HasTag(a.add(contracts.LeechTag))
	default:
		return "", contracts.Errorf(contracts.KindInvalid, "unknown state %q: use new, learning, review, relearning, suspended, buried or leech", f.State)
	}
	if f.DueBy != nil {
		q += ` AND ` + queued + ` AND c.due <= ` + a.add(ms(*f.DueBy))
	}
	return q, nil
}

// searchWindow is Search with words on a TextWindower: it takes the next
// searchWindowFactor × limit cards of the user (of the deck) by id after
// afterID, an index-only read, and keeps those matching f, reading the
// text index only between the least and the greatest of their seq. done
// is true when the answer is Search's: the window held limit matches, or
// it held every remaining card. Otherwise (the words are rarer than one
// card in searchWindowFactor, or the other filters rule most cards out)
// Search reads every match instead.
func (s cardStore) searchWindow(ctx context.Context, w TextWindower, userID string, f contracts.CardFilter, words []string, afterID string, limit int, now time.Time) (rows []ports.CardRow, done bool, err error) {
	var a args
	window := limit * searchWindowFactor
	cand := `SELECT c.seq, c.id FROM cards c WHERE c.user_id = ` + a.add(userID)
	if f.DeckID != "" {
		cand += ` AND c.deck_id = ` + a.add(f.DeckID)
	}
	if afterID != "" {
		cand += ` AND c.id > ` + a.add(afterID)
	}
	cand += ` ORDER BY c.id LIMIT ` + a.add(window)
	match, arg := w.MatchTextIn("cand.seq", "$"+itoa(len(a)+1), `(SELECT MIN(seq) FROM cand)`, `(SELECT MAX(seq) FROM cand)`, words)
	a.add(arg)
	cond, err := s.filterCards(f, &a, now)
	if err != nil {
		return nil, false, err
	}
	q := `WITH cand AS MATERIALIZED (` + cand + `)
SELECT ` + cardCols + `, (SELECT COUNT(*) FROM cand) FROM cand JOIN cards c ON c.seq = cand.seq
WHERE ` + match + cond + ` ORDER BY cand.id LIMIT ` + a.add(limit)
	return s.windowPage(ctx, q, a, window, limit)
}

// searchRowWindow is Search with words on a RowTextMatcher, as
// searchWindow: it reads the cards of the user (of the deck) by id after
// afterID, at most searchWindowFactor × limit of them, with the columns
// the match tests, and keeps those matching f, testing each row, until it
// has limit (a common word stops after a few dozen). The window is a
// subquery with its own LIMIT, so the planner cannot answer the match
// from the text index instead (fetching every match of a common word to
// join the window); its size is counted beside, an index read. done as
// searchWindow's.
func (s cardStore) searchRowWindow(ctx context.Context, m RowTextMatcher, userID string, f contracts.CardFilter, words []string, afterID string, limit int, now time.Time) (rows []ports.CardRow, done bool, err error) {
	var a args
	window := limit * searchWindowFactor
	from := ` FROM cards c WHERE c.user_id = ` + a.add(userID)
	if f.DeckID != "" {
		from += ` AND c.deck_id = ` + a.add(f.DeckID)
	}
	if afterID != "" {
		from += ` AND c.id > ` + a.add(afterID)
	}
	from += ` ORDER BY c.id LIMIT ` + a.add(window)
	match, arg, err := s.s.d.MatchText(ctx, s.q, "$"+itoa(len(a)+1), words)
	if err != nil {
		return nil, false, s.s.wrap(ctx, err, "search cards")
	}
	a.add(arg)
	cond, err := s.filterCards(f, &a, now)
	if err != nil {
		return nil, false, err
	}
	q := `SELECT ` + cardCols + `, (SELECT COUNT(*) FROM (SELECT c.id` + from + `) w)
FROM (SELECT ` + cardCols + `, ` + m.MatchColumns() + from + `) c
WHERE ` + match + cond + ` ORDER BY c.id LIMIT ` + a.add(limit)
	return s.windowPage(ctx, q, a, window, limit)
}

// windowPage runs a window query (searchWindow, searchRowWindow): rows
// of cardCols and the number of candidates in the window.
func (s cardStore) windowPage(ctx context.Context, q string, a args, window, limit int) (rows []ports.CardRow, done bool, err error) {
	const op = "search cards"
	dbRows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, false, s.s.wrap(ctx, err, op)
	}
	defer dbRows.Close()
	rows = []ports.CardRow{}
	candidates := 0
	for dbRows.Next() {
		var d cardDest
		if err := dbRows.Scan(append(d.dest(), &candidates)...); err != nil {
			return nil, false, s.s.wrap(ctx, err, op)
		}
		c, err := d.row()
		if err != nil {
			return nil, false, s.s.wrap(ctx, err, op)
		}
		rows = append(rows, c)
	}
	if err := dbRows.Err(); err != nil {
		return nil, false, s.s.wrap(ctx, err, op)
	}
	// With no row, how many candidates there were is unknown: read every
	// match (a cheap read when the word is rare, as it then likely is).
	return rows, len(rows) == limit || (len(rows) > 0 && candidates < window), nil
}

// searchWindowFactor sizes a text search's window (searchWindow): a page
// of limit cards is looked for among the next searchWindowFactor × limit
// cards by id, so words on one card in 16 or more are answered from it.
const searchWindowFactor = 16

// DueCards returns up to limit unsuspended, non-new cards of a deck due at
// or before now, most overdue first (ties by id).
func (s cardStore) DueCards(ctx context.Context, userID, deckID string, now time.Time, limit int) ([]ports.CardRow, error) {
	if limit <= 0 {
		return []ports.CardRow{}, nil
	}
	return s.scanCards(ctx, "due cards", `SELECT `+cardCols+` FROM cards c
WHERE c.user_id = $1 AND c.deck_id = $2 AND `+queued+` AND c.due <= $3 ORDER BY c.due, c.id LIMIT $4`,
		userID, deckID, ms(now), limit)
}

// NewCards returns up to limit unsuspended new cards of a deck, oldest
// first (ties by id).
func (s cardStore) NewCards(ctx context.Context, userID, deckID string, limit int) ([]ports.CardRow, error) {
	if limit <= 0 {
		return []ports.CardRow{}, nil
	}
	return s.scanCards(ctx, "new cards", `SELECT `+cardCols+` FROM cards c
WHERE c.user_id = $1 AND c.deck_id = $2 AND c.suspended = FALSE AND c.phase = 'new' ORDER BY c.created_at, c.id LIMIT $3`,
		userID, deckID, limit)
}

// ScheduledStates returns the states of the unsuspended, not new cards of
// a deck (every deck when deckID is ""), ordered by id.
func (s cardStore) ScheduledStates(ctx context.Context, userID, deckID string) ([]contracts.CardState, error) {
	var a args
	q := `SELECT c.deck_id, c.phase, c.due, c.stability, c.difficulty, c.scheduled_days, c.reps, c.lapses, c.step, c.last_review
FROM cards c WHERE c.user_id = ` + a.add(userID) + ` AND c.suspended = FALSE AND c.phase <> 'new'`
	if deckID != "" {
		q += ` AND c.deck_id = ` + a.add(deckID)
	}
	out := []contracts.CardState{}
	err := s.scheduledStates(ctx, q+` ORDER BY c.id`, a, func(_ string, st contracts.CardState) { out = append(out, st) })
	return out, err
}

// ScheduledStatesByDeck returns every deck's scheduled states by deck id.
func (s cardStore) ScheduledStatesByDeck(ctx context.Context, userID string) (map[string][]contracts.CardState, error) {
	var a args
	q := `SELECT c.deck_id, c.phase, c.due, c.stability, c.difficulty, c.scheduled_days, c.reps, c.lapses, c.step, c.last_review
FROM cards c WHERE c.user_id = ` + a.add(userID) + ` AND c.suspended = FALSE AND c.phase <> 'new' ORDER BY c.deck_id, c.id`
	out := map[string][]contracts.CardState{}
	err := s.scheduledStates(ctx, q, a, func(deck string, st contracts.CardState) { out[deck] = append(out[deck], st) })
	return out, err
}

// scheduledStates runs a query of deck ids and states, handing each row to add.
func (s cardStore) scheduledStates(ctx context.Context, q string, a args, add func(deckID string, st contracts.CardState)) error {
	rows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return s.s.wrap(ctx, err, "scheduled states")
	}
	defer rows.Close()
	for rows.Next() {
		var st contracts.CardState
		var deck, phase string
		var due int64
		var last sql.NullInt64
		if err := rows.Scan(&deck, &phase, &due, &st.Stability, &st.Difficulty, &st.ScheduledDays, &st.Reps, &st.Lapses, &st.Step, &last); err != nil {
			return s.s.wrap(ctx, err, "scheduled states")
		}
		st.Phase, st.Due, st.LastReview = contracts.Phase(phase), fromMs(due), fromNullMs(last)
		add(deck, st)
	}
	if err := rows.Err(); err != nil {
		return s.s.wrap(ctx, err, "scheduled states")
	}
	return nil
}

// CountPhases counts a deck's cards (every deck's when deckID is "") by
// phase; suspended cards count only as suspended. The counts are kept per
// deck by triggers (deck_counts), which count learning and relearning
// together: the relearning cards, few, are counted per deck through the
// cards_deck_state index.
func (s cardStore) CountPhases(ctx context.Context, userID, deckID string) (contracts.PhaseCounts, error) {
	if deckID == "" {
		return s.CountPhasesIn(ctx, userID, nil)
	}
	return s.CountPhasesIn(ctx, userID, []string{deckID})
}

// CountPhasesIn is CountPhases over several decks together (every deck
// when deckIDs is empty).
func (s cardStore) CountPhasesIn(ctx context.Context, userID string, deckIDs []string) (contracts.PhaseCounts, error) {
	var a args
	user := a.add(userID)
	q := `SELECT COALESCE(SUM(x.fresh), 0), COALESCE(SUM(x.learning), 0), COALESCE(SUM(x.review), 0), COALESCE(SUM(x.suspended), 0),
  COALESCE(SUM(x.relearning), 0)
FROM (SELECT dc.fresh, dc.learning, dc.review, dc.suspended,
    (SELECT COUNT(*) FROM cards c WHERE c.user_id = ` + user + ` AND c.deck_id = dc.deck_id AND c.suspended = FALSE AND c.phase = 'relearning') AS relearning
  FROM deck_counts dc JOIN decks d ON d.id = dc.deck_id WHERE d.user_id = ` + user
	switch len(deckIDs) {
	case 0:
	case 1:
		q += ` AND d.id = ` + a.add(deckIDs[0])
	default:
		q += ` AND d.id IN (` + list(&a, deckIDs) + `)`
	}
	q += `) x`
	var pc contracts.PhaseCounts
	var learning int
	if err := s.q.QueryRowContext(ctx, q, a...).Scan(&pc.New, &learning, &pc.Review, &pc.Suspended, &pc.Relearning); err != nil {
		return contracts.PhaseCounts{}, s.s.wrap(ctx, err, "count phases")
	}
	pc.Learning = learning - pc.Relearning
	return pc, nil
}

// CountDue counts unsuspended non-new cards due at or before t (every
// deck's when deckID is "").
func (s cardStore) CountDue(ctx context.Context, userID, deckID string, t time.Time) (int, error) {
	var a args
	q := `SELECT COALESCE(SUM(dd.n), 0) FROM deck_due dd WHERE dd.user_id = ` + a.add(userID)
	if deckID != "" {
		q += ` AND dd.deck_id = ` + a.add(deckID)
	}
	q += ` AND dd.due <= ` + a.add(ms(t))
	var n int
	if err := s.q.QueryRowContext(ctx, q, a...).Scan(&n); err != nil {
		return 0, s.s.wrap(ctx, err, "count due")
	}
	return n, nil
}

// DueHistogram counts unsuspended non-new cards by due day: bucket i holds
// those due in [start+i days, start+i+1 days); bucket 0 also holds
// everything due before start. len(result) == days (none when days <= 0).
func (s cardStore) DueHistogram(ctx context.Context, userID, deckID string, start time.Time, days int) ([]int, error) {
	if days <= 0 {
		return []int{}, nil
	}
	out := make([]int, days)
	var a args
	user, from := a.add(userID), a.add(ms(start))
	q := `SELECT CASE WHEN dd.due < ` + from + ` THEN 0 ELSE (dd.due - ` + from + `) / ` + itoa(dayMs) + ` END, SUM(dd.n)
FROM deck_due dd WHERE dd.user_id = ` + user
	if deckID != "" {
		q += ` AND dd.deck_id = ` + a.add(deckID)
	}
	q += ` AND dd.due < ` + a.add(ms(start)+int64(days)*dayMs) + ` GROUP BY 1`
	rows, err := s.q.QueryContext(ctx, q, a...)
	if err != nil {
		return nil, s.s.wrap(ctx, err, "due histogram")
	}
	defer rows.Close()
	for rows.Next() {
		var bucket int64
		var n int
		if err := rows.Scan(&bucket, &n); err != nil {
			return nil, s.s.wrap(ctx, err, "due histogram")
		}
		if bucket >= 0 && bucket < int64(days) {
			out[bucket] += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.s.wrap(ctx, err, "due histogram")
	}
	return out, nil
}
