package ankipkg

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// collection reads one unpacked collection into an AnkiPackage.
type collection struct {
	db  *sql.DB
	lim Limits
	pkg ports.AnkiPackage

	crt     time.Time                        // the day count's origin
	presets map[int64]contracts.DeckSettings // by preset (dconf) id
	deckOf  map[int64]int64                  // deck key → its preset id
	steps   map[int64][2][]float64           // deck key → learning, relearning steps
	decks   map[int64]bool                   // normal decks read
	dyn     map[int64]bool                   // filtered decks, whose cards live elsewhere
	last    map[int64]time.Time              // card key → its last rating
	types   map[int64]int                    // note type key → field count
}

// read reads the col row, the note types, decks and presets (from the
// col row's JSON or, in the current format, from their own tables),
// then the notes, cards and review log.
func (c *collection) read(ctx context.Context, latest bool) error {
	var crt int64
	var models, decks, dconf string
	if latest {
		if err := c.db.QueryRowContext(ctx, `SELECT crt FROM col`).Scan(&crt); err != nil {
			return invalid(err, "its collection has no col row")
		}
	} else {
		if err := c.db.QueryRowContext(ctx, `SELECT crt, models, decks, dconf FROM col`).Scan(&crt, &models, &decks, &dconf); err != nil {
			return invalid(err, "its collection has no readable col row")
		}
	}
	c.crt = time.Unix(crt, 0).UTC()
	c.pkg.Created = c.crt
	c.presets, c.deckOf, c.steps = map[int64]contracts.DeckSettings{}, map[int64]int64{}, map[int64][2][]float64{}
	c.decks, c.dyn, c.last, c.types = map[int64]bool{}, map[int64]bool{}, map[int64]time.Time{}, map[int64]int{}
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
	for _, t := range c.pkg.NoteTypes {
		c.types[t.Key] = len(t.Fields)
	}
	if err := c.readNotes(ctx); err != nil {
		return err
	}
	if err := c.readRevlog(ctx); err != nil {
		return err
	}
	if err := c.readCards(ctx); err != nil {
		return err
	}
	c.pruneDefault()
	return nil
}

// settleDecks gives every deck its preset's settings and remembers its
// steps for the cards' step numbers.
func (c *collection) settleDecks() {
	for i := range c.pkg.Decks {
		d := &c.pkg.Decks[i]
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
	used := false
	for _, card := range c.pkg.Cards {
		if card.DeckKey == defaultDeckKey {
			used = true
			break
		}
	}
	var name string
	for _, d := range c.pkg.Decks {
		if d.Key == defaultDeckKey {
			name = d.Name
		}
	}
	if used || name == "" {
		return
	}
	for _, d := range c.pkg.Decks {
		if strings.HasPrefix(d.Name, name+"::") {
			return
		}
	}
	out := c.pkg.Decks[:0]
	for _, d := range c.pkg.Decks {
		if d.Key != defaultDeckKey {
			out = append(out, d)
		}
	}
	c.pkg.Decks = out
}

// readNotes reads every note: fields split on 0x1f, tags as written.
func (c *collection) readNotes(ctx context.Context) error {
	rows, err := c.db.QueryContext(ctx, `SELECT id, guid, mid, mod, tags, flds FROM notes ORDER BY id`)
	if err != nil {
		return invalid(err, "its collection has no notes table")
	}
	defer rows.Close()
	for rows.Next() {
		var n ports.AnkiNote
		var mod int64
		var tags, flds string
		if err := rows.Scan(&n.Key, &n.GUID, &n.TypeKey, &mod, &tags, &flds); err != nil {
			return invalid(err, "a note row is damaged")
		}
		if len(flds) > c.lim.FieldBytes {
			return invalid(nil, "note %d has %s of field text; the limit is %s", n.Key, size(len(flds)), size(c.lim.FieldBytes))
		}
		if len(tags) > c.lim.FieldBytes {
			return invalid(nil, "note %d has %s of tags; the limit is %s", n.Key, size(len(tags)), size(c.lim.FieldBytes))
		}
		want, ok := c.types[n.TypeKey]
		if !ok {
			return invalid(nil, "note %d names note type %d, which the package lacks", n.Key, n.TypeKey)
		}
		n.Fields = strings.Split(flds, "\x1f")
		// Anki pads or trims a note's fields to its type's count.
		for len(n.Fields) < want {
			n.Fields = append(n.Fields, "")
		}
		n.Fields = n.Fields[:max(want, 0)]
		if n.Tags = strings.Fields(tags); len(n.Tags) == 0 {
			n.Tags = nil
		}
		n.Modified = time.Unix(mod, 0).UTC()
		c.pkg.Notes = append(c.pkg.Notes, n)
	}
	if err := rows.Err(); err != nil {
		return invalid(err, "the notes table is damaged")
	}
	return nil
}
