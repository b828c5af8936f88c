package web

import (
	"fmt"
	"html/template"
	"net/http"
	"os"
)

// The public pages directories ask a listed service for (issue 25 §3.3).
const (
	PrivacyPath = "/privacy"
	TermsPath   = "/terms"
)

// MaxLegalFileBytes bounds an operator's own privacy or terms file.
const MaxLegalFileBytes = 256 << 10

// legalData is a legal page's data: the operator's own text, or nil for
// the built-in one.
type legalData struct {
	Own template.HTML
}

// NewLegalPage serves the privacy notice or the terms (page "privacy" or
// "terms") without a session. ownFile, when set, is an HTML fragment the
// operator wrote that replaces the built-in text; it is read once here
// (the operator's file is trusted as the operator's own markup), so a
// missing or oversized file fails at startup, not on a visitor's request.
func NewLegalPage(site *Site, page, title, ownFile string) (http.Handler, error) {
	var data legalData
	if ownFile != "" {
		b, err := os.ReadFile(ownFile)
		if err != nil {
			return nil, fmt.Errorf("the %s page's file: %w", page, err)
		}
		if len(b) > MaxLegalFileBytes {
			return nil, fmt.Errorf("the %s page's file %s is larger than %d bytes", page, ownFile, MaxLegalFileBytes)
		}
		data.Own = template.HTML(b) // #nosec G203 -- the operator's own file, read at startup
	}
	return site.Public(func(w http.ResponseWriter, r *http.Request, v View) {
		v.Title, v.Data = title, data
		site.Render(w, r, page, v)
	}), nil
}
