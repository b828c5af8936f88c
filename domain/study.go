package domain

import (
	"context"
	"fmt"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/ports"
)

// Study constants.
const (
	// sessionHandleBits is the entropy of a study session handle.
	sessionHandleBits = 128
	// RequeueWindow: a reviewed card due again within this window (a
	// learning step) comes back at the end of the session's queue.
	RequeueWindow = 20 * time.Minute
	// previewSize is the number of fronts a snapshot shows.
	previewSize = 5
)

// StudyService runs study sessions.
type StudyService struct{ *deps }

var _ ports.StudyService = (*StudyService)(nil)

// StartSession builds a session queue for a deck: due cards, most overdue
// first, up to the deck's reviewsPerDay, then new cards up to what the
// deck's newCardsPerDay still allows today (UTC). NewLimit and ReviewLimit
// can only lower those caps.
func (s *StudyService) StartSession(ctx context.Context, args contracts.StartStudySessionArgs) (contracts.StudySession, error) {
	uid, err := userID(ctx)
	if err != nil {
		return contracts.StudySession{}, err
	}
	if err := checkLimit("newLimit", args.NewLimit, contracts.MaxSessionNewCards); err != nil {
		return contracts.StudySession{}, err
	}
	if err := checkLimit("reviewLimit", args.ReviewLimit, contracts.MaxSessionReviews); err != nil {
		return contracts.StudySession{}, err
	}
	var out contracts.StudySession
	err = s.store.InTx(ctx, func(tx ports.Stores) error {
		now := s.now()
		deck, err := loadDeck(ctx, tx, uid, args.DeckID)
		if err != nil {
			return err
		}
		reviewCap := deck.Settings.ReviewsPerDay
		if args.ReviewLimit != nil {
			reviewCap = min(reviewCap, *args.ReviewLimit)
		}
		newCap, err := newAllowedToday(ctx, tx, uid, deck, now)
		if err != nil {
			return err
		}
		if args.NewLimit != nil {
			newCap = min(newCap, *args.NewLimit)
		}
		var queue []string
		if reviewCap > 0 {
			due, err := tx.Cards().DueCards(ctx, uid, deck.ID, now, reviewCap)
			if err != nil {
				return fail(err)
			}
			for _, c := range due {
				queue = append(queue, c.ID)
			}
		}
		if newCap > 0 {
			fresh, err := tx.Cards().NewCards(ctx, uid, deck.ID, newCap)
			if err != nil {
				return fail(err)
			}
			for _, c := range fresh {
				queue = append(queue, c.ID)
			}
		}
		row := ports.StudySessionRow{ID: s.ids.Secret(sessionHandleBits), UserID: uid, DeckID: deck.ID, StartedAt: now, ExpiresAt: now.Add(s.cfg.StudySessionTTL)}
		if err := tx.Sessions().CreateSession(ctx, row, queue); err != nil {
			return fail(err)
		}
		out, err = s.view(ctx, tx, row)
		return err
	})
	return out, err
}

func checkLimit(name string, v *int, max int) error {
	if v != nil && (*v < 0 || *v > max) {
		return contracts.Errorf(contracts.KindInvalid, "%s must be 0-%d, got %d", name, max, *v)
	}
	return nil
}

// newAllowedToday is the deck's daily new-card limit minus the new cards
// studied since midnight UTC, never below zero.
func newAllowedToday(ctx context.Context, st ports.Stores, uid string, deck contracts.Deck, now time.Time) (int, error) {
	studied, err := st.Reviews().NewCardsStudied(ctx, uid, deck.ID, startOfDay(now))
	if err != nil {
		return 0, fail(err)
	}
	return max(0, deck.Settings.NewCardsPerDay-studied), nil
}

// GetSession returns a session with its progress and current card.
func (s *StudyService) GetSession(ctx context.Context, sessionID string) (contracts.StudySession, error) {
	uid, err := userID(ctx)
	if err != nil {
		return contracts.StudySession{}, err
	}
	var out contracts.StudySession
	err = s.store.InTx(ctx, func(tx ports.Stores) error {
		row, err := s.liveSession(ctx, tx, uid, sessionID)
		if err != nil {
			return err
		}
		out, err = s.view(ctx, tx, row)
		return err
	})
	return out, err
}

// liveSession loads an unexpired session of the user.
func (s *StudyService) liveSession(ctx context.Context, st ports.Stores, uid, sessionID string) (ports.StudySessionRow, error) {
	gone := contracts.Errorf(contracts.KindNotFound, "study session not found or expired; start a new one with start_study_session")
	if !plausibleID(sessionID) {
		return ports.StudySessionRow{}, gone
	}
	row, err := st.Sessions().GetSession(ctx, uid, sessionID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return row, gone
	}
	if err != nil {
		return row, fail(err)
	}
	if !s.now().Before(row.ExpiresAt) {
		return row, gone
	}
	return row, nil
}

// view renders a session: progress, the current card and the study link.
func (s *StudyService) view(ctx context.Context, st ports.Stores, row ports.StudySessionRow) (contracts.StudySession, error) {
	cur, err := s.current(ctx, st, row)
	if err != nil {
		return contracts.StudySession{}, err
	}
	reviewed, remaining, err := st.Sessions().Progress(ctx, row.UserID, row.ID)
	if err != nil {
		return contracts.StudySession{}, fail(err)
	}
	return contracts.StudySession{
		ID: row.ID, DeckID: row.DeckID, StartedAt: row.StartedAt, ExpiresAt: row.ExpiresAt,
		Reviewed: reviewed, Remaining: remaining, Done: cur == nil, Current: cur, StudyURL: s.studyURL(row.ID),
	}, nil
}

// current returns the card of the first pending item, completing (as
// skipped; they count as done) items whose card was deleted or suspended
// since the session started; nil when nothing is pending.
func (s *StudyService) current(ctx context.Context, st ports.Stores, row ports.StudySessionRow) (*contracts.StudyCard, error) {
	for {
		item, err := st.Sessions().NextItem(ctx, row.UserID, row.ID)
		if err != nil {
			return nil, fail(err)
		}
		if item == nil {
			return nil, nil
		}
		cards, err := st.Cards().GetCards(ctx, row.UserID, []string{item.CardID})
		if err != nil {
			return nil, fail(err)
		}
		if len(cards) == 1 && !cards[0].Suspended {
			c := studyCard(cards[0].Card)
			c.Position = item.Position
			return &c, nil
		}
		err = st.Sessions().CompleteItem(ctx, row.UserID, row.ID, item.Position, s.now())
		if err != nil && !contracts.IsKind(err, contracts.KindConflict) {
			return nil, fail(err)
		}
	}
}

func (s *StudyService) studyURL(sessionID string) string {
	if s.cfg.BaseURL == "" {
		return ""
	}
	return s.cfg.BaseURL + "/study/" + sessionID
}

func studyCard(c contracts.Card) contracts.StudyCard {
	tags := c.Tags
	if tags == nil {
		tags = []string{}
	}
	return contracts.StudyCard{CardID: c.ID, Front: c.Front, Back: c.Back, Tags: tags, Phase: c.State.Phase}
}

// Snapshot reports what a deck offers right now without starting a session.
func (s *StudyService) Snapshot(ctx context.Context, deckID string) (contracts.StudySnapshot, error) {
	uid, err := userID(ctx)
	if err != nil {
		return contracts.StudySnapshot{}, err
	}
	var out contracts.StudySnapshot
	err = s.store.InTx(ctx, func(tx ports.Stores) error {
		now := s.now()
		deck, err := loadDeck(ctx, tx, uid, deckID)
		if err != nil {
			return err
		}
		out, err = s.snapshot(ctx, tx, uid, deck, now)
		return err
	})
	return out, err
}

func (s *StudyService) snapshot(ctx context.Context, tx ports.Stores, uid string, deck contracts.Deck, now time.Time) (contracts.StudySnapshot, error) {
	cards := tx.Cards()
	out := contracts.StudySnapshot{DeckID: deck.ID, Preview: []contracts.StudyCard{}}
	var err error
	if out.DueNow, err = cards.CountDue(ctx, uid, deck.ID, now); err != nil {
		return out, fail(err)
	}
	if out.Overdue, err = cards.CountDue(ctx, uid, deck.ID, startOfDay(now).Add(-time.Millisecond)); err != nil {
		return out, fail(err)
	}
	phases, err := cards.CountPhases(ctx, uid, deck.ID)
	if err != nil {
		return out, fail(err)
	}
	out.NewAvailable = phases.New
	allowed, err := newAllowedToday(ctx, tx, uid, deck, now)
	if err != nil {
		return out, err
	}
	out.NewToday = min(allowed, phases.New)
	// The earliest due card of all, due now or later, is the next due.
	next, err := cards.DueCards(ctx, uid, deck.ID, now.AddDate(200, 0, 0), 1)
	if err != nil {
		return out, fail(err)
	}
	if len(next) == 1 {
		d := next[0].State.Due
		out.NextDue = &d
	}
	var preview []ports.CardRow
	if n := min(previewSize, deck.Settings.ReviewsPerDay); n > 0 {
		if preview, err = cards.DueCards(ctx, uid, deck.ID, now, n); err != nil {
			return out, fail(err)
		}
	}
	if n := min(previewSize-len(preview), out.NewToday); n > 0 {
		fresh, err := cards.NewCards(ctx, uid, deck.ID, n)
		if err != nil {
			return out, fail(err)
		}
		preview = append(preview, fresh...)
	}
	for i, c := range preview {
		sc := studyCard(c.Card)
		sc.Back = ""
		sc.Position = i // where a session started now would show it
		out.Preview = append(out.Preview, sc)
	}
	return out, nil
}

// formatInterval renders a duration for people: "now", "10m", "3h", "3d",
// "1.5y".
func formatInterval(d time.Duration) string {
	switch {
	case d < 30*time.Second:
		return "now"
	case d < time.Hour-30*time.Second:
		return fmt.Sprintf("%dm", max(1, int(d.Round(time.Minute)/time.Minute)))
	case d < day-30*time.Minute:
		return fmt.Sprintf("%dh", int(d.Round(time.Hour)/time.Hour))
	case d < 365*day:
		return fmt.Sprintf("%dd", max(1, int((d+day/2)/day)))
	}
	y := float64(d) / float64(365*day)
	s := fmt.Sprintf("%.1f", y)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s + "y"
}
