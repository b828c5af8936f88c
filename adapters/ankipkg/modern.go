package ankipkg

import (
	"context"
	"math"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// readModern reads the schema-18 tables of collection.anki21b: notetypes,
// fields and templates, decks and deck_config, whose config columns are
// protobuf messages (Notetype.Config, Notetype.Template.Config,
// Deck.KindContainer, DeckConfig.Config in Anki's proto/anki).
func (c *collection) readModern(ctx context.Context) error {
	if err := c.modernTypes(ctx); err != nil {
		return err
	}
	if err := c.modernPresets(ctx); err != nil {
		return err
	}
	return c.modernDecks(ctx)
}

func (c *collection) modernTypes(ctx context.Context) error {
	rows, err := c.conn.QueryContext(ctx, `SELECT id, name, config FROM notetypes ORDER BY id`)
	if err != nil {
		return invalid(err, "its collection has no notetypes table")
	}
	byKey := map[int64]int{}
	for rows.Next() {
		var t ports.AnkiNoteType
		var cfg []byte
		if err := rows.Scan(&t.Key, &t.Name, &cfg); err != nil {
			rows.Close()
			return invalid(err, "a note type row is damaged")
		}
		if err := checkName("note type", t.Name, c.lim); err != nil {
			rows.Close()
			return err
		}
		if err := eachField(cfg, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
			switch {
			case num == 1 && typ == protowire.VarintType:
				t.Cloze = n == 1
			case num == 3 && typ == protowire.BytesType:
				t.CSS = string(v)
			}
			return nil
		}); err != nil {
			rows.Close()
			return invalid(err, "note type %q has a damaged config", clip(t.Name))
		}
		if len(t.CSS) > c.lim.TemplateBytes {
			rows.Close()
			return invalid(nil, "note type %q has %s of CSS; the limit is %s", clip(t.Name), size(len(t.CSS)), size(c.lim.TemplateBytes))
		}
		byKey[t.Key] = len(c.head.NoteTypes)
		c.head.NoteTypes = append(c.head.NoteTypes, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return invalid(err, "the notetypes table is damaged")
	}

	rows, err = c.conn.QueryContext(ctx, `SELECT ntid, name FROM fields ORDER BY ntid, ord`)
	if err != nil {
		return invalid(err, "its collection has no fields table")
	}
	for rows.Next() {
		var ntid int64
		var name string
		if err := rows.Scan(&ntid, &name); err != nil {
			rows.Close()
			return invalid(err, "a field row is damaged")
		}
		i, ok := byKey[ntid]
		if !ok {
			continue
		}
		if err := checkName("field", name, c.lim); err != nil {
			rows.Close()
			return err
		}
		c.head.NoteTypes[i].Fields = append(c.head.NoteTypes[i].Fields, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return invalid(err, "the fields table is damaged")
	}

	rows, err = c.conn.QueryContext(ctx, `SELECT ntid, name, config FROM templates ORDER BY ntid, ord`)
	if err != nil {
		return invalid(err, "its collection has no templates table")
	}
	defer rows.Close()
	for rows.Next() {
		var ntid int64
		var tp ports.AnkiTemplate
		var cfg []byte
		if err := rows.Scan(&ntid, &tp.Name, &cfg); err != nil {
			return invalid(err, "a template row is damaged")
		}
		i, ok := byKey[ntid]
		if !ok {
			continue
		}
		if err := eachField(cfg, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
			switch {
			case num == 1 && typ == protowire.BytesType:
				tp.Front = string(v)
			case num == 2 && typ == protowire.BytesType:
				tp.Back = string(v)
			}
			return nil
		}); err != nil {
			return invalid(err, "template %q has a damaged config", clip(tp.Name))
		}
		if err := checkTemplate(c.head.NoteTypes[i].Name, tp, c.lim); err != nil {
			return err
		}
		c.head.NoteTypes[i].Templates = append(c.head.NoteTypes[i].Templates, tp)
	}
	if err := rows.Err(); err != nil {
		return invalid(err, "the templates table is damaged")
	}
	return nil
}

// modernPresets reads deck_config: DeckConfig.Config has learn_steps 1,
// relearn_steps 2 (packed floats), fsrs_params_4/5/6 3/5/6, new_per_day
// 9, reviews_per_day 10, maximum_review_interval 16,
// new_card_insert_order 20, review_order 33, desired_retention 37.
func (c *collection) modernPresets(ctx context.Context) error {
	rows, err := c.conn.QueryContext(ctx, `SELECT id, config FROM deck_config ORDER BY id`)
	if err != nil {
		return invalid(err, "its collection has no deck_config table")
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var cfg []byte
		if err := rows.Scan(&id, &cfg); err != nil {
			return invalid(err, "a deck preset row is damaged")
		}
		s, err := modernSettings(cfg)
		if err != nil {
			return invalid(err, "deck preset %d has a damaged config", id)
		}
		c.presets[id] = s
	}
	if err := rows.Err(); err != nil {
		return invalid(err, "the deck_config table is damaged")
	}
	return nil
}

func modernSettings(cfg []byte) (contracts.DeckSettings, error) {
	s := contracts.DefaultDeckSettings()
	s.NewOrder, s.ReviewOrder = contracts.NewOrderAdded, contracts.ReviewOrderDue // proto3 leaves out the zero values
	var learn, relearn, p5, p6 []float64
	err := eachField(cfg, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch num {
		case 1:
			return floats(&learn, typ, v, n)
		case 2:
			return floats(&relearn, typ, v, n)
		case 5:
			return floats(&p5, typ, v, n)
		case 6:
			return floats(&p6, typ, v, n)
		}
		if typ == protowire.VarintType {
			switch num {
			case 9:
				s.NewCardsPerDay = clampInt(int64(min(n, 1<<40)), 0, 1_000_000)
			case 10:
				s.ReviewsPerDay = clampInt(int64(min(n, 1<<40)), 0, 1_000_000)
			case 16:
				if n > 0 {
					s.MaximumIntervalDays = clampInt(int64(min(n, 1<<40)), 1, 36500)
				}
			case 20:
				if n == 1 {
					s.NewOrder = contracts.NewOrderRandom
				}
			case 33:
				if o, ok := reviewOrders[n]; ok {
					s.ReviewOrder = o
				} else {
					s.ReviewOrder = ""
				}
			}
		}
		if num == 37 && typ == protowire.Fixed32Type {
			if r := float64(math.Float32frombits(uint32(n))); r > 0 && r < 1 {
				s.DesiredRetention = round(r, 4)
			}
		}
		return nil
	})
	s.LearningSteps, s.RelearningSteps = steps(learn), steps(relearn)
	s.Weights = fsrsWeights(p6, p5)
	return s, err
}

// reviewOrders maps DeckConfig.Config.ReviewCardOrder onto ours; the
// others (by deck, by ease, by interval, by age) have no match.
var reviewOrders = map[uint64]string{0: contracts.ReviewOrderDue, 7: contracts.ReviewOrderOverdueness, 8: contracts.ReviewOrderRandom}

// floats appends a repeated float field, packed or not, rounded to the
// float32 Anki stores (0.9 stays 0.9, not 0.899999976).
func floats(dst *[]float64, typ protowire.Type, v []byte, n uint64) error {
	add := func(bits uint32) {
		if len(*dst) < 1000 {
			*dst = append(*dst, round(float64(math.Float32frombits(bits)), 4))
		}
	}
	switch typ {
	case protowire.Fixed32Type:
		add(uint32(n))
	case protowire.BytesType:
		for len(v) > 0 {
			x, l := protowire.ConsumeFixed32(v)
			if l < 0 {
				return protowire.ParseError(l)
			}
			add(x)
			v = v[l:]
		}
	}
	return nil
}

// modernDecks reads decks: names use 0x1f between levels; kind is a
// Deck.KindContainer, normal = 1 {config_id = 1, description = 4} or
// filtered = 2 (a filtered deck's cards keep their home deck).
func (c *collection) modernDecks(ctx context.Context) error {
	rows, err := c.conn.QueryContext(ctx, `SELECT id, name, kind FROM decks ORDER BY id`)
	if err != nil {
		return invalid(err, "its collection has no decks table")
	}
	defer rows.Close()
	for rows.Next() {
		var d ports.AnkiDeck
		var kind []byte
		if err := rows.Scan(&d.Key, &d.Name, &kind); err != nil {
			return invalid(err, "a deck row is damaged")
		}
		d.Name = strings.ReplaceAll(d.Name, "\x1f", "::")
		if err := checkName("deck", d.Name, c.lim); err != nil {
			return err
		}
		filtered, conf := false, int64(defaultDeckKey)
		if err := eachField(kind, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
			if num == 2 {
				filtered = true
			}
			if num != 1 || typ != protowire.BytesType {
				return nil
			}
			return eachField(v, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
				switch {
				case num == 1 && typ == protowire.VarintType:
					conf = int64(n)
				case num == 4 && typ == protowire.BytesType:
					d.Description = string(v)
				}
				return nil
			})
		}); err != nil {
			return invalid(err, "deck %q has a damaged kind", clip(d.Name))
		}
		if filtered {
			c.dyn[d.Key] = true
			continue
		}
		c.deckOf[d.Key] = conf
		c.head.Decks = append(c.head.Decks, d)
	}
	if err := rows.Err(); err != nil {
		return invalid(err, "the decks table is damaged")
	}
	sortDecks(c.head.Decks)
	return nil
}
