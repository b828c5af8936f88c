package ankipkg

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// flexInt is an integer Anki's JSON holds as a number, a numeric string
// or a boolean, depending on the version that wrote it.
type flexInt int64

// UnmarshalJSON accepts a number, a numeric string, a boolean or null.
func (f *flexInt) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	switch s {
	case "null", "false", `""`:
		*f = 0
		return nil
	case "true":
		*f = 1
		return nil
	}
	s = strings.Trim(s, `"`)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		*f = flexInt(v)
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > math.MaxInt64/2 {
		return invalid(err, "a number in the collection's JSON is not a number")
	}
	*f = flexInt(v)
	return nil
}

type legacyModel struct {
	ID   flexInt `json:"id"`
	Name string  `json:"name"`
	Type flexInt `json:"type"`
	CSS  string  `json:"css"`
	Flds []struct {
		Name string  `json:"name"`
		Ord  flexInt `json:"ord"`
	} `json:"flds"`
	Tmpls []struct {
		Name string  `json:"name"`
		Ord  flexInt `json:"ord"`
		Qfmt string  `json:"qfmt"`
		Afmt string  `json:"afmt"`
	} `json:"tmpls"`
}

type legacyDeck struct {
	ID   flexInt `json:"id"`
	Name string  `json:"name"`
	Desc string  `json:"desc"`
	Conf flexInt `json:"conf"`
	Dyn  flexInt `json:"dyn"`
}

type legacyPreset struct {
	ID  flexInt `json:"id"`
	New struct {
		Delays []float64 `json:"delays"`
		PerDay *flexInt  `json:"perDay"`
		Order  flexInt   `json:"order"`
	} `json:"new"`
	Lapse struct {
		Delays []float64 `json:"delays"`
	} `json:"lapse"`
	Rev struct {
		PerDay *flexInt `json:"perDay"`
		MaxIvl *flexInt `json:"maxIvl"`
	} `json:"rev"`
	DesiredRetention float64   `json:"desiredRetention"`
	Params6          []float64 `json:"fsrsParams6"`
	Params5          []float64 `json:"fsrsParams5"`
	Weights          []float64 `json:"fsrsWeights"`
}

// readLegacy reads the col row's JSON columns: models, decks and dconf.
func (c *collection) readLegacy(models, decks, dconf string) error {
	var ms map[string]legacyModel
	if err := json.Unmarshal([]byte(models), &ms); err != nil {
		return invalid(err, "its note types (the col row's models) are not valid JSON")
	}
	for key, m := range ms {
		t, err := c.legacyType(key, m)
		if err != nil {
			return err
		}
		c.head.NoteTypes = append(c.head.NoteTypes, t)
	}
	sort.Slice(c.head.NoteTypes, func(i, j int) bool { return c.head.NoteTypes[i].Key < c.head.NoteTypes[j].Key })

	var ps map[string]legacyPreset
	if dconf != "" {
		if err := json.Unmarshal([]byte(dconf), &ps); err != nil {
			return invalid(err, "its deck presets (the col row's dconf) are not valid JSON")
		}
	}
	for key, p := range ps {
		c.presets[keyOf(key, p.ID)] = legacySettings(p)
	}

	var ds map[string]legacyDeck
	if err := json.Unmarshal([]byte(decks), &ds); err != nil {
		return invalid(err, "its decks (the col row's decks) are not valid JSON")
	}
	for key, d := range ds {
		id := keyOf(key, d.ID)
		if d.Dyn != 0 {
			c.dyn[id] = true
			continue
		}
		if err := checkName("deck", d.Name, c.lim); err != nil {
			return err
		}
		c.head.Decks = append(c.head.Decks, ports.AnkiDeck{Key: id, Name: d.Name, Description: d.Desc})
		c.deckOf[id] = int64(d.Conf)
	}
	sortDecks(c.head.Decks)
	return nil
}

// legacyType reads one model.
func (c *collection) legacyType(key string, m legacyModel) (ports.AnkiNoteType, error) {
	t := ports.AnkiNoteType{Key: keyOf(key, m.ID), Name: m.Name, Cloze: m.Type == 1, CSS: m.CSS}
	if err := checkName("note type", m.Name, c.lim); err != nil {
		return t, err
	}
	if len(m.CSS) > c.lim.TemplateBytes {
		return t, invalid(nil, "note type %q has %s of CSS; the limit is %s", clip(m.Name), size(len(m.CSS)), size(c.lim.TemplateBytes))
	}
	flds := m.Flds
	sort.SliceStable(flds, func(i, j int) bool { return flds[i].Ord < flds[j].Ord })
	for _, f := range flds {
		if err := checkName("field", f.Name, c.lim); err != nil {
			return t, err
		}
		t.Fields = append(t.Fields, f.Name)
	}
	tmpls := m.Tmpls
	sort.SliceStable(tmpls, func(i, j int) bool { return tmpls[i].Ord < tmpls[j].Ord })
	for _, tp := range tmpls {
		tpl := ports.AnkiTemplate{Name: tp.Name, Front: tp.Qfmt, Back: tp.Afmt}
		if err := checkTemplate(m.Name, tpl, c.lim); err != nil {
			return t, err
		}
		t.Templates = append(t.Templates, tpl)
	}
	return t, nil
}

// legacySettings maps a dconf entry onto deck settings, the inverse of
// the writer's presetJSON.
func legacySettings(p legacyPreset) contracts.DeckSettings {
	s := contracts.DefaultDeckSettings()
	if p.DesiredRetention > 0 && p.DesiredRetention < 1 {
		s.DesiredRetention = p.DesiredRetention
	}
	if p.New.PerDay != nil {
		s.NewCardsPerDay = clampInt(int64(*p.New.PerDay), 0, 1_000_000)
	}
	if p.Rev.PerDay != nil {
		s.ReviewsPerDay = clampInt(int64(*p.Rev.PerDay), 0, 1_000_000)
	}
	if p.Rev.MaxIvl != nil && *p.Rev.MaxIvl > 0 {
		s.MaximumIntervalDays = clampInt(int64(*p.Rev.MaxIvl), 1, 36500)
	}
	s.LearningSteps = steps(p.New.Delays)
	s.RelearningSteps = steps(p.Lapse.Delays)
	if p.New.Order == 0 {
		s.NewOrder = contracts.NewOrderRandom
	} else {
		s.NewOrder = contracts.NewOrderAdded
	}
	s.Weights = fsrsWeights(p.Params6, p.Params5)
	return s
}

// fsrsWeights picks FSRS-6 parameters, or converts FSRS-5 ones (FSRS-6
// with w19 = 0 and w20 = 0.5 schedules exactly as FSRS-5 did); FSRS-4
// parameters have no exact FSRS-6 equivalent and are left out.
func fsrsWeights(p6, p5 []float64) []float64 {
	switch {
	case len(p6) == 21 && finite(p6):
		return p6
	case len(p5) == 19 && finite(p5):
		return append(append([]float64(nil), p5...), 0, 0.5)
	}
	return nil
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// steps keeps the finite positive step delays (minutes); nil when none.
func steps(v []float64) []float64 {
	var out []float64
	for _, x := range v {
		if x > 0 && !math.IsInf(x, 0) && len(out) < 100 {
			out = append(out, x)
		}
	}
	return out
}

func clampInt(v, lo, hi int64) int {
	return int(min(max(v, lo), hi))
}

// keyOf is a record's id: its map key, or the id inside it.
func keyOf(key string, id flexInt) int64 {
	if v, err := strconv.ParseInt(key, 10, 64); err == nil {
		return v
	}
	return int64(id)
}

// checkName refuses a name that is empty or huge.
func checkName(what, name string, lim Limits) error {
	if strings.TrimSpace(name) == "" {
		return invalid(nil, "a %s has no name", what)
	}
	if len(name) > 1000 {
		return invalid(nil, "a %s name is %d bytes long; the limit is 1000", what, len(name))
	}
	return nil
}

// checkTemplate refuses a template side larger than the limit.
func checkTemplate(typeName string, t ports.AnkiTemplate, lim Limits) error {
	if len(t.Front) > lim.TemplateBytes || len(t.Back) > lim.TemplateBytes {
		return invalid(nil, "template %q of note type %q is larger than %s", clip(t.Name), clip(typeName), size(lim.TemplateBytes))
	}
	return nil
}

// sortDecks orders decks by name, parents before children.
func sortDecks(ds []ports.AnkiDeck) {
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].Name != ds[j].Name {
			return ds[i].Name < ds[j].Name
		}
		return ds[i].Key < ds[j].Key
	})
}
