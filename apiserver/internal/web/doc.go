// Package web holds the apiserver's pages and small endpoints: the layout
// every page shares, the public MCP setup page (/connect), sign-in by
// one-time link and sign-out, the health probes, and the OAuth
// protected-resource metadata.
//
// # Writing a page
//
// A page is a template file in templates/ (embedded) that defines
// "content"; it is rendered inside the layout (templates/layout.html:
// navigation, the signed-in account with its sign-out button, the
// stylesheet and script from static/). The file name without ".html" names
// the page. Inside it, .Title, .User, .CSRF, .Flash and .Error are the
// layout's (see View) and .Data is the page's own data;
// {{template "csrf" .}} writes the hidden CSRF field every form needs
// ({{template "csrf" $}} inside a range). Template functions: asset,
// plural, join, limits (a field's limits from the tool catalog). Times are
// shown with {{$.When t}} (or {{$.Clock t}}): in the account's timezone,
// with its abbreviation. A refused form comes back with .Form (see refused).
//
// A handler is a PageFunc wrapped by the Site:
//
//	mux.Handle("GET /decks", site.Page(func(w http.ResponseWriter, r *http.Request, v web.View) {
//		v.Title, v.Nav = "Decks", "decks"
//		page, err := decks.ListDecks(r.Context(), contracts.ListDecksArgs{}) // acts for the signed-in user
//		if err != nil {
//			site.Fail(w, r, v, err) // error page with the status of the error's kind
//			return
//		}
//		v.Data = page
//		site.Render(w, r, "decks", v)
//	}))
//
// Site.Page serves signed-in people only: without a web session a GET is
// redirected to /signin?next=<the page> (SignInURL; SafeNext keeps next on
// this origin) and an unsafe request gets a 403 page. It accepts only the
// session cookie (never an API key), puts the principal in the request's
// context for the domain services, bounds the body (MaxFormBytes) and, for
// an unsafe method, checks the Origin and the CSRF token from the
// X-CSRF-Token header or the csrf_token form field. Site.Public serves
// everyone and fills v.User when the visitor is signed in. After a form's
// POST, redirect with SeeOther.
//
// Packages outside web (the OAuth consent page) add their own templates to
// the same layout with Renderer.Add(name, text) and render through
// Site.Render and Site.Fail.
//
// # Security
//
// Every page carries PageCSP (script-src 'self', no inline scripts or
// styles, frame-ancestors 'none'), Referrer-Policy same-origin (not
// no-referrer: a form POST would then carry "Origin: null"), nosniff and
// X-Frame-Options DENY (SetPageHeaders); signed-in pages are not cached.
// html/template escapes everything interpolated; card content reaches a
// page only as the domain's sanitised rendering (domain/content).
package web
