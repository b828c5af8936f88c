package surface_test

import (
	"encoding/json"
	"testing"

	"go.uber.org/mock/gomock"

	"github.com/takhtabush/takhtabush/contracts"
)

// Integers written 10.0 or 1e1 are integers to JSON Schema, so the call
// reaches the service with the integer, not an error with Go type text.
func TestIntegersWithFractionOrExponent(t *testing.T) {
	for _, lit := range []string{"10.0", "1e1", "1.0E+1"} {
		f := newFixture(t)
		f.exposure(contracts.ExposureSettings{})
		f.svc.EXPECT().ListDecks(gomock.Any(), contracts.ListDecksArgs{Limit: 10}).Return(contracts.DeckPage{}, nil)
		res, rerr := f.call(as(contracts.AllScopes...), contracts.ToolListDecks, json.RawMessage(`{"limit":`+lit+`}`))
		if rerr != nil || res.IsError {
			t.Errorf("limit %s: %+v %+v", lit, rerr, res)
		}
	}
}
