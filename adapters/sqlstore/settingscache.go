package sqlstore

import (
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
)

// maxDecodedSettings bounds each settings cache; a full cache is emptied
// and fills again (a process sees few distinct settings: most decks keep
// their preset's, and presets are few per account).
const maxDecodedSettings = 4096

// decodedCache remembers what settings JSON decodes to, keyed by the text
// itself: every read of a deck decodes its settings and its preset's (21
// weights and the steps), which cost more than reading the row. Keyed by
// content, an entry is never stale: a change of settings is a new text.
// Each caller gets its own copy of the slices, so changing what it got
// never changes the cache.
type decodedCache[T any] struct {
	mu    sync.RWMutex
	m     map[string]T
	clone func(T) T
}

// decode returns what text decodes to.
func (c *decodedCache[T]) decode(text string) (T, error) {
	c.mu.RLock()
	v, ok := c.m[text]
	c.mu.RUnlock()
	if ok {
		return c.clone(v), nil
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return v, err
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxDecodedSettings {
		c.m = make(map[string]T)
	}
	c.m[text] = v
	c.mu.Unlock()
	return c.clone(v), nil
}

// deckSettingsCache and presetSettingsCache decode the settings kept on
// deck and preset rows.
var (
	deckSettingsCache = &decodedCache[storedSettings]{clone: func(s storedSettings) storedSettings {
		s.LearningSteps, s.RelearningSteps, s.Weights = slices.Clone(s.LearningSteps), slices.Clone(s.RelearningSteps), slices.Clone(s.Weights)
		s.WeightsOptimizedAt = cloneTime(s.WeightsOptimizedAt)
		s.EasyDays = slices.Clone(s.EasyDays)
		return s
	}}
	presetSettingsCache = &decodedCache[contracts.PresetSettings]{clone: func(s contracts.PresetSettings) contracts.PresetSettings {
		s.LearningSteps, s.RelearningSteps, s.Weights = slices.Clone(s.LearningSteps), slices.Clone(s.RelearningSteps), slices.Clone(s.Weights)
		s.EasyDays = slices.Clone(s.EasyDays)
		s.WeightsOptimizedAt = cloneTime(s.WeightsOptimizedAt)
		return s
	}}
)

// cloneTime returns a copy of *t, or nil.
func cloneTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}

// storedSettings are a deck's settings as a deck row (and a trashed
// deck's) keeps them: with the preset options a deck's JSON leaves out
// (contracts.DeckSettings.EasyDays and RescheduleOnChange), kept for a
// deck without a preset.
type storedSettings struct {
	contracts.DeckSettings
	EasyDays           []float64 `json:"easyDays,omitempty"`
	RescheduleOnChange bool      `json:"rescheduleOnChange,omitempty"`
}

// stored is set as a row keeps it.
func stored(set contracts.DeckSettings) storedSettings {
	return storedSettings{set, set.EasyDays, set.RescheduleOnChange}
}

// settings are the deck settings s keeps.
func (s storedSettings) settings() contracts.DeckSettings {
	set := s.DeckSettings
	set.EasyDays, set.RescheduleOnChange = s.EasyDays, s.RescheduleOnChange
	return set
}
