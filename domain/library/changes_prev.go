package library

import (
	"encoding/json"
	"reflect"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// deckChange returns, for each field args set that the update changed,
// its value before (prev) and after, keyed as update_deck's arguments:
// a deck.update record's Prev is itself update_deck arguments that put
// the deck back. Settings are compared as read (defaults filled in).
func deckChange(old, now contracts.Deck, args contracts.UpdateDeckArgs) (prev, after map[string]any) {
	prev, after = map[string]any{}, map[string]any{}
	o, n := old.Settings, now.Settings
	field := func(set bool, key string, before, then any) {
		if set && !reflect.DeepEqual(before, then) {
			prev[key], after[key] = before, then
		}
	}
	field(args.PresetID != "", "presetId", o.PresetID, n.PresetID)
	field(args.Name != nil, "name", old.Name, now.Name)
	field(args.Description != nil, "description", old.Description, now.Description)
	field(args.DesiredRetention != nil, "desiredRetention", o.DesiredRetention, n.DesiredRetention)
	field(args.NewCardsPerDay != nil, "newCardsPerDay", o.NewCardsPerDay, n.NewCardsPerDay)
	field(args.ReviewsPerDay != nil, "reviewsPerDay", o.ReviewsPerDay, n.ReviewsPerDay)
	field(args.MaximumIntervalDays != nil, "maximumIntervalDays", o.MaximumIntervalDays, n.MaximumIntervalDays)
	field(args.LearningSteps != nil, "learningSteps", o.LearningSteps, n.LearningSteps)
	field(args.RelearningSteps != nil, "relearningSteps", o.RelearningSteps, n.RelearningSteps)
	field(args.Weights != nil, "weights", o.Weights, n.Weights)
	field(args.ReviewOrder != "", "reviewOrder", o.ReviewOrder, n.ReviewOrder)
	field(args.NewOrder != "", "newOrder", o.NewOrder, n.NewOrder)
	field(args.BuryNew != nil, "buryNew", o.BuryNew, n.BuryNew)
	field(args.BuryReviews != nil, "buryReviews", o.BuryReviews, n.BuryReviews)
	field(args.BuryInterday != nil, "buryInterday", o.BuryInterday, n.BuryInterday)
	field(args.LeechThreshold != nil, "leechThreshold", o.LeechThreshold, n.LeechThreshold)
	field(args.LeechAction != "", "leechAction", o.LeechAction, n.LeechAction)
	field(args.NewMix != "", "newMix", o.NewMix, n.NewMix)
	field(args.EasyDays != nil, "easyDays", easyDays(o.EasyDays), easyDays(n.EasyDays))
	field(args.RescheduleOnChange != nil, "rescheduleOnChange", o.RescheduleOnChange, n.RescheduleOnChange)
	return prev, after
}

// DeckPrev is a deck.update record's Prev as undo_changes reads it: the
// update_deck arguments that put the deck back, and beside them what the
// undo checks and needs (deckUndoFacts writes them).
type DeckPrev struct {
	contracts.UpdateDeckArgs
	// PresetVersion is set when the change set preset fields: the version
	// (update time in milliseconds) of the preset the undo writes them
	// back to, the deck's preset after the change, or the one it moved
	// off. The undo is skipped when that preset changed since (through a
	// deck sharing it, or an optimiser run), which the deck's own version
	// does not show.
	PresetVersion int64 `json:"presetVersion,omitempty"`
	// DroppedPreset is the preset the deck moved off when no other deck
	// used it, so it was deleted: the undo makes it again, id, name and
	// settings.
	DroppedPreset *contracts.Preset `json:"droppedPreset,omitempty"`
}

// deckKeys are the deck.update fields a deck holds itself; every other
// one is its preset's.
var deckKeys = []string{"presetId", "name", "description", "newCardsPerDay", "reviewsPerDay", "reviewOrder", "newOrder"}

// deckUndoFacts adds DeckPrev's facts to a deck.update's prev: left is the
// preset the deck moved off (nil when it kept its own), dropped the same
// when it was deleted, now the update's time (its preset's too).
func deckUndoFacts(prev map[string]any, left, dropped *contracts.Preset, now time.Time) {
	for k := range prev {
		if slices.Contains(deckKeys, k) {
			continue
		}
		prev["presetVersion"] = now.UnixMilli()
		if left != nil {
			prev["presetVersion"] = left.UpdatedAt.UnixMilli()
		}
		break
	}
	if dropped != nil {
		p := *dropped
		p.Decks = 0
		prev["droppedPreset"] = p
	}
}

// SetsWeights reports whether a deck.update's Prev (or preview's Before)
// sets weights: its own key, not a dropped preset's settings.
func SetsWeights(prev json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(prev, &m) != nil {
		return false
	}
	_, ok := m["weights"]
	return ok
}

// easyDays are a preset's easy days as update_deck sets them: all ones
// for none, so an undo of the first easy days puts normal days back.
func easyDays(v []float64) []float64 {
	if v == nil {
		return contracts.NormalDays
	}
	return v
}

// NoteChange returns the fields (by name) and tags a note update changed,
// before (prev) and after, keyed as a note patch: a note.update record's
// Prev is itself the patch that puts the note back.
func NoteChange(names []string, old, now ports.NoteRow) (prev, after map[string]any) {
	prev, after = map[string]any{}, map[string]any{}
	was, is := map[string]string{}, map[string]string{}
	for i, name := range names {
		var o, n string
		if i < len(old.Fields) {
			o = old.Fields[i]
		}
		if i < len(now.Fields) {
			n = now.Fields[i]
		}
		if o != n {
			was[name], is[name] = o, n
		}
	}
	if len(was) > 0 {
		prev["fields"], after["fields"] = was, is
	}
	if !slices.Equal(old.Tags, now.Tags) {
		prev["tags"], after["tags"] = append([]string{}, old.Tags...), append([]string{}, now.Tags...)
	}
	return prev, after
}
