package filtered

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/cardtext"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// states are the is: words that name a card state (search_cards' states).
var states = map[string]bool{"new": true, "learning": true, "review": true, "relearning": true, "suspended": true, "buried": true, "leech": true}

// props maps a prop: name to its card column.
var props = map[string]string{"ivl": "scheduled_days", "due": "due", "lapses": "lapses", "reps": "reps", "s": "stability", "d": "difficulty"}

// maxRatedDays bounds rated:n (Anki allows 365).
const maxRatedDays = 365

// query turns a search into the store's query at now in the learner's
// day: words match front, back and tags; tag:x, deck:name (exactly one
// deck; deck:"Name with spaces", or _ for a space), is:due (review-phase cards due by the end of today, learning
// cards due now), is:<state>, rated:n (rated in the last n learner's
// days, today being 1), prop:<ivl|due|lapses|reps|s|d><op><number>
// (prop:due counts days from today). A malformed word is invalid, with
// the word named.
func query(ctx context.Context, st ports.Stores, uid, search string, day contracts.LearnerDay, now time.Time) (ports.FilteredQuery, error) {
	q := ports.FilteredQuery{Now: now}
	if utf8.RuneCountInString(search) > contracts.MaxFilteredSearchLen || !utf8.ValidString(search) || strings.ContainsRune(search, 0) {
		return q, contracts.Errorf(contracts.KindInvalid, "search must be plain text of at most %d characters", contracts.MaxFilteredSearchLen)
	}
	var words, tags []string
	for _, t := range terms(search) {
		w, key, val := t.text, t.key, t.val
		if key == "" || val == "" {
			if t.word != "" {
				words = append(words, t.word)
			}
			continue
		}
		switch key = strings.ToLower(key); key {
		case "tag":
			tags = append(tags, val)
		case "deck":
			if q.Filter.DeckID != "" {
				return q, contracts.Errorf(contracts.KindInvalid, "the search names two decks; a filtered deck gathers from one deck or all")
			}
			name := val
			if !t.quoted {
				name = strings.ReplaceAll(val, "_", " ")
			}
			id, err := st.Decks().DeckIDByName(ctx, uid, name)
			if contracts.IsKind(err, contracts.KindNotFound) {
				return q, badWord(w, "no deck is named %q (write deck:\"Name with spaces\", or _ for a space)", name)
			}
			if err != nil {
				return q, kernel.Fail(err)
			}
			q.Filter.DeckID = id
		case "is":
			val = strings.ToLower(val)
			switch {
			case val == "due":
				end := day.Next(now).Add(-time.Millisecond)
				q.Filter.DueBy = &end
			case states[val]:
				if q.Filter.State != "" && q.Filter.State != val {
					return q, contracts.Errorf(contracts.KindInvalid, "the search has is:%s and is:%s; a card has one state", q.Filter.State, val)
				}
				q.Filter.State = val
			default:
				return q, badWord(w, "use is:due, is:new, is:learning, is:review, is:relearning, is:suspended, is:buried or is:leech")
			}
		case "rated":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > maxRatedDays {
				return q, badWord(w, "rated:n takes a number of days, 1-%d (1 is today)", maxRatedDays)
			}
			since := day.StartOfDate(day.Date(now).AddDate(0, 0, 1-n))
			q.RatedSince = &since
		case "prop":
			p, err := prop(val, day, now)
			if err != nil {
				return q, badWord(w, "%s", err)
			}
			q.Props = append(q.Props, p...)
		default:
			words = append(words, t.word)
		}
	}
	var err error
	if q.Filter.Tags, err = cardtext.NormalizeTags(tags); err != nil {
		return q, contracts.Errorf(contracts.KindInvalid, "the search's tag: %s", err)
	}
	q.Filter.Query = strings.Join(words, " ")
	return q, nil
}

// badWord is the refusal of the search's word w: its message names the
// search and the word (a form shows it beside the search field).
func badWord(w, format string, args ...any) error {
	return contracts.Errorf(contracts.KindInvalid, "search word %s: %s", w, fmt.Sprintf(format, args...))
}

// term is one word of a search.
type term struct {
	// text is the word as written (quotes included), for messages; word
	// is it without its quotes.
	text, word string
	// key and val are the parts of key:value (key "" for a plain word);
	// quoted reports whether the word had double quotes.
	key, val string
	quoted   bool
}

// terms splits a search into its words: spaces separate them, except
// inside double quotes (deck:"Spanish verbs", "two words"), which are
// not part of the value; an unclosed quote runs to the end.
func terms(search string) []term {
	var out []term
	var text, word strings.Builder
	in, quoted := false, false
	flush := func() {
		if text.Len() == 0 {
			return
		}
		t := term{text: text.String(), word: word.String(), quoted: quoted}
		if k, v, ok := strings.Cut(t.word, ":"); ok && !strings.ContainsAny(k, " \t") {
			t.key, t.val = k, v
		}
		out = append(out, t)
		text.Reset()
		word.Reset()
		quoted = false
	}
	for _, r := range search {
		switch {
		case r == '"':
			in, quoted = !in, true
			text.WriteRune(r)
		case unicode.IsSpace(r) && !in:
			flush()
		default:
			text.WriteRune(r)
			word.WriteRune(r)
		}
	}
	flush()
	return out
}

// ops are prop:'s comparisons, the two-character ones first.
var ops = []string{"<=", ">=", "!=", "<", ">", "="}

// prop parses one prop: comparison (the part after "prop:").
func prop(s string, day contracts.LearnerDay, now time.Time) ([]ports.PropFilter, error) {
	for _, op := range ops {
		name, num, ok := strings.Cut(s, op)
		if !ok {
			continue
		}
		col, known := props[strings.ToLower(name)]
		if !known {
			return nil, fmt.Errorf("prop: compares ivl, due, lapses, reps, s (stability) or d (difficulty)")
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || v != v || v > 1e9 || v < -1e9 {
			return nil, fmt.Errorf("%q is not a number", num)
		}
		if col != "due" {
			return []ports.PropFilter{{Column: col, Op: op, Value: v}}, nil
		}
		// Due days count from today: day n runs from its start to the
		// next day's start.
		n := int(v)
		if float64(n) != v {
			return nil, fmt.Errorf("prop:due takes whole days")
		}
		start := func(k int) float64 { return float64(day.StartOfDate(day.Date(now).AddDate(0, 0, k)).UnixMilli()) }
		switch op {
		case "<=":
			return []ports.PropFilter{{Column: col, Op: "<", Value: start(n + 1)}}, nil
		case "<":
			return []ports.PropFilter{{Column: col, Op: "<", Value: start(n)}}, nil
		case ">=":
			return []ports.PropFilter{{Column: col, Op: ">=", Value: start(n)}}, nil
		case ">":
			return []ports.PropFilter{{Column: col, Op: ">=", Value: start(n + 1)}}, nil
		case "=":
			return []ports.PropFilter{{Column: col, Op: ">=", Value: start(n)}, {Column: col, Op: "<", Value: start(n + 1)}}, nil
		}
		return nil, fmt.Errorf("prop:due compares with <, <=, =, >= or >")
	}
	return nil, fmt.Errorf("write prop:ivl>=10, prop:due<=1 or prop:lapses>3")
}
