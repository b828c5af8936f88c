package study

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/ports"
)

// maxDurationMs bounds a review's recorded duration (one hour).
const maxDurationMs = 3_600_000

// SubmitReview rates a card pending in a session. In one transaction it
// completes the card's queue item (a concurrent review of the same item
// makes this call fail with conflict, so a review is never applied twice),
// computes the new schedule in the learner's day, stores it if the card
// did not change meanwhile, appends the review log, and re-queues the card
// when it is in a learning or relearning step due before the session
// expires (the queue shows it when it comes due). In a cram session the
// schedule stays as it is, the log is of kind cram, and a card rated again
// comes back at the end of the queue.
//
// A call naming the card's position rates exactly that showing: retried,
// it fails with conflict instead of rating the card's re-queued learning
// step. Without a position, a request is stale, and fails with conflict,
// when the card was reviewed at or after the moment the request arrived.
func (s *StudyService) SubmitReview(ctx context.Context, args contracts.SubmitReviewArgs) (contracts.ReviewResult, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.ReviewResult{}, err
	}
	if !slices.Contains(contracts.Ratings, args.Rating) {
		return contracts.ReviewResult{}, contracts.Errorf(contracts.KindInvalid, "rating must be one of again, hard, good, easy; got %q", args.Rating)
	}
	if args.DurationMs < 0 || args.DurationMs > maxDurationMs {
		return contracts.ReviewResult{}, contracts.Errorf(contracts.KindInvalid, "durationMs must be 0-%d, got %d", maxDurationMs, args.DurationMs)
	}
	return s.submit(ctx, uid, args, nil)
}

// submit runs a checked review in its transaction: at the time it arrives,
// or at a queued review's time (at, see SubmitQueuedReview).
func (s *StudyService) submit(ctx context.Context, uid string, args contracts.SubmitReviewArgs, at *time.Time) (contracts.ReviewResult, error) {
	asked := s.Now()
	if at != nil {
		asked = *at
	}
	var out contracts.ReviewResult
	err := s.Store.InTx(ctx, func(tx ports.Stores) error {
		var err error
		now := s.Now()
		if at != nil {
			now = *at
		}
		out, err = s.review(ctx, tx, uid, args, asked, now, at != nil)
		return err
	})
	return out, err
}

// review rates the card at now (asked: when the request arrived); queued
// marks a review given earlier and sent later (SubmitQueuedReview), checked
// against the session's start and the card's later reviews.
func (s *StudyService) review(ctx context.Context, tx ports.Stores, uid string, args contracts.SubmitReviewArgs, asked, now time.Time, queued bool) (contracts.ReviewResult, error) {
	sessions := tx.Sessions()
	// One read: the session, the card's pending item, the card, its deck
	// and the account's settings.
	t, err := reviewTarget(ctx, sessions, uid, args)
	if err != nil && !contracts.IsKind(err, contracts.KindNotFound) {
		return contracts.ReviewResult{}, kernel.Fail(err)
	}
	sess, item := t.Session, t.Item
	switch {
	case err == nil && !s.Now().Before(sess.ExpiresAt):
		return contracts.ReviewResult{}, sessionGone()
	case err == nil && queued && now.Before(sess.StartedAt):
		return contracts.ReviewResult{}, contracts.Errorf(contracts.KindInvalid, "the rating's time is before its study session started; it is not applied")
	case err != nil:
		// Not pending: say why, from the session.
		if sess, err = s.liveSession(ctx, tx, uid, args.SessionID); err != nil {
			return contracts.ReviewResult{}, err
		}
		if args.Position != nil {
			// The named showing may have been rated already: the same
			// rating again is a retry, answered with the first answer.
			if res, ok, rerr := s.replay(ctx, tx, uid, sess, args); rerr != nil || ok {
				return res, rerr
			}
		}
		return contracts.ReviewResult{}, s.notWaiting(ctx, tx, sess, args.CardID)
	case args.Position != nil && *args.Position != item.Position:
		if res, ok, rerr := s.replay(ctx, tx, uid, sess, args); rerr != nil || ok {
			return res, rerr
		}
		// The named showing of the card was rated already (a retried
		// call); its next showing is a later position.
		return contracts.ReviewResult{}, contracts.Errorf(contracts.KindConflict,
			"card %s at position %d was already rated; it is waiting again at position %d", args.CardID, *args.Position, item.Position)
	}
	switch err := sessions.CompleteItem(ctx, uid, sess.ID, item.Position, now); {
	case contracts.IsKind(err, contracts.KindConflict), contracts.IsKind(err, contracts.KindNotFound):
		return contracts.ReviewResult{}, contracts.Errorf(contracts.KindConflict, "card %s was just reviewed by another request in this session; get the session for the current card", args.CardID)
	case err != nil:
		return contracts.ReviewResult{}, kernel.Fail(err)
	}
	card := t.Card
	if lr := card.State.LastReview; queued && lr != nil && !lr.Before(asked) {
		return contracts.ReviewResult{}, contracts.Errorf(contracts.KindConflict, "the card was reviewed again after this rating was given (in another session or by an agent); the rating is not applied")
	}
	if lr := card.State.LastReview; lr != nil && !lr.Before(asked) {
		return contracts.ReviewResult{}, contracts.Errorf(contracts.KindConflict, "card %s was just reviewed by another request; get the session for the current card", card.ID)
	}
	deck, acct := t.Deck, t.Settings
	if !t.SettingsFound {
		acct = contracts.DefaultAccountSettings()
	}
	day := contracts.NewLearnerDay(acct)
	if err := s.ChargeWrites(ctx, tx, uid, &day, 1, 0); err != nil { // the daily quota, before the write
		return contracts.ReviewResult{}, err
	}
	if deck, err = homeDeck(ctx, tx, uid, sess, card, deck); err != nil {
		return contracts.ReviewResult{}, err
	}
	cram := sess.Mode == modeCram
	// The session's deck with the decks below it: read when there are
	// some (their limits count), else the card's deck alone.
	tree := newTree(deck, nil)
	if t.SessionTree && !unlimited(sess.Mode) {
		if tree, err = loadTree(ctx, tx, uid, sess.DeckID); err != nil {
			return contracts.ReviewResult{}, err
		}
	}
	var counted *studied // today's reviews of the tree, counted under its decks' locks
	// The limit the rating counts against: a learning step carried over
	// from an earlier day counts against the review limit, as sessions
	// count it (limitPhase); a step set today against none.
	limit := limitPhase(card.State, day, now)
	if !cram && sess.Mode != modeFiltered && (limit == contracts.PhaseNew || limit == contracts.PhaseReview) {
		c, err := s.checkDailyLimits(ctx, tx, uid, tree, card.DeckID, acct, day, card.State, now)
		if err != nil {
			return contracts.ReviewResult{}, err
		}
		counted = &c
	}
	next := card.State // a cram rating changes no schedule
	kind := ports.ReviewKindCram
	if !cram {
		kind = ports.ReviewKindReview
		if next, err = reviewBalanced(ctx, tx, s.Sched, uid, card.Card, deck, day, now, args.Rating); err != nil {
			return contracts.ReviewResult{}, err
		}
		switch err := tx.Cards().UpdateState(ctx, uid, card.ID, card.Version, next, now); {
		case contracts.IsKind(err, contracts.KindConflict):
			return contracts.ReviewResult{}, contracts.Errorf(contracts.KindConflict, "card %s was changed by another request while it was being reviewed; submit the review again", card.ID)
		case err != nil:
			return contracts.ReviewResult{}, kernel.Fail(err)
		}
	}
	// The card's version after the review's own step: a leech marking's
	// steps after it are its change records'.
	version := card.Version
	if !cram {
		version++
	}
	leech, suspended := false, card.Suspended
	var marked kernel.Changes // what a leech marking changed
	if !cram && next.Lapses > card.State.Lapses {
		opts := deck.Settings.StudyOptions.WithDefaults()
		if leech = contracts.IsLeech(next.Lapses, opts.LeechThreshold); leech {
			suspend := opts.LeechAction == contracts.LeechActionSuspend
			if err := markLeech(ctx, tx, uid, card.ID, card.NoteID, suspend, now, &marked); err != nil {
				return contracts.ReviewResult{}, err
			}
			suspended = suspended || suspend
		}
	}
	log := ports.ReviewLog{
		ID: s.IDs.NewID(), UserID: uid, CardID: card.ID, DeckID: cmp.Or(card.HomeDeckID, card.DeckID), SessionID: sess.ID,
		Rating: args.Rating, PrevPhase: card.State.Phase, State: next, ReviewedAt: now, DurationMs: args.DurationMs,
		Kind: kind, Day: kernel.DayNumber(day, now), PrevInterval: card.State.ScheduledDays, PrevState: &card.State,
	}
	// The call's operation, so undo_changes can take the review back (in
	// the same INSERT: a review writes no change record of its own).
	op, undoable := contracts.OperationIDFrom(ctx)
	if undoable {
		log.OperationID, log.CardVersion = op, version
		if p, err := kernel.Actor(ctx); err == nil {
			log.CredentialID = p.CredentialID
		}
	}
	if err := tx.Reviews().AppendReview(ctx, log); err != nil {
		return contracts.ReviewResult{}, kernel.Fail(err)
	}
	// A leech marking's records, under the same operation, so undoing it
	// takes back the marking with the review (one statement, only when a
	// review made a leech). Their ids are minted now, after the log's, so
	// an undo (newest first) puts the marking back before the schedule,
	// as the versions go.
	if undoable {
		if err := marked.Write(ctx, tx, s.Deps); err != nil {
			return contracts.ReviewResult{}, err
		}
	}
	// A learning or relearning step comes back in this session when its
	// time comes (the queue shows it as soon as it is due); in cram, a
	// forgotten card comes back at the end.
	learning := next.Phase == contracts.PhaseLearning || next.Phase == contracts.PhaseRelearning
	requeue := (!cram && learning && next.Due.Before(sess.ExpiresAt)) || (cram && args.Rating == contracts.RatingAgain)
	if requeue && !suspended {
		if err := sessions.AppendItem(ctx, uid, sess.ID, card.ID); err != nil {
			return contracts.ReviewResult{}, kernel.Fail(err)
		}
	}
	k := &known{acct: &acct, day: day, deck: &deck}
	root := tree.root()
	k.deck, k.tree = &root, &tree
	if counted != nil {
		// What the limits leave now is what they left plus this review:
		// the decks stay locked, so they need not be counted again.
		l := counted.after(card.DeckID, limit).left(tree, acct)
		k.left = &l
	}
	view, err := s.view(ctx, tx, sess, k)
	if err != nil {
		return contracts.ReviewResult{}, err
	}
	return contracts.ReviewResult{
		SessionID: sess.ID, CardID: card.ID, Rating: args.Rating, State: next, NextDue: next.Due,
		IntervalHuman: HumanInterval(next, now), Reviewed: view.Reviewed, Remaining: view.Remaining,
		Done: view.Done, Next: view.Current, NextCardAt: view.NextCardAt, Leech: leech,
	}, nil
}

// checkDailyLimits refuses rating a card of deckID in state st, in a
// session of the tree's deck, whose rating counts against the new-card or
// the review limit (limitPhase: a learning step carried over from an
// earlier day counts as a review) when today's limits leave none (its own
// deck's, those of the decks up to the studied one, the account's), and
// otherwise returns today's counts. The limits hold across sessions: two
// sessions may each have shown a card when one was left, so they are
// checked again here, one review of a deck at a time: the studied deck's
// lock, then each deck's from below it down to the card's (always from
// the top down, so two reviews never wait on each other's locks) and,
// when the account has a daily cap, one review of the account at a time
// (its settings' lock, taken after the decks', as every review takes
// them).
func (s *StudyService) checkDailyLimits(ctx context.Context, tx ports.Stores, uid string, tree deckTree, deckID string,
	acct contracts.AccountSettings, day contracts.LearnerDay, st contracts.CardState, now time.Time) (studied, error) {
	path := []string{deckID}
	for d := deckID; tree.up[d] != ""; d = tree.up[d] {
		path = append(path, tree.up[d])
	}
	if path[len(path)-1] != tree.root().ID {
		path = append(path, tree.root().ID)
	}
	for i := len(path) - 1; i >= 0; i-- {
		if err := tx.Decks().LockDeck(ctx, uid, path[i]); err != nil {
			return studied{}, kernel.Fail(err)
		}
	}
	if accountCapped(acct) {
		if err := tx.Settings().LockDailyCaps(ctx, uid); err != nil {
			return studied{}, kernel.Fail(err)
		}
	}
	c, err := studiedToday(ctx, tx, uid, tree, acct, day, now)
	if err != nil {
		return studied{}, err
	}
	l := c.left(tree, acct)
	phase := limitPhase(st, day, now)
	if l.room(deckID, phase) {
		return c, nil
	}
	kind, why := "review", "another session studied them"
	switch {
	case st.Phase == contracts.PhaseNew:
		kind = "new"
	case st.Phase != contracts.PhaseReview:
		why = "this learning step, set on an earlier day, counts as a review; another session used the limit"
	}
	name := l.blocking(tree, deckID, phase)
	if name == "" {
		return studied{}, contracts.Errorf(contracts.KindConflict,
			"today's account-wide limit of %s cards was reached (%s); nothing was recorded; come back tomorrow or raise the limit with update_settings", kind, why)
	}
	if !tree.nested() {
		return studied{}, contracts.Errorf(contracts.KindConflict,
			"today's limit of %s cards for this deck was reached (%s); nothing was recorded; come back tomorrow or raise the deck's limit", kind, why)
	}
	return studied{}, contracts.Errorf(contracts.KindConflict,
		"today's limit of %s cards for the deck %q was reached (%s); nothing was recorded; come back tomorrow or raise the deck's limit", kind, name, why)
}

// reviewTarget reads what rating args.CardID in args.SessionID needs, in
// one query; not found when either id is implausible or the card is not
// pending in the user's session.
func reviewTarget(ctx context.Context, sessions ports.StudySessionStore, uid string, args contracts.SubmitReviewArgs) (ports.ReviewTarget, error) {
	if !kernel.PlausibleID(args.SessionID) || !kernel.PlausibleID(args.CardID) {
		return ports.ReviewTarget{}, contracts.Errorf(contracts.KindNotFound, "no such card")
	}
	return sessions.ReviewTarget(ctx, uid, args.SessionID, args.CardID)
}

func pendingItem(ctx context.Context, sessions ports.StudySessionStore, uid, sessionID, cardID string) (ports.SessionItem, error) {
	if !kernel.PlausibleID(cardID) {
		return ports.SessionItem{}, contracts.Errorf(contracts.KindNotFound, "no such card")
	}
	return sessions.PendingItem(ctx, uid, sessionID, cardID)
}

// notWaiting is the conflict for a card without a pending item, naming the
// card that is.
func (s *StudyService) notWaiting(ctx context.Context, tx ports.Stores, sess ports.StudySessionRow, cardID string) error {
	cur, _, err := s.current(ctx, tx, sess, nil)
	if err != nil {
		return err
	}
	if cur == nil {
		return contracts.Errorf(contracts.KindConflict, "card %s is not waiting in this session; the session is finished", kernel.QuoteID(cardID))
	}
	return contracts.Errorf(contracts.KindConflict, "card %s is not waiting in this session; the current card is %s", kernel.QuoteID(cardID), cur.CardID)
}

// humanInterval renders the wait until a card's next showing: the interval
// in days for a review-phase card (it is due from the start of that day),
// the time until the step for a learning one.
func HumanInterval(st contracts.CardState, now time.Time) string {
	if st.Phase == contracts.PhaseReview && st.ScheduledDays > 0 {
		return formatInterval(time.Duration(st.ScheduledDays) * kernel.Day)
	}
	return formatInterval(st.Due.Sub(now))
}

// replay answers a repeated rating of an already rated showing (the
// session's item at args.Position): the same card and rating get the
// first review's answer, marked replayed, and change nothing; a different
// rating is a conflict. ok is false when the position was not rated.
func (s *StudyService) replay(ctx context.Context, tx ports.Stores, uid string, sess ports.StudySessionRow, args contracts.SubmitReviewArgs) (contracts.ReviewResult, bool, error) {
	log, err := tx.Sessions().ItemReview(ctx, uid, sess.ID, *args.Position)
	switch {
	case contracts.IsKind(err, contracts.KindNotFound):
		return contracts.ReviewResult{}, false, nil
	case err != nil:
		return contracts.ReviewResult{}, false, kernel.Fail(err)
	case log.CardID != args.CardID:
		return contracts.ReviewResult{}, true, contracts.Errorf(contracts.KindConflict,
			"position %d of the session shows card %s, not %s; get the session for the current card", *args.Position, log.CardID, args.CardID)
	case log.Rating != args.Rating:
		return contracts.ReviewResult{}, true, contracts.Errorf(contracts.KindConflict,
			"card %s at position %d was already rated %s; a different rating for the same showing is not applied", args.CardID, *args.Position, log.Rating)
	}
	view, err := s.view(ctx, tx, sess, nil)
	if err != nil {
		return contracts.ReviewResult{}, true, err
	}
	return contracts.ReviewResult{
		SessionID: sess.ID, CardID: log.CardID, Rating: log.Rating, State: log.State, NextDue: log.State.Due,
		IntervalHuman: HumanInterval(log.State, log.ReviewedAt), Reviewed: view.Reviewed, Remaining: view.Remaining,
		Done: view.Done, Next: view.Current, NextCardAt: view.NextCardAt, Replayed: true,
	}, true, nil
}
