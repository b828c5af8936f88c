package domain

import (
	"context"
	"fmt"

	"github.com/takhtabush/takhtabush/contracts"
)

// RenderSession is render_study_session's rule, the one place it lives:
// given exactly one of a session id (an existing session, read without
// change) and a deck id (a session is started there, as StartSession
// does), it returns the session with its absolute study link, its current
// card rendered for the MCP Apps study widget by the content renderer the
// web app uses, each rating's next interval, and the sentence the tool's
// text leads with. Invalid unless exactly one id is given; otherwise the
// errors of GetSession or StartSession. A rating preview that fails (the
// card was rated elsewhere meanwhile) leaves the intervals out.
func (s *StudyService) RenderSession(ctx context.Context, args contracts.RenderStudySessionArgs) (contracts.StudyView, error) {
	var (
		sess contracts.StudySession
		err  error
	)
	switch {
	case args.SessionID != "" && args.DeckID != "":
		return contracts.StudyView{}, contracts.Errorf(contracts.KindInvalid, "pass either sessionId or deckId, not both")
	case args.SessionID != "":
		sess, err = s.GetSession(ctx, args.SessionID)
	case args.DeckID != "":
		sess, err = s.StartSession(ctx, contracts.StartStudySessionArgs{DeckID: args.DeckID})
	default:
		return contracts.StudyView{}, contracts.Errorf(contracts.KindInvalid, "pass sessionId (an existing session) or deckId (to start one)")
	}
	if err != nil {
		return contracts.StudyView{}, err
	}
	v := contracts.StudyView{StudySession: sess, Lead: studyLead(sess)}
	if c := sess.Current; c != nil {
		v.FrontHTML = s.content.Render(c.Front, s.widgetMedia).HTML
		v.BackHTML = s.content.Render(c.Back, s.widgetMedia).HTML
		if prev, err := s.PreviewRatings(ctx, sess.ID, c.CardID); err == nil && len(prev) > 0 {
			v.Ratings = prev
		}
	}
	return v, nil
}

// widgetMedia resolves a media id for the study widget, which runs in a
// host's sandboxed frame with no cookie: nothing yet, so a card's media
// show as missing there (signed media URLs are the media work of issue 9).
func (s *StudyService) widgetMedia(string) string { return "" }

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
