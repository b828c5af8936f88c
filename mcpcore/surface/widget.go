package surface

import (
	"context"
	_ "embed"
	"net/url"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore"
)

// widgetHTML is the study widget: one self-contained HTML document (script
// and styles inline) built from widget/ by `make widget` and committed;
// `make check-widget` fails when a rebuild gives other bytes.
//
//go:embed widget.html
var widgetHTML string

// widget is the MCP Apps study widget resource (ui://), readable with
// study:render. Hosts render it in their own sandbox; its CSP travels in
// _meta.ui.csp and allows nothing but this service's origin. The widget
// talks only to its host (postMessage), never to the server.
func (s *Tools) widget() mcpcore.Resource {
	meta := map[string]any{"ui": map[string]any{"csp": s.csp(), "prefersBorder": true}}
	return mcpcore.Resource{
		URI:         contracts.StudyWidgetURI,
		Name:        "study-session",
		Title:       "Study session",
		Description: "Interactive flashcard study widget for a Takhtabush study session.",
		MIMEType:    contracts.StudyWidgetMIMEType,
		Meta:        meta,
		Scopes:      []string{string(contracts.ScopeStudyRender)},
		Read: func(ctx context.Context, req *mcpcore.ReadRequest) ([]mcpcore.ResourceContents, error) {
			return []mcpcore.ResourceContents{{
				URI: contracts.StudyWidgetURI, MIMEType: contracts.StudyWidgetMIMEType, Text: widgetHTML, Meta: meta,
			}}, nil
		},
	}
}

func (s *Tools) csp() map[string]any {
	domains := []string{}
	if u, err := url.Parse(s.cfg.BaseURL); err == nil && u.Scheme != "" && u.Host != "" {
		domains = append(domains, u.Scheme+"://"+u.Host)
	}
	return map[string]any{"resourceDomains": domains, "connectDomains": []string{}}
}
