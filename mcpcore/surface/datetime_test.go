package surface_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.uber.org/mock/gomock"

	"github.com/takhtabush/takhtabush/contracts"
)

// dueBefore takes a date or a date-time; anything else gets a message that
// names both forms and never a Go time layout or type name.
func TestDueBeforeTakesADateOrADateTime(t *testing.T) {
	for _, v := range []string{"2026-12-01", "2026-12-01T09:00:00Z", "2026-12-01T09:00:00.5+02:00"} {
		f := newFixture(t)
		f.exposure(contracts.ExposureSettings{})
		want, err := contracts.ParseDateOrTime(v)
		if err != nil {
			t.Fatal(err)
		}
		f.svc.EXPECT().SearchCards(gomock.Any(), contracts.SearchCardsArgs{DueBefore: &want}).Return(contracts.CardPage{}, nil)
		res, rerr := f.call(as(contracts.AllScopes...), contracts.ToolSearchCards, json.RawMessage(`{"dueBefore":"`+v+`"}`))
		if rerr != nil || res.IsError {
			t.Errorf("dueBefore %s: %+v %+v", v, rerr, res)
		}
	}
	for _, v := range []string{"tomorrow", "2026-12-01 09:00", "2026-13-45", "12/01/2026"} {
		f := newFixture(t)
		f.exposure(contracts.ExposureSettings{})
		res, rerr := f.call(as(contracts.AllScopes...), contracts.ToolSearchCards, json.RawMessage(`{"dueBefore":"`+v+`"}`))
		if rerr == nil && !res.IsError {
			t.Errorf("dueBefore %q was accepted", v)
			continue
		}
		text := ""
		if rerr != nil {
			text = rerr.Message + string(rerr.Data)
		} else {
			for _, c := range res.Content {
				text += c.Text
			}
		}
		if !strings.Contains(text, "YYYY-MM-DD") {
			t.Errorf("dueBefore %q: the message does not say what is accepted: %s", v, text)
		}
		if strings.Contains(text, "2006") || strings.Contains(text, "time.Time") || strings.Contains(text, "contracts.") {
			t.Errorf("dueBefore %q: the message shows Go internals: %s", v, text)
		}
	}
}
