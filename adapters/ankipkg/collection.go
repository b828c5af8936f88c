package ankipkg

import (
	"context"
	"database/sql"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// collection reads one unpacked collection: its head whole, then its
// notes, cards and review log a chunk of notes at a time.
type collection struct {
	db   *sql.DB
	conn *sql.Conn // the one connection of db the reader uses, with the length limit
	lim  Limits
	head ports.AnkiPackageHead

	crt     time.Time                        // the day count's origin
	presets map[int64]contracts.DeckSettings // by preset (dconf) id
	deckOf  map[int64]int64                  // deck key → its preset id
	steps   map[int64][2][]float64           // deck key → learning, relearning steps
	decks   map[int64]bool                   // normal decks read
	dyn     map[int64]bool                   // filtered decks, whose cards live elsewhere
	types   map[int64]int                    // note type key → field count
}

// readHead reads the col row, the note types, decks and presets (from
// the col row's JSON or, in the current format, from their own tables)
// and counts the notes, cards and review log.
func (c *collection) readHead(ctx context.Context, latest bool) error {
	var crt int64
	var models, decks, dconf string
	if latest {
		if err := c.conn.QueryRowContext(ctx, `SELECT crt FROM col`).Scan(&crt); err != nil {
			return invalid(err, "its collection has no col row")
		}
	} else {
		var big string
		if err := c.conn.QueryRowContext(ctx, `SELECT CASE WHEN octet_length(models) > ?1 THEN 'models' WHEN octet_length(decks) > ?1 THEN 'decks'
			WHEN octet_length(dconf) > ?1 THEN 'dconf' ELSE '' END FROM col`, c.lim.MetaBytes).Scan(&big); err != nil {
			return invalid(err, "its collection has no readable col row")
		}
		if big != "" {
			return invalid(nil, "its col row's %s is longer than %s, the limit", big, size(c.lim.MetaBytes))
		}
		if err := c.conn.QueryRowContext(ctx, `SELECT crt, models, decks, dconf FROM col`).Scan(&crt, &models, &decks, &dconf); err != nil {
			return invalid(err, "its collection has no readable col row")
		}
	}
	c.crt = time.Unix(crt, 0).UTC()
	c.head.Created = c.crt
	c.presets, c.deckOf, c.steps = map[int64]contracts.DeckSettings{}, map[int64]int64{}, map[int64][2][]float64{}
	c.decks, c.dyn, c.types = map[int64]bool{}, map[int64]bool{}, map[int64]int{}
	var err error
	if latest {
		err = c.readModern(ctx)
	} else {
		err = c.readLegacy(models, decks, dconf)
	}
	if err != nil {
		return err
	}
	c.settleDecks()
	for _, t := range c.head.NoteTypes {
		c.types[t.Key] = len(t.Fields)
	}
	if err := c.count(ctx); err != nil {
		return err
	}
	c.pruneDefault()
	return nil
}

// count counts the notes, the cards by deck (in their home deck, or
// Anki's Default deck when theirs is gone) and the review log, and finds
// the largest new-card position.
func (c *collection) count(ctx context.Context) error {
	for _, q := range []struct {
		table string
		n     *int
	}{{"notes", &c.head.Notes}, {"cards", &c.head.Cards}, {"revlog", &c.head.Reviews}} {
		if err := c.conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+q.table).Scan(q.n); err != nil {
			return invalid(err, "its collection has no %s table", q.table)
		}
	}
	rows, err := c.conn.QueryContext(ctx, `SELECT CASE WHEN odid != 0 THEN odid ELSE did END AS d, COUNT(*) FROM cards GROUP BY d`)
	if err != nil {
		return invalid(err, "its collection has no cards table")
	}
	defer rows.Close()
	c.head.DeckCards = map[int64]int{}
	for rows.Next() {
		var d int64
		var n int
		if err := rows.Scan(&d, &n); err != nil {
			return invalid(err, "a card row is damaged")
		}
		if !c.decks[d] && c.decks[defaultDeckKey] {
			d = defaultDeckKey // where Anki puts a card whose deck is gone
		}
		c.head.DeckCards[d] += n
	}
	if err := rows.Err(); err != nil {
		return invalid(err, "the cards table is damaged")
	}
	var pos sql.NullInt64
	if err := c.conn.QueryRowContext(ctx, `SELECT MAX(CASE WHEN odid != 0 AND odue != 0 THEN odue ELSE due END) FROM cards WHERE type NOT IN (1, 2, 3)`).Scan(&pos); err != nil {
		return invalid(err, "the cards table is damaged")
	}
	c.head.MaxPosition = int(clamp64(pos.Int64, 0, math.MaxInt32))
	return nil
}

// settleDecks gives every deck its preset's settings and remembers its
// steps for the cards' step numbers.
func (c *collection) settleDecks() {
	for i := range c.head.Decks {
		d := &c.head.Decks[i]
		s, ok := c.presets[c.deckOf[d.Key]]
		if !ok {
			s = contracts.DefaultDeckSettings()
		}
		d.Settings = s
		c.steps[d.Key] = [2][]float64{s.LearningSteps, s.RelearningSteps}
		c.decks[d.Key] = true
	}
}

// pruneDefault drops Anki's "Default" deck (id 1), which every
// collection has, when no card is in it and no deck below it.
func (c *collection) pruneDefault() {
	var name string
	for _, d := range c.head.Decks {
		if d.Key == defaultDeckKey {
			name = d.Name
		}
	}
	if c.head.DeckCards[defaultDeckKey] > 0 || name == "" {
		return
	}
	for _, d := range c.head.Decks {
		if strings.HasPrefix(d.Name, name+"::") {
			return
		}
	}
	out := c.head.Decks[:0]
	for _, d := range c.head.Decks {
		if d.Key != defaultDeckKey {
			out = append(out, d)
		}
	}
	c.head.Decks = out
}

// cursor walks one query's rows a record at a time, with the next
// record read ahead so a merge can look at it.
type cursor[T any] struct {
	rows *sql.Rows
	what string // the table, for errors
	scan func(*sql.Rows) (T, error)
	next T
	ok   bool
}

func openCursor[T any](ctx context.Context, db *sql.Conn, query, what string, scan func(*sql.Rows) (T, error)) (*cursor[T], error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, invalid(err, "its collection has no %s table", what)
	}
	cur := &cursor[T]{rows: rows, scan: scan, what: what}
	if err := cur.advance(); err != nil {
		cur.close() // an open rows would hold the connection's Close
		return nil, err
	}
	return cur, nil
}

// advance reads the next record ahead; ok is false at the end.
func (cur *cursor[T]) advance() error {
	if cur.ok = cur.rows.Next(); !cur.ok {
		if err := cur.rows.Err(); err != nil {
			return invalid(err, "the %s table is damaged", cur.what)
		}
		return nil
	}
	var err error
	if cur.next, err = cur.scan(cur.rows); err != nil {
		return invalid(err, "a %s row is damaged", rowNames[cur.what])
	}
	return nil
}

// rowNames name a table's rows in errors.
var rowNames = map[string]string{"notes": "note", "cards": "card", "revlog": "review-log"}

func (cur *cursor[T]) close() { _ = cur.rows.Close() }

// noteRow, cardRow and revRow are the raw rows the chunks are made of.
type noteRow struct {
	key, mid, mod             int64
	guidLen, tagsLen, fldsLen int64 // bytes, measured before the text is read
	guid, tags, flds          string
}

type cardRow struct {
	key, nid, did, ord, mod, typ, queue, due, ivl, reps, lapses, left, odue, odid int64
	dataLen                                                                       int64 // bytes, measured before data is read
	data                                                                          string
}

type revRow struct {
	id, cid, ease, ivl, lastIvl, fac, took, typ, nid int64
}

// chunks streams the notes in key order, n at a time, with their cards
// (by note, then key) and the cards' review logs (by card, then time),
// merging three sorted queries; the reviews of cards the package lacks
// come last, in a chunk without notes.
func (c *collection) chunks(ctx context.Context, n int, fn func(ports.AnkiChunk) error) error {
	// A text longer than the field limit is measured (octet_length reads
	// its length from the record, not the text) and never read.
	lim := c.lim.FieldBytes
	notes, err := openCursor(ctx, c.conn, `SELECT id, mid, mod, octet_length(guid), octet_length(tags), octet_length(flds),
		CASE WHEN octet_length(guid) <= `+itoa(lim)+` THEN guid END, CASE WHEN octet_length(tags) <= `+itoa(lim)+` THEN tags END,
		CASE WHEN octet_length(flds) <= `+itoa(lim)+` THEN flds END FROM notes ORDER BY id`, "notes", func(r *sql.Rows) (noteRow, error) {
		var x noteRow
		var guid, tags, flds sql.NullString
		err := r.Scan(&x.key, &x.mid, &x.mod, &x.guidLen, &x.tagsLen, &x.fldsLen, &guid, &tags, &flds)
		x.guid, x.tags, x.flds = guid.String, tags.String, flds.String
		return x, err
	})
	if err != nil {
		return err
	}
	defer notes.close()
	cards, err := openCursor(ctx, c.conn, `SELECT id, nid, did, ord, mod, type, queue, due, ivl, reps, lapses, left, odue, odid,
		coalesce(octet_length(data), 0), CASE WHEN octet_length(data) <= `+itoa(lim)+` THEN data ELSE '' END FROM cards ORDER BY nid, id`, "cards", func(r *sql.Rows) (cardRow, error) {
		var x cardRow
		err := r.Scan(&x.key, &x.nid, &x.did, &x.ord, &x.mod, &x.typ, &x.queue, &x.due, &x.ivl, &x.reps, &x.lapses, &x.left, &x.odue, &x.odid, &x.dataLen, &x.data)
		return x, err
	})
	if err != nil {
		return err
	}
	defer cards.close()
	revs, err := openCursor(ctx, c.conn, `SELECT r.id, r.cid, r.ease, r.ivl, r.lastIvl, r.factor, r.time, r.type, c.nid FROM revlog r JOIN cards c ON c.id = r.cid ORDER BY c.nid, r.cid, r.id`, "revlog", scanRev)
	if err != nil {
		return err
	}
	defer revs.close()

	var ch ports.AnkiChunk
	have := make(map[int64]bool, n) // the chunk's note keys
	last := map[int64]time.Time{}   // card key → its last rating, from the chunk's reviews
	for notes.ok {
		if err := ctx.Err(); err != nil {
			return err
		}
		ch.Notes, ch.Cards, ch.Reviews = ch.Notes[:0], ch.Cards[:0], ch.Reviews[:0]
		clear(have)
		clear(last)
		for notes.ok && len(ch.Notes) < n {
			note, err := c.note(notes.next)
			if err != nil {
				return err
			}
			ch.Notes = append(ch.Notes, note)
			have[note.Key] = true
			if err := notes.advance(); err != nil {
				return err
			}
		}
		hi := ch.Notes[len(ch.Notes)-1].Key
		prev := int64(0)
		for revs.ok && revs.next.nid <= hi {
			x := revs.next
			r := reviewOf(x.id, x.cid, x.ease, x.ivl, x.lastIvl, x.fac, x.took, x.typ, len(ch.Reviews) == 0 || prev != x.cid)
			prev = x.cid
			if r.Kind != ports.ReviewKindManual && r.State.LastReview != nil {
				last[x.cid] = *r.State.LastReview
			}
			ch.Reviews = append(ch.Reviews, r)
			if err := revs.advance(); err != nil {
				return err
			}
		}
		for cards.ok && cards.next.nid <= hi {
			if !have[cards.next.nid] {
				return invalid(nil, "card %d names note %d, which the package lacks", cards.next.key, cards.next.nid)
			}
			k, err := c.card(cards.next, last)
			if err != nil {
				return err
			}
			ch.Cards = append(ch.Cards, k)
			if err := cards.advance(); err != nil {
				return err
			}
		}
		if err := fn(ch); err != nil {
			return callbackError{err}
		}
	}
	if cards.ok {
		return invalid(nil, "card %d names note %d, which the package lacks", cards.next.key, cards.next.nid)
	}
	revs.close()
	return c.orphanReviews(ctx, n, fn)
}

func scanRev(r *sql.Rows) (revRow, error) {
	var x revRow
	err := r.Scan(&x.id, &x.cid, &x.ease, &x.ivl, &x.lastIvl, &x.fac, &x.took, &x.typ, &x.nid)
	return x, err
}

// orphanReviews streams the reviews of cards the package lacks, up to
// 10n a chunk without notes.
func (c *collection) orphanReviews(ctx context.Context, n int, fn func(ports.AnkiChunk) error) error {
	revs, err := openCursor(ctx, c.conn, `SELECT id, cid, ease, ivl, lastIvl, factor, time, type, 0 FROM revlog WHERE cid NOT IN (SELECT id FROM cards) ORDER BY cid, id`, "revlog", scanRev)
	if err != nil {
		return err
	}
	defer revs.close()
	var ch ports.AnkiChunk
	prev := int64(0)
	for revs.ok {
		x := revs.next
		ch.Reviews = append(ch.Reviews, reviewOf(x.id, x.cid, x.ease, x.ivl, x.lastIvl, x.fac, x.took, x.typ, prev != x.cid))
		prev = x.cid
		if err := revs.advance(); err != nil {
			return err
		}
		if len(ch.Reviews) >= 10*n || !revs.ok {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(ch); err != nil {
				return callbackError{err}
			}
			ch.Reviews = ch.Reviews[:0]
		}
	}
	return nil
}

// note checks and maps one note row: fields split on 0x1f, tags as
// written.
func (c *collection) note(x noteRow) (ports.AnkiNote, error) {
	n := ports.AnkiNote{Key: x.key, GUID: x.guid, TypeKey: x.mid}
	lim := int64(c.lim.FieldBytes)
	if x.fldsLen > lim {
		return n, invalid(nil, "note %d has %s of field text; the limit is %s", n.Key, size(x.fldsLen), size(lim))
	}
	if x.tagsLen > lim {
		return n, invalid(nil, "note %d has %s of tags; the limit is %s", n.Key, size(x.tagsLen), size(lim))
	}
	if x.guidLen > lim {
		return n, invalid(nil, "note %d has a GUID of %s; the limit is %s", n.Key, size(x.guidLen), size(lim))
	}
	want, ok := c.types[n.TypeKey]
	if !ok {
		return n, invalid(nil, "note %d names note type %d, which the package lacks", n.Key, n.TypeKey)
	}
	n.Fields = strings.Split(x.flds, "\x1f")
	// Anki pads or trims a note's fields to its type's count.
	for len(n.Fields) < want {
		n.Fields = append(n.Fields, "")
	}
	n.Fields = n.Fields[:max(want, 0)]
	if n.Tags = strings.Fields(x.tags); len(n.Tags) == 0 {
		n.Tags = nil
	}
	n.Modified = time.Unix(x.mod, 0).UTC()
	return n, nil
}

// itoa writes a limit into a query (an int of ours, never input).
func itoa(n int) string { return strconv.Itoa(n) }
