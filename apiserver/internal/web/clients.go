package web

import (
	"encoding/json"
	"strings"
)

// KeyPlaceholder stands for the API key in configurations shown publicly.
const KeyPlaceholder = "YOUR_API_KEY"

// ClientConfig is a copy-paste configuration for one MCP client.
type ClientConfig struct {
	Client string // the client's name
	Where  string // where the text goes
	Text   string // the configuration or command
}

// ClientConfigs returns the configurations for the MCP clients people use,
// for the endpoint mcpURL and the API key key (KeyPlaceholder when unknown).
func ClientConfigs(mcpURL, key string) []ClientConfig {
	bearer := "Bearer " + key
	return []ClientConfig{
		{
			Client: "Claude Code",
			Where:  "run in a terminal",
			Text:   "claude mcp add --transport http takhtabush " + shellQuote(mcpURL) + " --header " + shellQuote("Authorization: "+bearer),
		},
		{
			Client: "Claude Desktop",
			Where:  "claude_desktop_config.json (Settings → Developer → Edit Config), bridged by mcp-remote",
			Text: indentJSON(map[string]any{"mcpServers": map[string]any{"takhtabush": struct {
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Env     map[string]string `json:"env"`
			}{"npx", []string{"-y", "mcp-remote", mcpURL, "--header", "Authorization:${TAKHTABUSH_AUTH}"}, map[string]string{"TAKHTABUSH_AUTH": bearer}}}}),
		},
		{
			Client: "Cursor",
			Where:  "~/.cursor/mcp.json",
			Text:   indentJSON(map[string]any{"mcpServers": map[string]any{"takhtabush": remoteServer{URL: mcpURL, Headers: map[string]string{"Authorization": bearer}}}}),
		},
		{
			Client: "VS Code",
			Where:  ".vscode/mcp.json",
			Text:   indentJSON(map[string]any{"servers": map[string]any{"takhtabush": remoteServer{Type: "http", URL: mcpURL, Headers: map[string]string{"Authorization": bearer}}}}),
		},
		{
			Client: "Claude (claude.ai and Claude Desktop connectors)",
			Where:  "Settings → Connectors → Add custom connector, Remote MCP server URL (no key)",
			Text: mcpURL + "\n\nNo key: Claude signs in with OAuth. It opens a Takhtabush page where you sign in and " +
				"choose what it may do; disconnect it any time under Settings → Connected apps.",
		},
		{
			Client: "ChatGPT",
			Where:  "Settings → Apps & Connectors → Create (developer mode), connector URL, authentication OAuth (no key)",
			Text: mcpURL + "\n\nNo key: ChatGPT signs in with OAuth. It registers itself, then sends you to a Takhtabush page " +
				"where you sign in and choose what it may do; disconnect it any time under Settings → Connected apps.",
		},
	}
}

func indentJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
	return strings.TrimRight(b.String(), "\n")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// remoteServer is a remote MCP server entry of Cursor's and VS Code's configurations.
type remoteServer struct {
	Type    string            `json:"type,omitempty"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}
