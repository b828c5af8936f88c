package servers

// The database floor's statements, each with why a correct implementation
// needs it. $n placeholders work on both SQLite and Postgres.

// sqlKeyWithExposure authenticates a call: the API key by its id (primary
// key), its hash, expiry, revocation and scopes, and in the same read the
// owner's exposure settings (read-only mode, switched-off tools), which
// every call must honour. Revocation is seen on the next request: nothing
// is cached.
const sqlKeyWithExposure = `SELECT k.user_id, k.hash, k.scopes, k.expires_at, k.revoked_at, x.read_only, x.disabled_tools
FROM api_keys k LEFT JOIN exposure_settings x ON x.user_id = k.user_id
WHERE k.id = $1`

// sqlListDecks is list_decks: a page of the user's decks, each with its
// effective settings (the deck's own, with its preset's over them: the
// scheduler's parameters live in the preset) and its counts, in one read.
// The counts come from what the schema's triggers maintain, so no card is
// read: by phase from deck_counts (one row per deck), due now as the sum of
// the deck's queued cards by due time up to now from deck_due (one row per
// distinct due time). The reader's decks all fit on one page.
const sqlListDecks = `SELECT d.id, d.name, d.description, d.settings, d.preset_id, p.settings, d.created_at, d.updated_at,
  COALESCE(dc.total, 0), COALESCE(dc.fresh, 0), COALESCE(dc.learning, 0), COALESCE(dc.review, 0), COALESCE(dc.suspended, 0),
  (SELECT COALESCE(SUM(dd.n), 0) FROM deck_due dd WHERE dd.user_id = d.user_id AND dd.deck_id = d.id AND dd.due <= $2)
FROM decks d
LEFT JOIN presets p ON p.id = d.preset_id AND p.user_id = d.user_id
LEFT JOIN deck_counts dc ON dc.deck_id = d.id
WHERE d.user_id = $1
ORDER BY d.id
LIMIT $3`

// sqlReviewTarget is submit_review's read: the card's lowest pending item
// in the user's live session, the card's schedule and version (for the
// conditional update), its deck's settings with its preset's over them
// (the scheduler's parameters and the daily limits) and the account's
// settings (the learner's day: where "today" starts for the daily limits,
// the quota's day and the day the review log records), through the
// pending-items index, in one read.
const sqlReviewTarget = `SELECT i.position, c.deck_id, c.suspended, c.phase, c.due, c.stability, c.difficulty, c.scheduled_days,
  c.reps, c.lapses, c.step, c.last_review, c.version, d.settings, p.settings, s.expires_at,
  a.timezone, a.rollover_hour, a.learn_ahead_minutes, a.new_per_day, a.reviews_per_day
FROM study_session_items i
JOIN study_sessions s ON s.id = i.session_id
JOIN cards c ON c.user_id = s.user_id AND c.id = i.card_id
JOIN decks d ON d.user_id = c.user_id AND d.id = c.deck_id
LEFT JOIN presets p ON p.id = d.preset_id AND p.user_id = d.user_id
LEFT JOIN account_settings a ON a.user_id = s.user_id
WHERE i.session_id = $1 AND i.card_id = $2 AND i.reviewed_at IS NULL AND s.user_id = $3 AND s.expires_at > $4
ORDER BY i.position
LIMIT 1`

// sqlAccountDay reads the account's learner's day (timezone, rollover
// hour) for a write's daily quota, when it is not remembered.
const sqlAccountDay = `SELECT timezone, rollover_hour FROM account_settings WHERE user_id = $1`

// sqlChargeWrites counts the call's writes against the account's daily
// write quota (issue 10 §2) before it writes: one upsert that applies only
// under the quota (a new learner's day starts the count over) and returns
// no row when the quota is reached. A review adds no card, so it needs no
// card count.
const sqlChargeWrites = `INSERT INTO account_usage (user_id, day, writes) VALUES ($1, $2, $3)
ON CONFLICT (user_id) DO UPDATE SET
  writes = CASE WHEN account_usage.day = excluded.day THEN account_usage.writes + excluded.writes ELSE excluded.writes END,
  day = excluded.day
WHERE CASE WHEN account_usage.day = excluded.day THEN account_usage.writes + excluded.writes ELSE excluded.writes END <= $4
RETURNING writes`

// sqlChargeCards is sqlChargeWrites for a call that adds cards: it also
// returns the cards the account holds (from the per-deck counts), for
// the account's card cap.
const sqlChargeCards = `INSERT INTO account_usage (user_id, day, writes) VALUES ($1, $2, $3)
ON CONFLICT (user_id) DO UPDATE SET
  writes = CASE WHEN account_usage.day = excluded.day THEN account_usage.writes + excluded.writes ELSE excluded.writes END,
  day = excluded.day
WHERE CASE WHEN account_usage.day = excluded.day THEN account_usage.writes + excluded.writes ELSE excluded.writes END <= $4
RETURNING writes, (SELECT COALESCE(SUM(dc.total), 0) FROM decks d JOIN deck_counts dc ON dc.deck_id = d.id WHERE d.user_id = $1)`

// sqlLockDeck takes the deck's row lock before the daily limits are
// counted: two sessions (or an agent and the web app) reviewing the same
// deck could each see one new card left and both rate one; holding the
// deck's row until the commit makes the count and the write one step.
// Only a new or review-phase card needs it (learning steps are outside the
// limits).
const sqlLockDeck = `UPDATE decks SET updated_at = updated_at WHERE user_id = $1 AND id = $2`

// sqlStudiedToday counts the deck's new and review-phase cards rated
// since the start of the learner's day, after the lock: what the deck's
// daily limits leave. (An account-wide cap, when set, needs the same count
// over every deck; the benchmark's accounts set none.)
const sqlStudiedToday = `SELECT COALESCE(SUM(CASE WHEN prev_phase = 'new' THEN 1 ELSE 0 END), 0),
  COALESCE(SUM(CASE WHEN prev_phase = 'review' THEN 1 ELSE 0 END), 0)
FROM review_logs WHERE user_id = $1 AND deck_id = $2 AND reviewed_at >= $3 AND kind = 'review'`

// sqlMarkItem marks the item reviewed; the IS NULL condition makes a
// concurrent review of the same item lose (0 rows).
const sqlMarkItem = `UPDATE study_session_items SET reviewed_at = $1 WHERE session_id = $2 AND position = $3 AND reviewed_at IS NULL`

// sqlUpdateCard stores the new schedule if nobody changed the card since
// it was read (optimistic version).
const sqlUpdateCard = `UPDATE cards SET phase = $1, due = $2, stability = $3, difficulty = $4, scheduled_days = $5, reps = $6,
  lapses = $7, step = $8, last_review = $9, version = version + 1, updated_at = $10
WHERE user_id = $11 AND id = $12 AND version = $13`

// sqlInsertReview appends the review log row (the study history), with
// the learner's day it counts in and the card's state before the review
// (what undo_review restores).
const sqlInsertReview = `INSERT INTO review_logs (id, user_id, card_id, deck_id, session_id, rating, prev_phase,
phase, due, stability, difficulty, scheduled_days, reps, lapses, step, last_review, reviewed_at, duration_ms,
kind, day, prev_interval, prev_state, operation_id, credential_id, card_version)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, 'review', $19, $20, $21, $22, $23, $24)`

// sqlRequeue queues a card again at the end of the session when its
// learning step is due within the session (not in the benchmark: an easy
// new card graduates).
const sqlRequeue = `INSERT INTO study_session_items (session_id, position, user_id, card_id)
SELECT $1, COALESCE(MAX(position), -1) + 1, $2, $3 FROM study_session_items WHERE session_id = $1`

// sqlProgress is what the result tells the model: how many items are
// reviewed and pending, and the next card to show: a learning step due
// now first (earliest first), else the lowest position not in a learning
// step, else a learning step due later (as the session shows them).
const sqlProgress = `SELECT
  (SELECT COUNT(*) FROM study_session_items WHERE session_id = $1 AND reviewed_at IS NOT NULL),
  (SELECT COUNT(*) FROM study_session_items WHERE session_id = $1 AND reviewed_at IS NULL),
  n.position, n.id, n.front, n.back, n.tags, n.phase
FROM (SELECT 1 AS one) o
LEFT JOIN (SELECT i.position, c.id, c.front, c.back, c.tags, c.phase
  FROM study_session_items i JOIN cards c ON c.user_id = i.user_id AND c.id = i.card_id
  WHERE i.user_id = $2 AND i.session_id = $1 AND i.reviewed_at IS NULL
  ORDER BY CASE WHEN c.phase IN ('learning', 'relearning') AND c.due <= $3 THEN 0 WHEN c.phase NOT IN ('learning', 'relearning') THEN 1 ELSE 2 END,
    CASE WHEN c.phase IN ('learning', 'relearning') THEN c.due ELSE 0 END, i.position
  LIMIT 1) n ON 1 = 1`

// sqlAuditSavepoint comes before the audit row: when the audit insert
// fails, only the row is rolled back and the mutation still commits
// (seed 002, DESIGN.md §2 Audit). The commit ends it: no RELEASE.
const sqlAuditSavepoint = `SAVEPOINT audit`

// sqlInsertAudit writes the call's audit row, in the mutation's transaction.
const sqlInsertAudit = `INSERT INTO mcp_audit_events (id, user_id, credential_kind, credential_id, tool, action, input_summary,
affected_ids, outcome, error_kind, request_id, at, operation_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`

// insertCardsHead and insertCardsTail frame add_cards' one multi-row
// insert: the deck's ownership is the (user_id, deck_id) foreign key, the
// dedupe check is the (deck_id, hash) unique key (a duplicate is skipped,
// not an error), and RETURNING names the cards inserted.
const (
	insertCardsHead = `INSERT INTO cards (id, user_id, deck_id, front, back, tags, suspended, phase, due, hash, version, created_at, updated_at) VALUES `
	insertCardsTail = ` ON CONFLICT (deck_id, hash) DO NOTHING RETURNING id`
	insertCardsCols = 10 // placeholders per row
)

// sqlExistingHashes names the cards a duplicate collided with (only when
// the insert skipped some).
const sqlExistingHashes = `SELECT id, hash FROM cards WHERE user_id = $1 AND deck_id = $2 AND hash = $3`
