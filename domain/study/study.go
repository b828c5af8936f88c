package study

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/url"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// Study constants.
const (
	// sessionHandleBits is the entropy of a study session handle.
	sessionHandleBits = 128
	// RequeueWindow is the learning-step window of the bench's database
	// floor (bench/internal/servers), which mirrors a review's statements;
	// sessions themselves requeue every learning step due before they
	// expire and show it when it is due.
	RequeueWindow = 20 * time.Minute
	// previewSize is the number of fronts a snapshot shows.
	previewSize = 5
)

// StudyService runs study sessions.
type StudyService struct{ *kernel.Deps }

var _ ports.StudyService = (*StudyService)(nil)

// StartSession builds a session queue for a deck: learning and relearning
// cards due by the end of the learner's day (outside every cap; each shows
// when its step is due), review-phase cards due by then (or by the end of
// the day reviewAheadDays on) in the deck's review order up to what the
// review limit leaves today, then new cards up to what the new-card limit
// and the review limit leave (new cards count against both, as Anki's v3
// scheduler does). NewLimit and ReviewLimit only lower those caps. A cram
// session takes the deck's non-new cards in its review order (up to
// ReviewLimit, default DefaultCramCards) and NewLimit new cards, and its
// ratings change no schedule.
func (s *StudyService) StartSession(ctx context.Context, args contracts.StartStudySessionArgs) (contracts.StudySession, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.StudySession{}, err
	}
	if err := checkLimit("newLimit", args.NewLimit, contracts.MaxSessionNewCards); err != nil {
		return contracts.StudySession{}, err
	}
	if err := checkLimit("reviewLimit", args.ReviewLimit, contracts.MaxSessionReviews); err != nil {
		return contracts.StudySession{}, err
	}
	if args.ReviewAheadDays < 0 || args.ReviewAheadDays > contracts.MaxReviewAheadDays {
		return contracts.StudySession{}, contracts.Errorf(contracts.KindInvalid, "reviewAheadDays must be 0-%d, got %d", contracts.MaxReviewAheadDays, args.ReviewAheadDays)
	}
	if args.Cram && args.ReviewAheadDays > 0 {
		return contracts.StudySession{}, contracts.Errorf(contracts.KindInvalid, "cram already takes every card; drop reviewAheadDays")
	}
	var out contracts.StudySession
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		row, k, err := s.start(ctx, tx, uid, args)
		if err != nil {
			return err
		}
		out, err = s.view(ctx, tx, row, k)
		return err
	})
	return out, err
}

// start builds and stores a session queue in tx (StartSession's
// transaction, or RenderSession's) after StartSession checked args; it
// returns the session row and what it loaded.
func (s *StudyService) start(ctx context.Context, tx ports.Stores, uid string, args contracts.StartStudySessionArgs) (ports.StudySessionRow, *known, error) {
	now := s.Now()
	tree, err := loadTree(ctx, tx, uid, args.DeckID)
	if err != nil {
		return ports.StudySessionRow{}, nil, err
	}
	deck := tree.root()
	acct, day, err := kernel.AccountSettings(ctx, tx, uid)
	if err != nil {
		return ports.StudySessionRow{}, nil, err
	}
	row := ports.StudySessionRow{ID: s.IDs.Secret(sessionHandleBits), UserID: uid, DeckID: deck.ID, StartedAt: now,
		ExpiresAt: now.Add(s.Cfg.StudySessionTTL), Mode: modeNormal}
	queue, filtered, err := s.filteredQueue(ctx, tx, &row, deck, args, now)
	switch {
	case err != nil || filtered:
	case args.Cram:
		row.Mode = modeCram
		queue, err = s.cramQueue(ctx, tx, row, deck, args, now)
	default:
		queue, err = s.queue(ctx, tx, row, tree, acct, day, args, now)
	}
	if err != nil {
		return ports.StudySessionRow{}, nil, err
	}
	if err := tx.Sessions().CreateSession(ctx, row, queue); err != nil {
		return ports.StudySessionRow{}, nil, kernel.Fail(err)
	}
	return row, &known{acct: &acct, day: day, deck: &deck, tree: &tree}, nil
}

// known is what a caller already loaded, so rendering a session does not
// read it again: the account's settings, its learner's day, the deck.
type known struct {
	acct *contracts.AccountSettings
	day  contracts.LearnerDay
	deck *contracts.Deck
	// tree is the deck with the decks below it, when loaded (loadDeck).
	tree *deckTree
	// card is the current card as current loaded it (with its state),
	// filled in for the caller; nil when no card is shown.
	card *contracts.Card
	// left is what the daily limits of deck leave today, when the caller
	// counted it (a review, under the deck's lock); nil when not.
	left *left
	// progress is the session's reviewed and pending items as current
	// read them with its card; nil until it has.
	progress *[2]int
}

// loadDeck loads the session's deck and the decks below it into k
// unless it holds them.
func (k *known) loadDeck(ctx context.Context, st ports.Stores, row ports.StudySessionRow) error {
	if k.deck != nil && k.deck.ID == row.DeckID && k.tree != nil {
		return nil
	}
	tree, err := loadTree(ctx, st, row.UserID, row.DeckID)
	if err != nil {
		return err
	}
	deck := tree.root()
	k.deck, k.tree, k.left = &deck, &tree, nil
	return nil
}

// Session modes.
const (
	modeNormal = "normal"
	modeCram   = "cram"
	// DefaultCramCards is a cram session's size when reviewLimit is not given.
	DefaultCramCards = 100
	// randomPool bounds the cards a random order draws from.
	randomPool = 2000
	// maxQueueRead bounds a read of a queue's cards that siblings left
	// short (it doubles until then).
	maxQueueRead = 8 * contracts.MaxSessionReviews
)

// queue lists a normal session's cards.
func (s *StudyService) queue(ctx context.Context, tx ports.Stores, row ports.StudySessionRow, tree deckTree,
	acct contracts.AccountSettings, day contracts.LearnerDay, args contracts.StartStudySessionArgs, now time.Time) ([]string, error) {
	q, err := dayQueue(ctx, tx, row.UserID, tree, acct, day, args, now, row.ID)
	if err != nil {
		return nil, err
	}
	cards := q.served(tree.root())
	queue := make([]string, len(cards))
	for i, c := range cards {
		queue[i] = c.ID
	}
	return queue, nil
}

// served lists the cards in the order a session queues them: the
// learning cards, then the review cards with the new cards placed among
// them as the deck's newMix option says.
func (q todaysCards) served(deck contracts.Deck) []ports.CardRow {
	return append(slices.Clone(q.learning), mixNew(q.review, q.fresh, deck.Settings.StudyOptions.WithDefaults().NewMix)...)
}

// todaysCards are the cards a normal session started now serves: the
// learning cards due today, the review cards and the new cards, each in
// the order served.
type todaysCards struct{ learning, review, fresh []ports.CardRow }

// dayQueue lists the cards a normal session of the tree's deck started
// at now serves (see StartSession): what the daily limits leave today
// of the deck and of each deck below it (tree.go), without buried cards
// and the siblings the deck's options bury. The study plan's day 0 is the
// same list, so the plan says what sessions deliver. seed orders a random
// order.
func dayQueue(ctx context.Context, tx ports.Stores, uid string, tree deckTree, acct contracts.AccountSettings,
	day contracts.LearnerDay, args contracts.StartStudySessionArgs, now time.Time, seed string) (todaysCards, error) {
	deck := tree.root()
	set := deck.Settings.WithDefaults()
	lim, err := dailyLeft(ctx, tx, uid, tree, acct, day, now)
	if err != nil {
		return todaysCards{}, err
	}
	// The session's own caps (reviewLimit, newLimit) only lower the
	// limits' room.
	reviewBudget, newBudget := math.MaxInt32, math.MaxInt32
	if args.ReviewLimit != nil {
		reviewBudget = *args.ReviewLimit
	}
	if args.NewLimit != nil {
		newBudget = *args.NewLimit
	}
	endOfToday := day.Next(now).Add(-time.Millisecond)
	dueBy := day.StartOfDate(day.Date(now).AddDate(0, 0, 1+args.ReviewAheadDays)).Add(-time.Millisecond)
	gate := newSiblingGate(set, day, now)
	var decks []string // the tree's decks, when nested: each read is per deck
	if tree.nested() {
		decks = tree.ids()
	}
	// Siblings the gate leaves out, and the limits of the decks below,
	// make room for the next cards: a read that came back full for a deck
	// that still has room reads again, twice as many. The review limit
	// takes the cards in the deck's order; in due order (and in random
	// order, which then shuffles what it took) equal due times are broken
	// by the day's tiebreak, so every session of the day and the plan
	// take the same cards.
	daySeed := uid + "/" + day.DateString(now)
	order, byDue := set.ReviewOrder, set.ReviewOrder == contracts.ReviewOrderDue || set.ReviewOrder == contracts.ReviewOrderRandom
	if byDue {
		order = contracts.ReviewOrderDue
	}
	var learning, review []ports.CardRow
	for n := max(min(lim.Review, reviewBudget), 0); ; n *= 2 {
		var got []ports.CardRow
		learning, got, err = tx.Cards().StudyCards(ctx, uid, deck.ID, ports.StudyQuery{
			LearnDueBy: endOfToday, ReviewDueBy: dueBy, ReviewLimit: n, Order: order, Now: now,
			WithTies: byDue, TieLimit: maxQueueRead, DeckIDs: decks,
		})
		if err != nil {
			return todaysCards{}, kernel.Fail(err)
		}
		if byDue {
			dayTiebreak(got, daySeed)
		}
		dayTiebreak(learning, daySeed)
		if err := gate.load(ctx, tx, uid, learning, got); err != nil {
			return todaysCards{}, err
		}
		g, l, budget := gate.clone(), lim.clone(), reviewBudget
		// A learning step carried over from an earlier day takes a review
		// slot (interday.go); one set today takes none.
		kept := make([]ports.CardRow, 0, len(learning))
		for _, c := range learning {
			carried := carriedOver(c.State, day, now)
			if carried && (budget <= 0 || !l.room(c.DeckID, contracts.PhaseReview)) {
				continue
			}
			if g.admit(c) {
				if carried {
					l.take(c.DeckID, contracts.PhaseReview)
					budget--
				}
				kept = append(kept, c)
			}
		}
		learning = kept
		var spent bool
		review, spent = admitCards(got, budget, &l, g, contracts.PhaseReview)
		if spent || !fullRead(got, n, decks, &l, contracts.PhaseReview) || n >= maxQueueRead {
			gate, lim = g, l
			break
		}
	}
	if set.ReviewOrder == contracts.ReviewOrderRandom {
		shuffle(review, seed+"/review")
	}
	var fresh []ports.CardRow
	var drawn *randomNew // the day's random order of every new card
	rank := tree.rank()
	var tdraw *treeDraw // the day's random order of every new card of the tree
	first := min(lim.New, newBudget)
	for n := first; n > 0; n *= 2 {
		fetch := n
		var got []ports.CardRow
		full := false // whether reading more may serve more
		switch {
		case decks != nil && set.NewOrder == contracts.NewOrderRandom:
			if tdraw == nil {
				if tdraw, err = drawTree(ctx, tx, uid, decks, now, daySeed+"/new"); err != nil {
					return todaysCards{}, err
				}
			}
			got, err = tdraw.pick(ctx, tx, uid, &lim, n, n/first)
			full = len(got) >= n
		case decks != nil:
			// Deck by deck in the tree's order.
			if got, err = tx.Cards().FreshCardsIn(ctx, uid, decks, now, n); err == nil {
				slices.SortStableFunc(got, func(a, b ports.CardRow) int { return cmp.Compare(rank[a.DeckID], rank[b.DeckID]) })
			}
		case set.NewOrder == contracts.NewOrderRandom:
			if drawn == nil {
				if drawn, err = drawNew(ctx, tx, uid, deck.ID, now, daySeed+"/new"); err != nil {
					return todaysCards{}, err
				}
			}
			got, err = drawn.first(ctx, tx, uid, n)
		default:
			got, err = tx.Cards().FreshCards(ctx, uid, deck.ID, now, fetch)
		}
		if err != nil {
			return todaysCards{}, kernel.Fail(err)
		}
		if err := gate.load(ctx, tx, uid, got); err != nil {
			return todaysCards{}, err
		}
		g, l := gate.clone(), lim.clone()
		var spent bool
		fresh, spent = admitCards(got, newBudget, &l, g, contracts.PhaseNew)
		if tdraw == nil {
			full = fullRead(got, fetch, decks, &l, contracts.PhaseNew)
		}
		if spent || !full || n >= maxQueueRead {
			break
		}
	}
	return todaysCards{learning: learning, review: review, fresh: fresh}, nil
}

// admitCards takes, in their order, the cards of got that the budget,
// the limits l in phase p (new or review) and the sibling gate g leave
// room for, using their slots in l and g. spent reports whether the
// budget or the studied deck's limit in phase p is then used up.
func admitCards(got []ports.CardRow, budget int, l *left, g *siblingGate, p contracts.Phase) (taken []ports.CardRow, spent bool) {
	phaseLeft := func() int {
		if p == contracts.PhaseNew {
			return l.New
		}
		return l.Review
	}
	for _, c := range got {
		if budget <= 0 || phaseLeft() <= 0 {
			break
		}
		if l.room(c.DeckID, p) && g.admit(c) {
			l.take(c.DeckID, p)
			budget--
			taken = append(taken, c)
		}
	}
	return taken, budget <= 0 || phaseLeft() <= 0
}

// fullRead reports whether a read of up to n cards (of each of decks,
// when given) came back full for a deck whose limits still leave room in
// phase p: reading more may then serve more.
func fullRead(got []ports.CardRow, n int, decks []string, l *left, p contracts.Phase) bool {
	if decks == nil {
		return len(got) >= n
	}
	count := map[string]int{}
	for _, c := range got {
		count[c.DeckID]++
	}
	for id, k := range count {
		if k >= n && l.room(id, p) {
			return true
		}
	}
	return false
}

// cramQueue lists a cram session's cards.
func (s *StudyService) cramQueue(ctx context.Context, tx ports.Stores, row ports.StudySessionRow, deck contracts.Deck,
	args contracts.StartStudySessionArgs, now time.Time) ([]string, error) {
	cards, err := s.cramCards(ctx, tx, row, deck, args, now)
	return cardIDs(cards), err
}

// cardIDs are the cards' ids, in their order.
func cardIDs(cards []ports.CardRow) []string {
	ids := make([]string, len(cards))
	for i, c := range cards {
		ids[i] = c.ID
	}
	return ids
}

// cramCards are the cards of cramQueue, in its order.
func (s *StudyService) cramCards(ctx context.Context, tx ports.Stores, row ports.StudySessionRow, deck contracts.Deck,
	args contracts.StartStudySessionArgs, now time.Time) ([]ports.CardRow, error) {
	set := deck.Settings.WithDefaults()
	limit := DefaultCramCards
	if args.ReviewLimit != nil {
		limit = *args.ReviewLimit
	}
	fetch := limit
	if set.ReviewOrder == contracts.ReviewOrderRandom && fetch > 0 {
		fetch = randomPool
	}
	_, cards, err := tx.Cards().StudyCards(ctx, row.UserID, deck.ID, ports.StudyQuery{ReviewLimit: fetch, Order: set.ReviewOrder, Now: now, Cram: true})
	if err != nil {
		return nil, kernel.Fail(err)
	}
	if set.ReviewOrder == contracts.ReviewOrderRandom {
		shuffle(cards, row.ID+"/cram")
	}
	cards = cards[:min(len(cards), limit)]
	if args.NewLimit != nil && *args.NewLimit > 0 {
		fresh, err := tx.Cards().NewCards(ctx, row.UserID, deck.ID, *args.NewLimit)
		if err != nil {
			return nil, kernel.Fail(err)
		}
		cards = append(cards, fresh...)
	}
	return cards, nil
}

// mixNew places the new cards among the review cards as the deck's
// option says: spread evenly through them (mix, Anki's default), before
// them or after them.
func mixNew(review, fresh []ports.CardRow, mode string) []ports.CardRow {
	out := make([]ports.CardRow, 0, len(review)+len(fresh))
	switch mode {
	case contracts.NewMixFirst:
		return append(append(out, fresh...), review...)
	case contracts.NewMixLast:
		return append(append(out, review...), fresh...)
	}
	r := 0
	for j, c := range fresh {
		upto := (j + 1) * len(review) / (len(fresh) + 1)
		out = append(append(out, review[r:upto]...), c)
		r = upto
	}
	return append(out, review[r:]...)
}

// dayTiebreak orders cards of equal due time at random, the same way for
// the whole of a learner's day (seed names the user and the date), so
// sessions and the plan agree; ties by id before.
func dayTiebreak(cards []ports.CardRow, seed string) {
	slices.SortStableFunc(cards, func(a, b ports.CardRow) int {
		if c := a.State.Due.Compare(b.State.Due); c != 0 {
			return c
		}
		return cmp.Compare(tieKey(seed, a.ID), tieKey(seed, b.ID))
	})
}

// tieKey is id's place in the order seed draws.
func tieKey(seed, id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(seed))
	h.Write([]byte{0})
	h.Write([]byte(id))
	return h.Sum64()
}

// shuffle orders cards randomly, the same way for the same seed.
func shuffle(cards []ports.CardRow, seed string) {
	h := fnv.New64a()
	h.Write([]byte(seed))
	r := rand.New(rand.NewPCG(h.Sum64(), 0x7a6b))
	r.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
}

func checkLimit(name string, v *int, max int) error {
	if v != nil && (*v < 0 || *v > max) {
		return contracts.Errorf(contracts.KindInvalid, "%s must be %d-%d, got %d", name, 0, max, *v)
	}
	return nil
}

// left is what the daily limits leave today; Deck is what the deck's own
// limits alone leave (the account-wide caps bound New and Review further).
// In a session of a deck tree, New, Review and Deck are the studied
// deck's, and below holds what each deck below it leaves (new, review),
// up its parent (see tree.go); below is nil for a deck alone.
type left struct {
	New, Review int
	Deck        struct{ New, Review int }
	below       map[string]*[2]int
	up          map[string]string
}

// accountCapped reports whether the account has an account-wide daily cap.
func accountCapped(acct contracts.AccountSettings) bool {
	return acct.NewCardsPerDay > 0 || acct.ReviewsPerDay > 0
}

// dailyLeft is what the daily limits of the tree's decks (and the
// account-wide caps, when set) leave of the learner's day: new cards
// count against both the new-card and the review limit; learning steps
// against neither.
func dailyLeft(ctx context.Context, st ports.Stores, uid string, tree deckTree, acct contracts.AccountSettings,
	day contracts.LearnerDay, now time.Time) (left, error) {
	c, err := studiedToday(ctx, st, uid, tree, acct, day, now)
	if err != nil {
		return left{}, err
	}
	return c.left(tree, acct), nil
}

// studied is what was studied in the learner's day: in the studied deck
// and the decks below it, and in the whole account when it sets
// account-wide caps; byDeck holds each deck's own counts in a deck tree
// (nil for a deck alone).
type studied struct {
	deck, all ports.StudiedCounts
	byDeck    map[string]ports.StudiedCounts
}

// studiedToday counts the reviews the daily limits of the tree count, in
// one read for the tree (and one for the account when capped).
func studiedToday(ctx context.Context, st ports.Stores, uid string, tree deckTree, acct contracts.AccountSettings,
	day contracts.LearnerDay, now time.Time) (studied, error) {
	since := day.Start(now)
	var c studied
	var err error
	if tree.nested() {
		if c.byDeck, err = st.Reviews().StudiedByDeck(ctx, uid, tree.ids(), since); err != nil {
			return studied{}, kernel.Fail(err)
		}
		for _, x := range c.byDeck {
			c.deck = addCounts(c.deck, x)
		}
	} else if c.deck, err = st.Reviews().StudiedSince(ctx, uid, tree.root().ID, since); err != nil {
		return studied{}, kernel.Fail(err)
	}
	if accountCapped(acct) {
		if c.all, err = st.Reviews().StudiedSince(ctx, uid, "", since); err != nil {
			return studied{}, kernel.Fail(err)
		}
	}
	return c, nil
}

// addCounts adds two counts.
func addCounts(a, b ports.StudiedCounts) ports.StudiedCounts {
	return ports.StudiedCounts{New: a.New + b.New, Review: a.Review + b.Review, Interday: a.Interday + b.Interday}
}

// deckLeft is what a deck's own limits leave after done: new, review.
func deckLeft(d contracts.Deck, done ports.StudiedCounts) (int, int) {
	return d.Settings.NewCardsPerDay - done.New, d.Settings.ReviewsPerDay - done.Review - done.New - done.Interday
}

// left is what the counts leave of the tree's limits and the account's
// caps.
func (c studied) left(tree deckTree, acct contracts.AccountSettings) left {
	done, all := c.deck, c.all
	var l left
	l.New, l.Review = deckLeft(tree.root(), done)
	l.Deck.New, l.Deck.Review = max(0, min(l.New, l.Review)), max(0, l.Review)
	if acct.NewCardsPerDay > 0 {
		l.New = min(l.New, acct.NewCardsPerDay-all.New)
	}
	if acct.ReviewsPerDay > 0 {
		l.Review = min(l.Review, acct.ReviewsPerDay-all.Review-all.New-all.Interday)
	}
	l.New, l.Review = max(0, min(l.New, l.Review)), max(0, l.Review)
	if tree.nested() {
		// Each deck counts what was studied in it and below it.
		sub := map[string]ports.StudiedCounts{}
		for id, x := range c.byDeck {
			for d, ok := id, true; ok; d, ok = tree.up[d] {
				sub[d] = addCounts(sub[d], x)
			}
		}
		l.up, l.below = tree.up, make(map[string]*[2]int, len(tree.decks)-1)
		for _, d := range tree.decks[1:] {
			n, r := deckLeft(d, sub[d.ID])
			l.below[d.ID] = &[2]int{max(0, min(n, r)), max(0, r)}
		}
	}
	return l
}

// after returns the counts with one more review (not cram) of a card of
// deckID counted against the limit of phase p (limitPhase: a carried-over
// learning step counts as a review): what they are once that review is
// written.
func (c studied) after(deckID string, p contracts.Phase) studied {
	bump := func(x *ports.StudiedCounts) {
		switch p {
		case contracts.PhaseNew:
			x.New++
		case contracts.PhaseReview:
			x.Review++
		}
	}
	bump(&c.deck)
	bump(&c.all)
	if c.byDeck != nil {
		by := make(map[string]ports.StudiedCounts, len(c.byDeck)+1)
		for id, x := range c.byDeck {
			by[id] = x
		}
		x := by[deckID]
		bump(&x)
		by[deckID], c.byDeck = x, by
	}
	return c
}

// GetSession returns a session with its progress and current card.
func (s *StudyService) GetSession(ctx context.Context, sessionID string) (contracts.StudySession, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.StudySession{}, err
	}
	var out contracts.StudySession
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		row, err := s.liveSession(ctx, tx, uid, sessionID)
		if err != nil {
			return err
		}
		out, err = s.view(ctx, tx, row, nil)
		return err
	})
	return out, err
}

// sessionGone is the error for a missing or expired session.
func sessionGone() error {
	return contracts.Errorf(contracts.KindNotFound, "study session not found or expired; start a new one with start_study_session")
}

// liveSession loads an unexpired session of the user.
func (s *StudyService) liveSession(ctx context.Context, st ports.Stores, uid, sessionID string) (ports.StudySessionRow, error) {
	gone := sessionGone()
	if !kernel.PlausibleID(sessionID) {
		return ports.StudySessionRow{}, gone
	}
	row, err := st.Sessions().GetSession(ctx, uid, sessionID)
	if contracts.IsKind(err, contracts.KindNotFound) {
		return row, gone
	}
	if err != nil {
		return row, kernel.Fail(err)
	}
	if !s.Now().Before(row.ExpiresAt) {
		return row, gone
	}
	return row, nil
}

// view renders a session: progress, the current card (or when the next
// learning step comes due) and the study link.
func (s *StudyService) view(ctx context.Context, st ports.Stores, row ports.StudySessionRow, k *known) (contracts.StudySession, error) {
	if k == nil {
		k = &known{}
	}
	cur, nextAt, err := s.current(ctx, st, row, k)
	if err != nil {
		return contracts.StudySession{}, err
	}
	reviewed, remaining := k.progress[0], k.progress[1] // read with the current card
	mode := row.Mode
	if mode == "" {
		mode = modeNormal
	}
	return contracts.StudySession{
		ID: row.ID, DeckID: row.DeckID, StartedAt: row.StartedAt, ExpiresAt: row.ExpiresAt,
		Reviewed: reviewed, Remaining: remaining, Done: cur == nil && nextAt == nil, Current: cur, StudyURL: s.studyURL(row.ID),
		Mode: mode, NextCardAt: nextAt,
	}, nil
}

// current returns the card to show now: a learning step as soon as it is
// due, else the next card of the queue, else a learning step due within
// the learn-ahead limit. When only later learning steps are pending it
// returns nil and when the first comes due. Items whose card was deleted
// or suspended, or that today's daily limits no longer allow (another
// session, agent or the web app studied meanwhile), are completed as
// skipped (they count as done); nil, nil when nothing is pending. What it
// loads it leaves in k when k is not nil.
func (s *StudyService) current(ctx context.Context, st ports.Stores, row ports.StudySessionRow, k *known) (*contracts.StudyCard, *time.Time, error) {
	now := s.Now()
	if k == nil {
		k = &known{}
	}
	if k.acct == nil {
		acct, day, err := kernel.AccountSettings(ctx, st, row.UserID)
		if err != nil {
			return nil, nil, err
		}
		k.acct, k.day = &acct, day
	}
	acct, day := *k.acct, k.day
	learnAhead := now.Add(time.Duration(acct.LearnAheadMinutes) * time.Minute)
	var limits *left
	for {
		// The item, its card and the session's progress in one read.
		next, err := st.Sessions().NextDueCard(ctx, row.UserID, row.ID, now, learnAhead)
		if err != nil {
			return nil, nil, kernel.Fail(err)
		}
		k.progress = &[2]int{next.Reviewed, next.Remaining}
		item := next.Item
		if item == nil {
			return nil, nil, nil
		}
		if item.Learning && item.Due.After(learnAhead) && row.Mode != modeCram {
			at := item.Due
			return nil, &at, nil
		}
		card := next.Card
		show := !card.Suspended
		if show && row.Mode != modeCram {
			// A card buried (bury_cards, or as a sibling in another
			// session) is skipped; so is one whose sibling was studied
			// today, buried now until the next day.
			if card.BuriedUntil != nil && now.Before(*card.BuriedUntil) {
				show = false
			} else if card.NoteID != "" {
				if err := k.loadDeck(ctx, st, row); err != nil {
					return nil, nil, err
				}
				buried, err := buryIfSibling(ctx, st, s.Deps, row.UserID, card, k.deck.Settings, day, now)
				if err != nil {
					return nil, nil, err
				}
				show = !buried
			}
		}
		if show && !unlimited(row.Mode) {
			phase := limitPhase(card.State, day, now)
			if phase == contracts.PhaseNew || phase == contracts.PhaseReview {
				if limits == nil {
					if err := k.loadDeck(ctx, st, row); err != nil {
						return nil, nil, err
					}
					if k.left == nil { // else the caller counted them under the deck's lock
						l, err := dailyLeft(ctx, st, row.UserID, *k.tree, acct, day, now)
						if err != nil {
							return nil, nil, err
						}
						k.left = &l
					}
					limits = k.left
				}
				show = limits.room(card.DeckID, phase)
			}
		}
		if show {
			c := studyCard(card.Card)
			c.Position = item.Position
			k.card = &card.Card
			return &c, nil, nil
		}
		err = st.Sessions().CompleteItem(ctx, row.UserID, row.ID, item.Position, now)
		if err != nil && !contracts.IsKind(err, contracts.KindConflict) {
			return nil, nil, kernel.Fail(err)
		}
	}
}

// StudyPath is the web app's path of a study session's page, the one place
// that names it: the absolute link tools return and the pages' own links
// both come from here.
func StudyPath(sessionID string) string {
	return "/study/" + url.PathEscape(sessionID)
}

func (s *StudyService) studyURL(sessionID string) string {
	if s.Cfg.BaseURL == "" {
		return ""
	}
	return s.Cfg.BaseURL + StudyPath(sessionID)
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
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.StudySnapshot{}, err
	}
	var out contracts.StudySnapshot
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		now := s.Now()
		tree, err := loadTree(ctx, tx, uid, deckID)
		if err != nil {
			return err
		}
		out, err = s.snapshot(ctx, tx, uid, tree, now)
		return err
	})
	return out, err
}

// snapshot reports what a normal session of deck started now would
// serve (dayQueue, the session's own function: buried cards and the
// siblings the deck's options bury are left out, the daily limits
// applied): dueNow counts its learning and review cards due by now,
// overdue those due before today, newToday its new cards; the preview is
// its first cards, the learning steps due now first, as a session shows
// them. For a filtered deck it reports what that deck's session serves
// (filteredSnapshot).
func (s *StudyService) snapshot(ctx context.Context, tx ports.Stores, uid string, tree deckTree, now time.Time) (contracts.StudySnapshot, error) {
	deck := tree.root()
	out := contracts.StudySnapshot{DeckID: deck.ID, Preview: []contracts.StudyCard{}}
	acct, day, err := kernel.AccountSettings(ctx, tx, uid)
	if err != nil {
		return out, err
	}
	startOfToday := day.Start(now)
	// A filtered deck's session serves every card it holds, outside the
	// daily limits; the snapshot says what that session serves.
	switch filtered, err := s.filteredSnapshot(ctx, tx, uid, deck, startOfToday, now, &out); {
	case err != nil:
		return out, err
	case filtered:
		return out, s.snapshotTotals(ctx, tx, uid, tree, now, &out)
	}
	q, err := dayQueue(ctx, tx, uid, tree, acct, day, contracts.StartStudySessionArgs{}, now, "snapshot")
	if err != nil {
		return out, err
	}
	var dueNow, later []ports.CardRow // learning steps due by now, and after
	for _, c := range q.learning {
		if c.State.Due.After(now) {
			later = append(later, c)
		} else {
			dueNow = append(dueNow, c)
		}
	}
	for _, c := range append(slices.Clone(q.learning), q.review...) {
		if !c.State.Due.After(now) {
			out.DueNow++
		}
		if c.State.Due.Before(startOfToday) {
			out.Overdue++
		}
	}
	out.NewToday = len(q.fresh)
	// What the pages call due today: every learning and review card the
	// session serves, those due later today included (issue 31 §3).
	out.DueToday = len(q.learning) + len(q.review)
	if err := s.snapshotTotals(ctx, tx, uid, tree, now, &out); err != nil {
		return out, err
	}
	// A session shows the learning steps due now, then its queue in
	// order, then the steps due later.
	order := append(dueNow, mixNew(q.review, q.fresh, deck.Settings.StudyOptions.WithDefaults().NewMix)...)
	order = append(order, later...)
	for i, c := range order[:min(len(order), previewSize)] {
		sc := studyCard(c.Card)
		sc.Back = ""
		sc.Position = i // where a session started now would show it
		out.Preview = append(out.Preview, sc)
	}
	return out, nil
}

// snapshotTotals fills in out's new cards available and next due over
// the tree.
func (s *StudyService) snapshotTotals(ctx context.Context, tx ports.Stores, uid string, tree deckTree, now time.Time, out *contracts.StudySnapshot) error {
	cards := tx.Cards()
	phases, err := cards.CountPhasesIn(ctx, uid, tree.ids())
	if err != nil {
		return kernel.Fail(err)
	}
	out.NewAvailable = phases.New
	// The next due is when the earliest card can be studied, due now or
	// later: a buried card counts from the end of its burial.
	switch next, ok, err := cards.NextDueAtIn(ctx, uid, tree.ids(), now); {
	case err != nil:
		return kernel.Fail(err)
	case ok:
		out.NextDue = &next
	}
	return nil
}

// formatInterval renders a duration for people: "now", "10m", "3h", "3d",
// "1.5y".
func formatInterval(d time.Duration) string {
	switch {
	case d < 30*time.Second:
		return "now"
	case d < time.Hour-30*time.Second:
		return fmt.Sprintf("%dm", max(1, int(d.Round(time.Minute)/time.Minute)))
	case d < kernel.Day-30*time.Minute:
		return fmt.Sprintf("%dh", int(d.Round(time.Hour)/time.Hour))
	case d < 365*kernel.Day:
		return fmt.Sprintf("%dd", max(1, int((d+kernel.Day/2)/kernel.Day)))
	}
	y := float64(d) / float64(365*kernel.Day)
	s := fmt.Sprintf("%.1f", y)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s + "y"
}
