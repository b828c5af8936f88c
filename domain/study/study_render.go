package study

import (
	"context"
	"fmt"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/domain/internal/kernel"
	"github.com/takhtabush/takhtabush/domain/library"
	"github.com/takhtabush/takhtabush/ports"
)

// RenderSession is render_study_session's rule, the one place it lives:
// given exactly one of a session id (an existing session, read without
// change) and a deck id (a session is started there, as StartSession
// does), it returns the session with its absolute study link, its current
// card rendered for the MCP Apps study widget by the content renderer the
// web app uses, each rating's next interval, and the sentence the tool's
// text leads with. Invalid unless exactly one id is given; otherwise the
// errors of GetSession or StartSession.
func (s *StudyService) RenderSession(ctx context.Context, args contracts.RenderStudySessionArgs) (contracts.StudyView, error) {
	uid, err := kernel.UserID(ctx)
	if err != nil {
		return contracts.StudyView{}, err
	}
	switch {
	case args.SessionID != "" && args.DeckID != "":
		return contracts.StudyView{}, contracts.Errorf(contracts.KindInvalid, "pass either sessionId or deckId, not both")
	case args.SessionID == "" && args.DeckID == "":
		return contracts.StudyView{}, contracts.Errorf(contracts.KindInvalid, "pass sessionId (an existing session) or deckId (to start one)")
	}
	var v contracts.StudyView
	// One transaction, and what showing the session loaded (the card with
	// its state, the deck, the learner's day) serves the previews too.
	err = s.Store.InTx(ctx, func(tx ports.Stores) error {
		var (
			row ports.StudySessionRow
			k   = &known{}
			err error
		)
		if args.SessionID != "" {
			row, err = s.liveSession(ctx, tx, uid, args.SessionID)
		} else {
			row, k, err = s.start(ctx, tx, uid, contracts.StartStudySessionArgs{DeckID: args.DeckID})
		}
		if err != nil {
			return err
		}
		if v.StudySession, err = s.view(ctx, tx, row, k); err != nil {
			return err
		}
		c := v.Current
		if c == nil || k.card == nil {
			return nil
		}
		// The widget runs in a host's sandboxed frame with no cookie: its
		// media are short-lived signed URLs (the media origin is in the
		// widget resource's _meta.ui.csp.resourceDomains).
		r, err := library.RenderSigned(ctx, s.Deps, tx, uid, c.Front, c.Back)
		if err != nil {
			return err
		}
		v.FrontHTML, v.BackHTML = r.HTML[0], r.HTML[1]
		// The card's own note type's CSS, scoped as the web study view's
		// stylesheet is: the widget cannot fetch one (its frame has no
		// cookie), so it inserts this.
		if v.CardCSS, err = library.NoteTypeCSS(ctx, tx, uid, k.card.NoteID, "."+contracts.CardStyleClass); err != nil {
			return err
		}
		if row.Mode == modeCram {
			return nil // its ratings keep the schedule: nothing to preview
		}
		deck := k.deck
		if deck == nil || deck.ID != k.card.DeckID {
			d, err := library.LoadDeck(ctx, tx, uid, k.card.DeckID)
			if err != nil {
				return err
			}
			deck = &d
		}
		v.Ratings, err = s.previews(ctx, tx, uid, *k.card, *deck, k.day, s.Now())
		return err
	})
	if err != nil {
		return contracts.StudyView{}, err
	}
	v.Lead = studyLead(v.StudySession)
	return v, nil
}

// studyLead is the sentence render_study_session's text starts with.
func studyLead(sess contracts.StudySession) string {
	switch {
	case sess.StudyURL == "":
		return fmt.Sprintf("Study session %s: %d card(s) to go.", sess.ID, sess.Remaining)
	case sess.Done:
		return fmt.Sprintf("Study session %s is done (%d reviewed). Its page: %s", sess.ID, sess.Reviewed, sess.StudyURL)
	}
	return fmt.Sprintf("Study session %s: %d card(s) to go. Study it here: %s", sess.ID, sess.Remaining, sess.StudyURL)
}
