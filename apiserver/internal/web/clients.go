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
	Text   string // the configuration or command, and nothing else: it is what a copy button copies
	Note   string // prose that goes with it, if any
}

// StdioDBPlaceholder stands for the database URL in the local (stdio)
// configuration: the same --db as serve, as an absolute path.
const StdioDBPlaceholder = "sqlite:/absolute/path/to/data/takhtabush.db"

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
			Client: "Claude Desktop, local (stdio)",
			Where:  "claude_desktop_config.json, on the machine that holds the database",
			Text: indentJSON(map[string]any{"mcpServers": map[string]any{"takhtabush": struct {
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Env     map[string]string `json:"env"`
			}{"takhtabush", []string{"stdio", "--db", StdioDBPlaceholder}, map[string]string{"TAKHTABUSH_API_KEY": key}}}}),
			Note: "Claude Desktop starts takhtabush itself (make build puts it in ./bin; use its absolute path if it is not on PATH) " +
				"and talks to it over stdin and stdout, without HTTP. Give --db the database serve uses, as an absolute path.",
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
			Where:  "Settings → Connectors → Add custom connector, Remote MCP server URL",
			Text:   mcpURL,
			Note: "No key: Claude signs in with OAuth. It opens a Takhtabush page where you sign in and " +
				"choose what it may do; disconnect it any time under Settings → Connected apps.",
		},
		{
			Client: "ChatGPT",
			Where:  "Settings → Apps & Connectors → Create (developer mode), connector URL, authentication OAuth",
			Text:   mcpURL,
			Note: "No key: ChatGPT signs in with OAuth. It registers itself, then sends you to a Takhtabush page " +
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
