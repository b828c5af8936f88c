package web

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/takhtabush/takhtabush/contracts"
)

// ProtectedResource serves the RFC 9728 protected-resource metadata of the
// /mcp resource. authorization_servers is left out until Takhtabush runs
// its own OAuth authorization server; API keys are the bearer tokens until
// then.
func ProtectedResource(baseURL string) http.HandlerFunc {
	doc, _ := json.Marshal(map[string]any{
		"resource":                 strings.TrimRight(baseURL, "/") + "/mcp",
		"resource_name":            "Takhtabush",
		"scopes_supported":         contracts.ScopeStrings(contracts.AllScopes),
		"bearer_methods_supported": []string{"header"},
	})
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_, _ = w.Write(doc)
	}
}
