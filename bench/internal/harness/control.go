package harness

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/takhtabush/takhtabush/bench/internal/servers"
)

// Control paths a child serves next to the MCP handler; they never reach it.
const (
	// SetupPath answers GET with the instance's per-scenario setup
	// (servers.Instance.Setup) as JSON.
	SetupPath = "/__setup"
	// VerifyPath answers POST {"calls":{scenario:n}} with the result of
	// servers.Instance.Verify.
	VerifyPath = "/__verify"
)

// verifyRequest is the body of a VerifyPath request.
type verifyRequest struct {
	Calls map[string]int `json:"calls"`
}

// verifyResponse is the answer of VerifyPath: a summary, or why the
// verification failed.
type verifyResponse struct {
	Summary string `json:"summary,omitempty"`
	Error   string `json:"error,omitempty"`
}

// withControl routes StatsPath, SetupPath and VerifyPath to the harness's
// endpoints and everything else to the instance's handler.
func withControl(in *servers.Instance) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case StatsPath:
			writeJSON(w, readStats(in.Statements, in.DBCPU))
		case SetupPath:
			writeJSON(w, in.Setup)
		case VerifyPath:
			writeJSON(w, runVerify(r, in))
		default:
			in.Handler.ServeHTTP(w, r)
		}
	})
}

// runVerify runs the instance's verification for the posted call counts.
func runVerify(r *http.Request, in *servers.Instance) verifyResponse {
	var req verifyRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		return verifyResponse{Error: fmt.Sprintf("reading the call counts: %v", err)}
	}
	if in.Verify == nil {
		return verifyResponse{Error: "this server has nothing to verify"}
	}
	sum, err := in.Verify(r.Context(), req.Calls)
	if err != nil {
		return verifyResponse{Error: err.Error()}
	}
	return verifyResponse{Summary: sum}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
