package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/takhtabush/takhtabush/contracts"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// View is what the layout shows around a page's content. Page templates
// read their own data from .Data; everything else is the layout's.
type View struct {
	// Title is the page title (also the <title>, before "· Takhtabush").
	Title string
	// Nav names the navigation entry to mark current: "decks", "stats",
	// "audit", "settings", "connect" or "signin".
	Nav string
	// Narrow makes the main column narrow (forms such as sign-in).
	Narrow bool
	// Focus hides the navigation on a phone-sized screen (the study page:
	// the card and its buttons, nothing else).
	Focus bool
	// User is the signed-in account, nil for a visitor.
	User *contracts.User
	// CSRF is the session's CSRF token, for {{template "csrf" .}} in forms.
	CSRF string
	// Flash is a one-line success message shown above the content.
	Flash string
	// Error is a one-line error message shown above the content.
	Error string
	// Form is a refused form shown again: the input as typed and the
	// message beside its field (see refused); zero on a first showing.
	Form Form
	// Data is the page's own data.
	Data any
	// zone is the signed-in account's timezone (Location, When).
	zone *zone
}

// Renderer renders pages into the one layout. It is safe for concurrent use.
type Renderer struct {
	log    *slog.Logger
	layout *template.Template
	mu     sync.RWMutex
	pages  map[string]*template.Template
	assets map[string]string // file name → versioned URL
}

// NewRenderer parses the layout and every page of templates/ (a page is
// named by its file name without ".html").
func NewRenderer(log *slog.Logger) (*Renderer, error) {
	r := &Renderer{log: log, pages: map[string]*template.Template{}, assets: map[string]string{}}
	if err := fs.WalkDir(staticFS, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		name := strings.TrimPrefix(p, "static/")
		r.assets[name] = StaticPrefix + name + "?v=" + hex.EncodeToString(sum[:6])
		return nil
	}); err != nil {
		return nil, err
	}
	layout, err := template.New("layout.html").Funcs(r.funcs()).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	r.layout = layout
	entries, err := templateFS.ReadDir("templates")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Name() == "layout.html" {
			continue
		}
		b, err := templateFS.ReadFile("templates/" + e.Name())
		if err != nil {
			return nil, err
		}
		if err := r.Add(strings.TrimSuffix(e.Name(), ".html"), string(b)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// funcs are the template functions every page may use.
func (r *Renderer) funcs() template.FuncMap {
	return template.FuncMap{
		// asset returns the versioned URL of a file in static/.
		"asset": func(name string) (string, error) {
			u, ok := r.assets[name]
			if !ok {
				return "", fmt.Errorf("no static asset %q", name)
			}
			return u, nil
		},
		"plural": plural,
		"join":   strings.Join,
		// limits writes a form control's maxlength/required or
		// type=number/min/max from a tool argument's schema (limitAttrs).
		"limits": limitAttrs,
		// maxAhead is the most days a session may study ahead.
		"maxAhead": func() int { return contracts.MaxReviewAheadDays },
		// maturity is the interval from which a card counts as mature.
		"maturity": func() int { return contracts.MatureIntervalDays },
		// flagName names a card's flag ("Red"); "" for none.
		"flagName": flagName,
	}
}

// Add parses a page template (it must define "content") into a copy of
// the layout under name. Packages outside web (OAuth's consent page) use
// it for their own pages; a later Add of the same name replaces the page.
func (r *Renderer) Add(name, text string) error {
	t, err := r.layout.Clone()
	if err != nil {
		return err
	}
	if _, err := t.New(name).Parse(text); err != nil {
		return fmt.Errorf("page %s: %w", name, err)
	}
	if t.Lookup("content") == nil {
		return fmt.Errorf("page %s defines no \"content\" template", name)
	}
	r.mu.Lock()
	r.pages[name] = t
	r.mu.Unlock()
	return nil
}

// Render writes the page name in the layout with status and the page
// security headers. It renders into a buffer first, so a template error
// becomes a plain 500 instead of half a page.
func (r *Renderer) Render(w http.ResponseWriter, req *http.Request, status int, name string, v View) {
	r.mu.RLock()
	t := r.pages[name]
	r.mu.RUnlock()
	var b bytes.Buffer
	err := fmt.Errorf("no page %q", name)
	if t != nil {
		err = t.ExecuteTemplate(&b, "layout", v)
	}
	SetPageHeaders(w.Header())
	if v.User != nil {
		w.Header().Set("Cache-Control", "no-store")
	}
	if err != nil {
		r.log.LogAttrs(req.Context(), slog.LevelError, "rendering a page failed", slog.String("page", name), slog.Any("err", err))
		http.Error(w, "internal error: the page could not be shown", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if req.Method != http.MethodHead {
		_, _ = w.Write(b.Bytes())
	}
}

// PageCSP is the Content-Security-Policy of every page: our own scripts,
// styles, images and media only, our own app manifest and service
// worker, nothing inline, never framed.
const PageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; " +
	"connect-src 'self'; manifest-src 'self'; worker-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// SetPageHeaders sets the security headers of an HTML page. The referrer
// policy is same-origin, not no-referrer: browsers send "Origin: null" on
// a form POST under no-referrer, which the origin check must refuse.
func SetPageHeaders(h http.Header) {
	h.Set("Content-Security-Policy", PageCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
}

// StaticPrefix is where the embedded stylesheet and script are served.
const StaticPrefix = "/static/"

// ServiceWorker serves static/sw.js as /sw.js, so that its scope is the
// whole site; browsers check it for updates (no-cache).
func ServiceWorker() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := staticFS.ReadFile("static/sw.js")
		if err != nil {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/javascript; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(b)
	})
}

// Static serves the embedded files of static/ under StaticPrefix.
func Static() http.Handler {
	sub, _ := fs.Sub(staticFS, "static")
	files := http.StripPrefix(StaticPrefix, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, StaticPrefix)
		if name == "" || strings.HasSuffix(name, "/") || path.Clean("/"+name) != "/"+name {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "public, max-age=86400")
		files.ServeHTTP(w, r)
	})
}

// plural writes "1 card" / "2 cards".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
