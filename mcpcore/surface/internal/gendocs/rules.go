package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// rules is the part of the reference that holds for every tool: errors,
// retries, sessions, the widget and media. Every number comes from
// contracts, printed as written.
func rules() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("## Rules every tool follows\n\n")

	p("### Errors\n\n")
	p("Protocol misuse (malformed JSON-RPC, an unknown tool, arguments that fail the input schema, ")
	p("a call outside the granted scopes) is a JSON-RPC error. Everything else is a tool result with ")
	p("`isError: true`, a message written for the model, and the error kind in `_meta[%q]`:\n\n", contracts.MetaErrorKind)
	p("| Kind | Meaning | What to do |\n|---|---|---|\n")
	for _, k := range contracts.ErrorKinds {
		m := kindHelp[k]
		p("| `%s` | %s | %s |\n", k, m[0], m[1])
	}
	p("\nInternal and unavailable failures carry only a reference id (`ref …`); the cause stays in the ")
	p("server's log under that id. When a mutation succeeded but its audit row could not be written, ")
	p("the result carries `_meta[%q]: true`; the change is kept.\n\n", contracts.MetaAuditFailed)

	p("### Retries and idempotency\n\n")
	p("- `add_cards` and `import_cards` take an optional `idempotencyKey` (up to 128 characters): ")
	p("repeating a call with the same key and the same content returns the first result and adds nothing; ")
	p("the same key with different content is a `conflict`. Without a key, a card whose front and back ")
	p("already exist in the deck is reported as `duplicate` with the existing card's `existingId`.\n")
	p("- Bulk tools take 1–%s items per call and answer with one outcome per item (`items[].status`: ", num64(contracts.MaxBulkItems))
	p("`created`, `updated`, `deleted`, `duplicate`, `invalid`, `not_found`, `conflict`), plus `counts` by status.\n")
	p("- `submit_review` needs the card's `position` as the session gave it: a retried call with the same ")
	p("position and rating is answered as a replay and never rates the card twice; a stale position is a `conflict`.\n")
	p("- `update_deck`, `update_cards`, `delete_deck` and `delete_cards` are idempotent: repeating them changes nothing more.\n\n")

	p("### Study sessions\n\n")
	p("A study session's id is a random handle bound to the user who started it, valid for %s after it ", human(contracts.SessionTTL))
	p("starts; after that, or for another user's handle, tools answer `not_found` and a new session must be ")
	p("started with `start_study_session`. Ids are never guessed: take them from earlier results.\n\n")

	p("### The study widget\n\n")
	p("`render_study_session` links the MCP Apps resource `%s` (`text/html;profile=mcp-app`, read with ", contracts.StudyWidgetURI)
	p("`resources/read`, which needs `study:render`). Its text result always carries the session's absolute ")
	p("`/study/{sessionId}` link for hosts that do not show widgets.\n\n")

	p("### Media\n\n")
	p("`request_media_upload` returns an upload intent: `PUT` the bytes to `uploadUrl` with the given `headers` ")
	p("within %s, at most `maxBytes` (up to %s bytes) of one of the allowed types (%s). ", human(contracts.MediaIntentTTL), num64(contracts.MaxMediaBytes), "`"+strings.Join(contracts.AllowedMediaTypes, "`, `")+"`")
	p("Then use the `mediaId` in card text: `![alt](media:ID)` for an image, `[sound:ID]` for audio; `add_cards`, ")
	p("`update_cards` and the note tools refuse an item that names media the account has not uploaded. ")
	p("Packages and text files for `import_package` (%s, up to %s bytes) are stored as attachments, never shown inline. ", "`"+strings.Join(contracts.AttachmentTypes, "`, `")+"`", num64(contracts.MaxAttachmentBytes))
	p("The token works once; the bytes must match the declared type; each account has a storage quota (1 GiB by default). ")
	p("`GET /media/{id}` serves a file to its owner's web session, and to the short-lived signed URLs the study widget carries.\n\n")
	return b.String()
}

// kindHelp explains each error kind: what it means, what to do.
var kindHelp = map[contracts.ErrorKind][2]string{
	contracts.KindInvalid:         {"the input is wrong; the message says how", "fix the arguments and call again"},
	contracts.KindNotFound:        {"absent, expired, or someone else's", "take ids from list or search results"},
	contracts.KindConflict:        {"a duplicate, or the state changed underneath", "read the current state, then decide"},
	contracts.KindForbidden:       {"not allowed for this account or credential", "ask the user; do not retry"},
	contracts.KindUnauthenticated: {"no valid credential", "the user must reconnect"},
	contracts.KindRateLimited:     {"a rate limit, the daily write quota or a card/deck cap", "the message says which: wait as long as it says, or delete what is no longer needed"},
	contracts.KindUnavailable:     {"the service is briefly away", "retry after a few seconds"},
	contracts.KindInternal:        {"a fault on the server", "report the ref; the input was not the cause"},
}

// num64 prints an integer as written, without exponent.
func num64[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }

// human prints a duration in the largest whole unit.
func human(d time.Duration) string {
	switch {
	case d%(24*time.Hour) == 0:
		return plural(int(d/(24*time.Hour)), "day")
	case d%time.Hour == 0:
		return plural(int(d/time.Hour), "hour")
	default:
		return plural(int(d/time.Minute), "minute")
	}
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
