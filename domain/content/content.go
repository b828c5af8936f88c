// Package content renders a card's front or back (DESIGN §7): Markdown
// (CommonMark with GFM tables, via goldmark) that may carry inline HTML from
// a small allow-list, sanitised by bluemonday before anything shows it.
// Media are referenced by id: ![alt](media:ID) is an image and [sound:ID]
// an audio player; the caller resolves each id to a URL (the web app to
// /media/{id}, the study widget to a short-lived signed URL).
//
// One Renderer serves every place that shows card text. Its output is safe
// to insert into a page as HTML; nothing else about card text is.
package content

import (
	"bytes"
	"html"
	"net/url"
	"regexp"
	"strings"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
)

// MaxSourceBytes bounds what Render accepts; longer text is cut there (card
// text is bounded well below it by the domain).
const MaxSourceBytes = 256 << 10

// Resolver returns the URL a media id becomes, or "" when the id is not
// known to the caller (the reference is then shown as missing).
type Resolver func(mediaID string) string

// Rendered is a sanitised rendering.
type Rendered struct {
	// HTML is safe to insert into a page.
	HTML string
	// Media are the media ids referenced, in order of first appearance.
	Media []string
}

// Renderer turns card text into sanitised HTML. It is safe for concurrent use.
type Renderer struct {
	md     goldmark.Markdown
	policy *bluemonday.Policy
}

// AllowedTags are the elements card text may carry as inline HTML.
var AllowedTags = []string{
	"b", "i", "u", "s", "sub", "sup", "br", "hr", "span", "div", "p", "ul", "ol", "li",
	"table", "thead", "tbody", "tr", "th", "td", "ruby", "rt", "rp", "code", "pre", "blockquote",
}

// rendererTags are the elements the Markdown renderer itself emits beyond
// AllowedTags (a, img and audio get their own attribute rules).
var rendererTags = []string{"em", "strong", "h1", "h2", "h3", "h4", "h5", "h6"}

// mediaID is what a media id may look like.
var mediaID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// New returns the renderer.
func New() *Renderer {
	md := goldmark.New(
		goldmark.WithExtensions(extension.Table),
		goldmark.WithParserOptions(parser.WithInlineParsers(util.Prioritized(soundParser{}, 150))),
		goldmark.WithRendererOptions(
			gmhtml.WithUnsafe(),    // raw HTML passes to the sanitiser, which decides
			gmhtml.WithHardWraps(), // a line break in a card is a line break
			gmhtml.WithXHTML(),
			renderer.WithNodeRenderers(util.Prioritized(soundRenderer{}, 150)),
		),
	)
	return &Renderer{md: md, policy: newPolicy()}
}

// newPolicy is the allow-list of DESIGN §7.
func newPolicy() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements(AllowedTags...)
	p.AllowElements(rendererTags...)
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^[A-Za-z0-9_ -]{1,100}$`)).OnElements("span", "div")
	p.AllowAttrs("colspan", "rowspan").Matching(regexp.MustCompile(`^[1-9][0-9]?$`)).OnElements("td", "th")
	p.AllowAttrs("href").OnElements("a")
	// Images and audio come from our media only: never a tracking pixel or
	// a data: URL.
	p.AllowAttrs("src").Matching(regexp.MustCompile(`^media:[A-Za-z0-9_-]{1,64}$`)).OnElements("img", "audio")
	p.AllowAttrs("alt").Matching(regexp.MustCompile(`^[^<>]{0,500}$`)).OnElements("img")
	p.AllowAttrs("controls").Matching(regexp.MustCompile(`^(controls)?$`)).OnElements("audio")
	p.AllowURLSchemes("http", "https", "mailto")
	p.AllowURLSchemeWithCustomPolicy("media", func(u *url.URL) bool { return mediaID.MatchString(u.Opaque) })
	p.RequireParseableURLs(true)
	p.AllowRelativeURLs(false)
	p.RequireNoFollowOnLinks(true)
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	return p
}

// mediaAttr finds the media references the sanitiser let through. It runs
// on sanitised output, where every attribute is double-quoted and text is
// escaped, so it can only match a real attribute.
var mediaAttr = regexp.MustCompile(`(src|href)="media:([A-Za-z0-9_-]{1,64})"`)

// Render renders src. resolve may be nil (every media reference is then
// missing). The app's own class names (Reserved) are dropped from it.
func (r *Renderer) Render(src string, resolve Resolver) Rendered {
	if len(src) > MaxSourceBytes {
		src = strings.ToValidUTF8(src[:MaxSourceBytes], "")
	}
	var b bytes.Buffer
	if err := r.md.Convert([]byte(src), &b); err != nil {
		// goldmark fails only on a failing writer; show the text escaped.
		b.Reset()
		b.WriteString("<p>" + html.EscapeString(src) + "</p>")
	}
	clean := dropReservedClasses(r.policy.SanitizeBytes(b.Bytes()))
	var ids []string
	seen := map[string]bool{}
	out := mediaAttr.ReplaceAllFunc(clean, func(m []byte) []byte {
		sub := mediaAttr.FindSubmatch(m)
		attr, id := string(sub[1]), string(sub[2])
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
		u := ""
		if resolve != nil {
			u = resolve(id)
		}
		if u == "" {
			return []byte(attr + `="" data-missing-media="` + id + `"`)
		}
		return []byte(attr + `="` + html.EscapeString(u) + `"`)
	})
	return Rendered{HTML: strings.TrimSpace(string(out)), Media: ids}
}

// plainPolicy keeps only text.
var plainPolicy = bluemonday.StrictPolicy()

// Plain returns the text of src without markup, on one line, cut to max
// runes (with "…"): for lists and previews.
func (r *Renderer) Plain(src string, max int) string {
	rendered := r.Render(src, nil).HTML
	rendered = strings.NewReplacer("<br/>", " ", "<br>", " ", "</p>", " ", "</li>", " ", "</td>", " ", "</th>", " ", "</tr>", " ", "</div>", " ").Replace(rendered)
	text := html.UnescapeString(plainPolicy.Sanitize(rendered))
	text = strings.Join(strings.Fields(text), " ")
	if max > 0 {
		if rs := []rune(text); len(rs) > max {
			text = strings.TrimSpace(string(rs[:max-1])) + "…"
		}
	}
	return text
}
