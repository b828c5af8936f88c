package apiserver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/apiserver/internal/listing"
)

// TestServerJSONValidates: the registry's server.json validates against
// the 2025-12-11 schema kept in testdata, and a broken one does not (the
// check can fail).
func TestServerJSONValidates(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "registry", "server.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(listing.RegistrySchema, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(listing.RegistrySchema)
	if err != nil {
		t.Fatal(err)
	}
	b, err := listing.Service{BaseURL: "https://takhtabush.example", Version: "1.4.0"}.ServerJSON()
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Fatalf("server.json does not validate: %v\n%s", err, b)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	if m["$schema"] != listing.RegistrySchema || m["name"] != "example.takhtabush/takhtabush" {
		t.Fatalf("server.json: %s", b)
	}
	remotes, _ := m["remotes"].([]any)
	if len(remotes) != 1 || remotes[0].(map[string]any)["url"] != "https://takhtabush.example/mcp" || remotes[0].(map[string]any)["type"] != "streamable-http" {
		t.Fatalf("remotes: %v", remotes)
	}
	m["description"] = strings.Repeat("x", 101) // the registry's limit is 100
	bad, _ := json.Marshal(m)
	v, _ = jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if sch.Validate(v) == nil {
		t.Fatal("a 101-character description validates: the schema check cannot fail")
	}
}

// TestListingPages: the Server Card, icon, privacy notice and terms answer
// without a credential; an operator's files replace the legal text.
func TestListingPages(t *testing.T) {
	own := filepath.Join(t.TempDir(), "privacy.html")
	if err := os.WriteFile(own, []byte("<h1>Our own privacy words</h1>"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, sqliteURL(t), func(c *apiserver.Config) { c.PrivacyFile = own })
	for _, path := range []string{listing.CardPath, listing.WellKnownCardPath} {
		resp, body := e.request(t, http.MethodGet, path, nil, nil)
		var card map[string]any
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || json.Unmarshal(body, &card) != nil {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, body)
		}
		if resp.Header.Get("Access-Control-Allow-Origin") != "*" || card["$schema"] != listing.CardSchema || card["name"] == "" {
			t.Errorf("%s: %v %s", path, resp.Header, body)
		}
		remotes, _ := card["remotes"].([]any)
		if len(remotes) != 1 || remotes[0].(map[string]any)["url"] != e.base+"/mcp" {
			t.Errorf("%s: remotes %v", path, remotes)
		}
		if tools, _ := card["tools"].([]any); len(tools) != 1 || tools[0] != "dynamic" {
			t.Errorf("%s: tools %v", path, card["tools"])
		}
	}
	resp, body := e.request(t, http.MethodGet, listing.IconPath, nil, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" || !bytes.Contains(body, []byte("<svg")) {
		t.Errorf("icon: %d %v", resp.StatusCode, resp.Header)
	}
	resp, body = e.request(t, http.MethodGet, "/terms", nil, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Terms of use") || !strings.Contains(string(body), `href="/privacy"`) {
		t.Errorf("terms: %d %s", resp.StatusCode, body)
	}
	resp, body = e.request(t, http.MethodGet, "/privacy", nil, nil)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Our own privacy words") || strings.Contains(string(body), "What is stored") {
		t.Errorf("privacy with the operator's file: %d %s", resp.StatusCode, body)
	}

	// The built-in privacy notice says what is stored in plain words.
	e2 := newEnv(t, sqliteURL(t), nil)
	resp, body = e2.request(t, http.MethodGet, "/privacy", nil, nil)
	for _, want := range []string{"cards", "reviews", "audit row", "hashes", "conversations"} {
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Errorf("built-in privacy notice lacks %q: %d", want, resp.StatusCode)
		}
	}
	// A missing operator file fails at startup, not on a visitor's request.
	if _, err := apiserver.New(t.Context(), apiserver.Config{DatabaseURL: sqliteURL(t), Secret: "s", Addr: "127.0.0.1:0", TermsFile: "/nonexistent/terms.html"}); err == nil {
		t.Error("a missing --terms-file was accepted")
	}
}

// TestDirectoryCallbacksRegister: Claude (both callback hosts) and
// ChatGPT register themselves by dynamic client registration with their
// own redirect URIs.
func TestDirectoryCallbacksRegister(t *testing.T) {
	e := newEnv(t, sqliteURL(t), nil)
	for _, body := range []string{
		`{"client_name":"Claude","redirect_uris":["https://claude.ai/api/mcp/auth_callback","https://claude.com/api/mcp/auth_callback"],"token_endpoint_auth_method":"none"}`,
		`{"client_name":"ChatGPT","redirect_uris":["https://chatgpt.com/connector_platform_oauth_redirect"],"token_endpoint_auth_method":"none"}`,
	} {
		status, m := register(t, e, body)
		if status != http.StatusCreated || m["client_id"] == "" {
			t.Errorf("%s: %d %v", body, status, m)
		}
	}
}
