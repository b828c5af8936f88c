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

// widgetDescription tells a host's model what the widget shows, so it
// need not repeat it (ChatGPT's openai/widgetDescription).
const widgetDescription = "Shows one flashcard at a time: the front, then the answer and the four rating buttons. The user studies in the widget; summarise progress, do not repeat the cards."

// widget is the MCP Apps study widget resource (ui://), readable with
// study:render. Hosts render it in their own sandbox; its CSP travels in
// _meta.ui.csp (all four domain lists, empty where nothing is needed) and
// in ChatGPT's openai/widgetCSP, and allows nothing but this service's
// origin. The widget talks only to its host (postMessage), never to the
// server. ui.domain, a dedicated origin for the widget, is sent only when
// the operator set one (Config.WidgetDomain): each host computes its own
// format, so a guessed one would be wrong.
func (s *Tools) widget() mcpcore.Resource {
	csp := s.csp()
	ui := map[string]any{"csp": csp, "prefersBorder": true}
	if s.cfg.WidgetDomain != "" {
		ui["domain"] = s.cfg.WidgetDomain
	}
	meta := map[string]any{
		"ui":                         ui,
		"openai/widgetCSP":           map[string]any{"connect_domains": csp["connectDomains"], "resource_domains": csp["resourceDomains"]},
		"openai/widgetDescription":   widgetDescription,
		"openai/widgetPrefersBorder": true,
	}
	if origin := s.origin(); origin != "" {
		meta["openai/widgetDomain"] = origin
	}
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

// origin is the public origin (scheme://host[:port]), "" when unknown.
func (s *Tools) origin() string {
	if u, err := url.Parse(s.cfg.BaseURL); err == nil && u.Scheme != "" && u.Host != "" {
		return u.Scheme + "://" + u.Host
	}
	return ""
}

// csp is the widget's MCP Apps CSP: its own origin for resources (media),
// and nothing to connect to, frame, or use as a base URI.
func (s *Tools) csp() map[string]any {
	domains := []string{}
	if o := s.origin(); o != "" {
		domains = append(domains, o)
	}
	return map[string]any{"resourceDomains": domains, "connectDomains": []string{}, "frameDomains": []string{}, "baseUriDomains": []string{}}
}
