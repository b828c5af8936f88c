package content

import (
	"regexp"
	"strings"
)

// reservedClasses are the class names the app's own pages and the study
// widget style or look up (apiserver/internal/web/static/app.css,
// mcpcore/surface/widget/src/style.css; a test in apiserver keeps this
// list complete). Card text may not carry them: a card dressed as the
// app's own error box or button ("Your session expired, sign in at …")
// is phishing on our origin.
var reservedClasses = map[string]bool{}

func init() {
	for _, c := range strings.Fields(`account actions advisor affected again answer app audit-list audit-row audit-tool
		axis back badge bar bar-again bulk-bar card-actions bar-cell bar-due bar-ok brand button card chart check content current danger
		axis back badge bar bar-again bulk-bar card-actions bar-cell bar-due bar-ok brand button card chart check content current danger
		preview preview-card flag flag-form flag-1 flag-2 flag-3 flag-4 flag-5 flag-6 flag-7 minor
		danger-zone deck-list deck-name dropped-list filtered presets due easy error export-link face facts field-error figures focus heat-key heat-wrap heat0 heat1 heat2 heat3 heat4 heatmap filter-grid filters flash foot ghost good
		grid grid2 hard hint inline is-hidden ivl key keys label lead legend link meter meter-fill muted n narrow nav
		newkey next notice nt-card num pager panel primary progress r-again rate rating rating-again rating-good
		rating-hard rating-easy ratings recommended reveal row secondary secret security skip small small-btn spread sr-only stack stacked
		state-list status steps studied study table-wrap tabs tally tool tool-list tool-meta top top-in trash-item
		toolsets trash-list trash-name trash-what typed typed-bad typed-miss typed-ok typein undo-row warn where who wide-only`) {
		reservedClasses[c] = true
	}
}

// widthClass is the app's progress-width classes (w0 … w100).
var widthClass = regexp.MustCompile(`^w[0-9]{1,3}$`)

// Reserved reports whether class is one of the app's own class names,
// which card text may not use.
func Reserved(class string) bool {
	c := strings.ToLower(class)
	return reservedClasses[c] || widthClass.MatchString(c) || strings.HasPrefix(c, "nt-")
}

// classAttr finds the class attributes the sanitiser let through (on
// sanitised output, where every attribute is double-quoted and quotes in
// text are escaped, so it can only match a real attribute).
var classAttr = regexp.MustCompile(` class="([^"]*)"`)

// dropReservedClasses removes the app's own class names from the class
// attributes of sanitised HTML, and an attribute left empty.
func dropReservedClasses(html []byte) []byte {
	return classAttr.ReplaceAllFunc(html, func(m []byte) []byte {
		var keep []string
		for _, c := range strings.Fields(string(classAttr.FindSubmatch(m)[1])) {
			if !Reserved(c) {
				keep = append(keep, c)
			}
		}
		if len(keep) == 0 {
			return nil
		}
		return []byte(` class="` + strings.Join(keep, " ") + `"`)
	})
}
