package sqlstore

import (
	"slices"
	"strings"
)

// A published import stage's review logs are live before they reach
// review_logs (migration 00026): publishing copies a stage's notes and
// cards in one transaction and leaves its review logs, most of a
// package's rows, in import_review_logs; dropping the stage moves them
// into review_logs a batch a transaction. Every read of review logs reads
// both, through liveReviews (the statistics through reviewSums, which
// adds up the sums of each), so a log is seen from the publish on, once.

// statsReviewCols are the columns the statistics read, those of the
// covering index review_logs_user_time; review_logs_deck_time has
// deck_id too, for a deck's.
var (
	statsReviewCols     = []string{"user_id", "reviewed_at", "kind", "rating", "duration_ms", "day", "prev_phase", "prev_interval"}
	deckStatsReviewCols = append(slices.Clip(statsReviewCols), "deck_id")
)

// stagedReviews is a SELECT of cols from the review logs of published
// import stages not yet in review_logs, of the user whose id is the SQL
// expression user, with their card's deck (a card moved since the import
// takes its logs along; a log whose card is gone is not read).
//
// The user's published stages (none, nearly always) lead, and the staged
// logs are reached through import_review_logs_card, which starts with the
// user: that index is what keeps every read, submit_review's daily count
// among them, from scanning the logs another account's import has staged,
// on both databases (TestReviewReadsSkipOtherImports fails without it;
// inside reviewSums, SQLite no longer keeps the CROSS JOIN's order).
func stagedReviews(user string, cols []string) string {
	return stagedCols(cols) + ` FROM import_stages st CROSS JOIN import_review_logs s JOIN cards c ON c.user_id = s.user_id AND c.id = s.card_id
WHERE st.user_id = ` + user + ` AND st.published_at IS NOT NULL AND s.user_id = ` + user + ` AND s.stage_id = st.id
AND NOT EXISTS (SELECT 1 FROM review_logs x WHERE x.id = s.id)`
}

// stagedCols is "SELECT cols" of import_review_logs s joined with its
// card c: the deck is the card's; a staged log has no operation.
func stagedCols(cols []string) string {
	var b strings.Builder
	b.WriteString(`SELECT `)
	for i, c := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		switch c {
		case "deck_id":
			b.WriteString("c.deck_id")
		case "operation_id", "credential_id":
			b.WriteString("CAST(NULL AS TEXT) AS " + c)
		case "card_version":
			b.WriteString("CAST(NULL AS BIGINT) AS " + c)
		default:
			b.WriteString("s." + c)
		}
	}
	return b.String()
}

// liveReviews is a FROM source, named r, of cols of the review logs of
// the user whose id is the SQL expression user: review_logs and
// stagedReviews. The conditions of the query that reads it reach both
// halves.
func liveReviews(user string, cols ...string) string {
	all := strings.Join(cols, ", ")
	return `(SELECT ` + all + ` FROM review_logs WHERE user_id = ` + user + ` UNION ALL ` + stagedReviews(user, cols) + `) r`
}

// columns splits a comma-separated column list.
func columns(list string) []string {
	out := strings.Split(list, ",")
	for i, c := range out {
		out[i] = strings.TrimSpace(c)
	}
	return out
}
