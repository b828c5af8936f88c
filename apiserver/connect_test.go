package apiserver_test

import (
	"net/http"
	"strings"
	"testing"
)

// A signed-in visitor of /connect sees their own email in the examples.
func TestConnectPageShowsTheAccountEmail(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	cookies, _ := e.signIn(t, testUser)
	resp, body := e.request(t, http.MethodGet, "/connect", nil, nil, cookies...)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "--email "+testUser) {
		t.Fatalf("/connect signed in: %d, the example lacks --email %s:\n%s", resp.StatusCode, testUser, body)
	}
}
