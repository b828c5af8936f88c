package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/takhtabush/takhtabush/apiserver"
	"github.com/takhtabush/takhtabush/apiserver/internal/web"
	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// bannerEnd is the banner's last line of text.
const bannerEnd = "Serving. Press Ctrl-C to stop."

// printDevBanner tells a developer how to connect: the web app with a
// one-time sign-in link for the owner (signIn, "" when none could be
// made), the MCP URL and the protocol versions it serves, the owner API
// key when one was just minted (once; later starts say how to mint
// another) and copy-paste client configurations.
func printDevBanner(w io.Writer, cfg apiserver.Config, owner apiserver.DevOwner, db, signIn string) {
	rule := strings.Repeat("─", 72)
	fmt.Fprintln(w, rule)
	fmt.Fprintln(w, "Takhtabush is running in development mode.")
	if cfg.DevMode() {
		fmt.Fprintf(w, "Requests without a credential act as %s (MCP_DEV_NO_AUTH=true).\n", owner.User.Email)
	}
	if owner.Created {
		fmt.Fprintf(w, "Created the owner account %s.\n", owner.User.Email)
	}
	fmt.Fprintf(w, "\n  Web app:     %s/\n", cfg.BaseURL)
	if signIn != "" {
		fmt.Fprintf(w, "  Sign in:     %s\n               (one use, 15 minutes; `takhtabush users login-link --email %s` makes another)\n", signIn, owner.User.Email)
	}
	fmt.Fprintf(w, "  MCP URL:     %s\n  Protocol:    MCP %s\n  Setup page:  %s/connect\n",
		cfg.MCPURL(), strings.Join(mcpcore.SupportedVersions(), ", "), cfg.BaseURL)
	key := owner.Key
	if key != "" {
		fmt.Fprintf(w, "  Owner API key (every scope; shown once, save it now):\n\n    %s\n", key)
	} else {
		key = web.KeyPlaceholder
		fmt.Fprintf(w, "\n  %s already has an API key (shown when it was created). Mint another with:\n\n"+
			"    go run ./apiserver/cmd/takhtabush keys create --db '%s' --email %s --scopes %s\n",
			owner.User.Email, db, owner.User.Email, contracts.JoinScopes(contracts.AllScopes, ","))
	}
	fmt.Fprintln(w, "\nClient configurations:")
	for _, c := range web.ClientConfigs(cfg.MCPURL(), key) {
		fmt.Fprintf(w, "\n── %s (%s)\n%s\n", c.Client, c.Where, c.Text)
		if c.Note != "" {
			fmt.Fprintln(w, c.Note)
		}
	}
	fmt.Fprintln(w, "\n"+bannerEnd)
	fmt.Fprintln(w, rule)
}
