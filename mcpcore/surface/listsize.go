package surface

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// The tools/list budgets (issue 25 §1.3), in bytes of the served response
// of either era: what a host puts in its model's context before the user
// says a word. TestToolsListBudget enforces them on every later change.
const (
	DefaultListBudget = 12 << 10 // the lean default (contracts.LeanToolsets)
	AllListBudget     = 32 << 10 // every tool
)

// ListedBytes serves one tools/list through srv's HTTP handler, without a
// principal, and returns the size of the response body. sets is what an
// X-MCP-Toolsets header would say ("" for the default); modern picks the
// 2026-07-28 era, else 2025-11-25.
func ListedBytes(srv *mcpcore.Server, modern bool, sets string, readOnly bool) (int, error) {
	h := mcpcore.NewHTTPHandler(srv, mcpcore.HTTPOptions{})
	body, version := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, "2025-11-25"
	if modern {
		body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` +
			mcpcore.VersionModern + `","io.modelcontextprotocol/clientCapabilities":{}}}}`
		version = mcpcore.VersionModern
	}
	req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	if modern {
		req.Header.Set("Mcp-Method", "tools/list")
	}
	if sets != "" {
		req.Header.Set(mcpcore.HeaderToolsets, sets)
	}
	if readOnly {
		req.Header.Set(mcpcore.HeaderReadonly, "true")
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	var rpc struct {
		Error json.RawMessage `json:"error"`
	}
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &rpc) != nil || rpc.Error != nil {
		return 0, fmt.Errorf("tools/list: %d %s", w.Code, w.Body.String())
	}
	return w.Body.Len(), nil
}

// ListSizes are the served tools/list sizes of the two eras for one choice.
type ListSizes struct {
	Choice         string // "default", "all", a set's name
	Legacy, Modern int
}

// MeasureLists measures, on a surface built without services (no
// principal: the lean default), the default, every tool, and each set.
func MeasureLists() ([]ListSizes, error) {
	srv, err := NewServer(nil, Config{BaseURL: "https://takhtabush.example", Version: "v1.0.0"})
	if err != nil {
		return nil, err
	}
	choices := []string{"", contracts.ToolsetsAll}
	for _, t := range contracts.Toolsets() {
		choices = append(choices, t.Name)
	}
	var out []ListSizes
	for _, c := range choices {
		l, err := ListedBytes(srv, false, c, false)
		if err != nil {
			return nil, err
		}
		m, err := ListedBytes(srv, true, c, false)
		if err != nil {
			return nil, err
		}
		name := c
		if name == "" {
			name = "default"
		}
		out = append(out, ListSizes{Choice: name, Legacy: l, Modern: m})
	}
	return out, nil
}
