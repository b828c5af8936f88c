package library

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/textrule"
	"github.com/takhtabush/takhtabush/ports"
)

// Deck setting limits (the tool schemas say the same).
const (
	MinDesiredRetention = 0.7
	MaxDesiredRetention = 0.99
	MaxNewCardsPerDay   = 1000
	MaxReviewsPerDay    = 10000
	DefaultDeckPage     = 50
	MaxDeckPage         = 200
)

// DeckService manages the acting user's decks.
type DeckService struct{ *kernel.Deps }

var _ ports.DeckService = (*DeckService)(nil)

// CreateDeck creates a deck with default settings for the fields not given.
func (s *DeckService) CreateDeck(ctx context.Context, args contracts.CreateDeckArgs) (contracts.Deck, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.Deck{}, err
	}
	name, err := CleanDeckName(args.Name)
	if err != nil {
		return contracts.Deck{}, err
	}
	desc, err := cleanDescription(args.Description)
	if err != nil {
		return contracts.Deck{}, err
	}
	set := contracts.DefaultDeckSettings()
	if err := applySettings(&set, args.DesiredRetention, args.NewCardsPerDay, args.ReviewsPerDay, args.MaximumIntervalDays); err != nil {
		return contracts.Deck{}, err
	}
	now := s.Now()
	d := contracts.Deck{ID: s.IDs.NewID(), Name: name, Description: desc, Settings: set, CreatedAt: now, UpdatedAt: now}
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		if _, err := s.CheckHoldings(ctx, tx, uid, 1, 0); err != nil { // the deck cap, before the write
			return err
		}
		if err := NewPreset(ctx, tx, s.Deps, uid, name, &d.Settings); err != nil {
			return err
		}
		if err := tx.Decks().CreateDeck(ctx, uid, d); err != nil {
			return err
		}
		return RecordDeckAdd(ctx, tx, s.Deps, d)
	})
	if contracts.IsKind(err, contracts.KindConflict) {
		return contracts.Deck{}, nameTaken(ctx, s.Store, uid, name)
	}
	if err != nil {
		return contracts.Deck{}, kernel.Fail(err)
	}
	d.Settings = d.Settings.WithDefaults()
	return d, nil
}

// RecordDeckAdd writes the deck.add record of a deck just created (its
// version: its update time in milliseconds): undo_changes moves the deck
// to the trash while it is as created and has no cards.
func RecordDeckAdd(ctx context.Context, tx ports.Stores, d *kernel.Deps, deck contracts.Deck) error {
	var ch kernel.Changes
	ch.Add(contracts.ChangeDeckAdd, deck.ID, deck.UpdatedAt.UnixMilli(), nil, nil)
	return ch.Write(ctx, tx, d)
}

// nameTaken is the conflict of a deck name already in use; it names the
// deck that has it, so the caller can use that deck instead.
func nameTaken(ctx context.Context, st ports.Stores, uid, name string) error {
	if id, err := st.Decks().DeckIDByName(ctx, uid, name); err == nil {
		return contracts.Errorf(contracts.KindConflict, "a deck named %q already exists (deckId %s); pick another name or use that deck", name, id)
	}
	return contracts.Errorf(contracts.KindConflict, "a deck named %q already exists; pick another name or use that deck", name)
}

// GetDeck returns one deck with its counts.
func (s *DeckService) GetDeck(ctx context.Context, deckID string) (contracts.Deck, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.Deck{}, err
	}
	d, err := getDeck(ctx, s.Store, uid, deckID, s.Now())
	d.Settings = d.Settings.WithDefaults()
	return d, err
}

// getDeck loads a deck, turning not found into the deck message.
func getDeck(ctx context.Context, st ports.Stores, uid, deckID string, now time.Time) (contracts.Deck, error) {
	if !kernel.PlausibleID(deckID) {
		return contracts.Deck{}, kernel.DeckNotFound(deckID)
	}
	d, err := st.Decks().GetDeck(ctx, uid, deckID, now)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.Deck{}, kernel.DeckNotFound(deckID)
	}
	return d, kernel.Fail(err)
}

// LoadDeck is getDeck without the counts, for hot paths that need only a
// deck's existence or settings (reviews, bulk adds, sessions, stats).
func LoadDeck(ctx context.Context, st ports.Stores, uid, deckID string) (contracts.Deck, error) {
	if !kernel.PlausibleID(deckID) {
		return contracts.Deck{}, kernel.DeckNotFound(deckID)
	}
	d, err := st.Decks().DeckWithoutCounts(ctx, uid, deckID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.Deck{}, kernel.DeckNotFound(deckID)
	}
	return d, kernel.Fail(err)
}

// ListDecks returns a page of decks in creation order.
func (s *DeckService) ListDecks(ctx context.Context, args contracts.ListDecksArgs) (contracts.DeckPage, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.DeckPage{}, err
	}
	limit, err := kernel.PageLimit(args.Limit, DefaultDeckPage, MaxDeckPage)
	if err != nil {
		return contracts.DeckPage{}, err
	}
	after, err := kernel.DecodeCursor(args.Cursor)
	if err != nil {
		return contracts.DeckPage{}, err
	}
	decks, err := s.Store.Decks().ListDecks(ctx, uid, after, limit+1, s.Now())
	if err != nil {
		return contracts.DeckPage{}, kernel.Fail(err)
	}
	for i := range decks {
		decks[i].Settings = decks[i].Settings.WithDefaults()
	}
	return kernel.Page(decks, limit, func(d contracts.Deck) string { return d.ID }), nil
}

// UpdateDeck changes the fields given.
func (s *DeckService) UpdateDeck(ctx context.Context, args contracts.UpdateDeckArgs) (contracts.Deck, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.Deck{}, err
	}
	var out contracts.Deck
	var ch kernel.Changes
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		ch = kernel.Changes{}
		var err error
		if out, err = s.UpdateDeckIn(ctx, tx, uid, args, &ch); err != nil {
			return err
		}
		return ch.Write(ctx, tx, s.Deps)
	})
	if err != nil {
		return out, err
	}
	if WeightsChanged(ch.Preview()) {
		// The cards' memory states follow the new weights (a job).
		if _, err := s.Jobs.Submit(ctx, contracts.JobKindRecomputeMemory, RecomputeInput{PresetID: out.Settings.PresetID}); err != nil {
			return out, err
		}
	}
	return out, nil
}

// WeightsChanged reports whether change previews include a deck update
// that changed its preset's weights.
func WeightsChanged(changes []contracts.ChangePreview) bool {
	for _, c := range changes {
		if c.Kind == contracts.ChangeDeckUpdate && SetsWeights(c.Before) {
			return true
		}
	}
	return false
}

// UpdateDeckIn applies args to the user's deck in tx, as update_deck does,
// and adds to ch a deck.update record holding the previous values of the
// fields args set (none when nothing changed). undo_changes applies a
// record's previous values through it too. Errors as UpdateDeck's.
func (s *DeckService) UpdateDeckIn(ctx context.Context, tx ports.Stores, uid string, args contracts.UpdateDeckArgs, ch *kernel.Changes) (contracts.Deck, error) {
	var out contracts.Deck
	err := func() error {
		now := s.Now()
		d, err := getDeck(ctx, tx, uid, args.DeckID, now)
		if err != nil {
			return err
		}
		old := d
		old.Settings = d.Settings.WithDefaults()
		was := d.Settings.PresetID
		if err := choosePreset(ctx, tx, uid, args.PresetID, &d.Settings); err != nil {
			return err
		}
		from := d.Name
		if args.Name != nil {
			if d.Name, err = CleanDeckName(*args.Name); err != nil {
				return err
			}
			if strings.HasPrefix(d.Name, from+contracts.DeckSeparator) {
				return contracts.Errorf(contracts.KindInvalid, "a deck cannot move below itself: %q is below %q", d.Name, from)
			}
		}
		if args.Description != nil {
			if d.Description, err = cleanDescription(*args.Description); err != nil {
				return err
			}
		}
		if err := applySettings(&d.Settings, args.DesiredRetention, args.NewCardsPerDay, args.ReviewsPerDay, args.MaximumIntervalDays); err != nil {
			return err
		}
		if err := applyPreset(&d.Settings, args); err != nil {
			return err
		}
		if err := storePreset(ctx, tx, s.Deps, uid, args, &d, now); err != nil {
			return err
		}
		left, err := leftPreset(ctx, tx, uid, was, d.Settings.PresetID)
		if err != nil {
			return err
		}
		d.UpdatedAt = now
		if err := tx.Decks().UpdateDeck(ctx, uid, d); err != nil {
			if contracts.IsKind(err, contracts.KindConflict) {
				return nameTaken(ctx, tx, uid, d.Name)
			}
			return kernel.Fail(err)
		}
		if d.Name != from {
			// The decks below move with it: the tree is in the names.
			if _, err := tx.Decks().RenameSubtree(ctx, uid, from, d.Name, now); err != nil {
				return kernel.Fail(err)
			}
		}
		dropped, err := dropUnusedPreset(ctx, tx, uid, left, d.Settings.PresetID)
		if err != nil {
			return err
		}
		out = d
		out.Settings = out.Settings.WithDefaults()
		if prev, after := deckChange(old, out, args); len(prev) > 0 {
			deckUndoFacts(prev, left, dropped, now)
			ch.Add(contracts.ChangeDeckUpdate, d.ID, now.UnixMilli(), prev, after)
		}
		return nil
	}()
	return out, err
}

// applyPreset checks and applies the steps, weights and orders given.
func applyPreset(set *contracts.DeckSettings, args contracts.UpdateDeckArgs) error {
	if args.LearningSteps != nil {
		if err := contracts.CheckSteps("learningSteps", args.LearningSteps); err != nil {
			return err
		}
		set.LearningSteps = append([]float64{}, args.LearningSteps...)
	}
	if args.RelearningSteps != nil {
		if err := contracts.CheckSteps("relearningSteps", args.RelearningSteps); err != nil {
			return err
		}
		set.RelearningSteps = append([]float64{}, args.RelearningSteps...)
	}
	if args.Weights != nil {
		if err := contracts.CheckWeights(args.Weights); err != nil {
			return err
		}
		if !slices.Equal(set.Weights, args.Weights) {
			set.WeightsOptimizedAt = nil // set by hand now
		}
		set.Weights = append([]float64{}, args.Weights...)
	}
	if args.ReviewOrder != "" {
		if !slices.Contains(contracts.ReviewOrders, args.ReviewOrder) {
			return contracts.Errorf(contracts.KindInvalid, "reviewOrder must be one of %s, got %q", strings.Join(contracts.ReviewOrders, ", "), args.ReviewOrder)
		}
		set.ReviewOrder = args.ReviewOrder
	}
	if args.NewOrder != "" {
		if !slices.Contains(contracts.NewOrders, args.NewOrder) {
			return contracts.Errorf(contracts.KindInvalid, "newOrder must be one of %s, got %q", strings.Join(contracts.NewOrders, ", "), args.NewOrder)
		}
		set.NewOrder = args.NewOrder
	}
	if args.EasyDays != nil {
		if err := contracts.CheckEasyDays(args.EasyDays); err != nil {
			return err
		}
		set.EasyDays = nil // all normal days: none
		if !slices.Equal(args.EasyDays, contracts.NormalDays) {
			set.EasyDays = append([]float64{}, args.EasyDays...)
		}
	}
	if args.RescheduleOnChange != nil {
		set.RescheduleOnChange = *args.RescheduleOnChange
	}
	return applyStudyOptions(&set.StudyOptions, args)
}

// applyStudyOptions checks and applies the daily-queue options given.
func applyStudyOptions(o *contracts.StudyOptions, args contracts.UpdateDeckArgs) error {
	next := *o
	for _, f := range []struct{ to, from **bool }{{&next.BuryNew, &args.BuryNew}, {&next.BuryReviews, &args.BuryReviews}, {&next.BuryInterday, &args.BuryInterday}} {
		if *f.from != nil {
			v := **f.from
			*f.to = &v
		}
	}
	if args.LeechThreshold != nil {
		if *args.LeechThreshold < 1 {
			return contracts.Errorf(contracts.KindInvalid, "leechThreshold must be 1-%d lapses, got %d", contracts.MaxLeechThreshold, *args.LeechThreshold)
		}
		next.LeechThreshold = *args.LeechThreshold
	}
	if args.LeechAction != "" {
		next.LeechAction = args.LeechAction
	}
	if args.NewMix != "" {
		next.NewMix = args.NewMix
	}
	if err := next.Check(); err != nil {
		return err
	}
	*o = next
	return nil
}

// DeleteDeck moves a deck with its cards and reviews to the trash (its
// sessions end).
func (s *DeckService) DeleteDeck(ctx context.Context, args contracts.DeleteDeckArgs) (contracts.DeleteResult, error) {
	deckID := args.DeckID
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.DeleteResult{}, err
	}
	if !kernel.PlausibleID(deckID) {
		return contracts.DeleteResult{}, kernel.DeckNotFound(deckID)
	}
	var n int
	// A dry run is this very transaction, rolled back.
	err = kernel.ApplyOrDry(ctx, s.Store, args.DryRun, func(ctx context.Context, st ports.Stores) error {
		var err error
		n, err = st.Decks().TrashDeck(ctx, uid, deckID, s.Now()) // and deletes its preset, when no other deck uses it
		if err != nil {
			return err
		}
		var ch kernel.Changes // undo_changes restores it from the trash
		ch.Add(contracts.ChangeDeckDelete, deckID, 0, nil, nil)
		return ch.Write(ctx, st, s.Deps)
	})
	if contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.DeleteResult{}, kernel.DeckNotFound(deckID)
	}
	if err != nil {
		return contracts.DeleteResult{}, kernel.Fail(err)
	}
	return contracts.DeleteResult{ID: deckID, Deleted: true, CardsDeleted: n, DryRun: args.DryRun}, nil
}

// CleanDeckName trims a deck name and checks it, or says why it cannot be
// one: the one rule for the names of a deck tree's levels, joined by
// contracts.DeckSeparator ("Parent::Child"), each trimmed and none empty.
func CleanDeckName(name string) (string, error) {
	name, err := textrule.Clean("name", name, textrule.Label)
	if err != nil {
		return "", contracts.Errorf(contracts.KindInvalid, "%s", err.Error())
	}
	levels := strings.Split(name, contracts.DeckSeparator)
	for i, l := range levels {
		if levels[i] = strings.Join(strings.Fields(l), " "); levels[i] == "" && len(levels) > 1 {
			return "", contracts.Errorf(contracts.KindInvalid, "name %q has an empty level: a deck tree's names are Parent::Child, each level named", name)
		}
	}
	name = strings.Join(levels, contracts.DeckSeparator)
	if n := utf8.RuneCountInString(name); n < 1 || n > contracts.MaxDeckNameLen || !utf8.ValidString(name) {
		return "", contracts.Errorf(contracts.KindInvalid, "name must be 1-%d characters", contracts.MaxDeckNameLen)
	}
	return name, nil
}

func cleanDescription(desc string) (string, error) {
	desc, err := textrule.Clean("description", desc, textrule.Text)
	if err != nil {
		return "", contracts.Errorf(contracts.KindInvalid, "%s", err.Error())
	}
	desc = strings.TrimSpace(desc)
	if n := utf8.RuneCountInString(desc); n > contracts.MaxDescriptionLen {
		return "", contracts.Errorf(contracts.KindInvalid, "description is %d characters; the limit is %d", n, contracts.MaxDescriptionLen)
	}
	return desc, nil
}

// applySettings checks and applies the settings given.
func applySettings(set *contracts.DeckSettings, retention *float64, newPerDay, reviewsPerDay, maxIvl *int) error {
	if retention != nil {
		r := *retention
		if math.IsNaN(r) || r < MinDesiredRetention || r > MaxDesiredRetention {
			return contracts.Errorf(contracts.KindInvalid, "desiredRetention must be between %v and %v (0.9 is a good default), got %v", MinDesiredRetention, MaxDesiredRetention, r)
		}
		set.DesiredRetention = r
	}
	if newPerDay != nil {
		if *newPerDay < 0 || *newPerDay > MaxNewCardsPerDay {
			return contracts.Errorf(contracts.KindInvalid, "newCardsPerDay must be 0-%d, got %d", MaxNewCardsPerDay, *newPerDay)
		}
		set.NewCardsPerDay = *newPerDay
	}
	if reviewsPerDay != nil {
		if *reviewsPerDay < 0 || *reviewsPerDay > MaxReviewsPerDay {
			return contracts.Errorf(contracts.KindInvalid, "reviewsPerDay must be 0-%d, got %d", MaxReviewsPerDay, *reviewsPerDay)
		}
		set.ReviewsPerDay = *reviewsPerDay
	}
	if maxIvl != nil {
		if *maxIvl < 1 || *maxIvl > contracts.DefaultMaximumIntervalDays {
			return contracts.Errorf(contracts.KindInvalid, "maximumIntervalDays must be 1-%d, got %d", contracts.DefaultMaximumIntervalDays, *maxIvl)
		}
		set.MaximumIntervalDays = *maxIvl
	}
	return nil
}
