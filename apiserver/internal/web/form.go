package web

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/takhtabush/takhtabush/apiserver/internal/httperr"
	"github.com/takhtabush/takhtabush/contracts"
)

// Form is a refused form shown again: what the person typed and the
// message beside the field it concerns. The zero Form is a form shown for
// the first time (every Value is the stored one).
type Form struct {
	// Values are the posted fields; nil for a form shown the first time.
	Values url.Values
	// Errors maps a field's name to the message shown beside it; the
	// message of a refusal that names no field is the layout's v.Error.
	Errors map[string]string
}

// Value returns what the person typed into field name, or stored when the
// form was not posted.
func (f Form) Value(name, stored string) string {
	if vs, ok := f.Values[name]; ok && len(vs) > 0 {
		return vs[0]
	}
	return stored
}

// Checked reports whether checkbox name is ticked: as posted on a
// refused form (an unticked box is not posted), else stored.
func (f Form) Checked(name string, stored bool) bool {
	if f.Values == nil {
		return stored
	}
	return f.Values.Get(name) != ""
}

// Invalid writes the attributes of a refused field: aria-invalid,
// aria-describedby naming its message, and autofocus, so the browser
// scrolls to it (a long page's form is far below the page's top); nothing
// for a field not refused.
func (f Form) Invalid(name string) template.HTMLAttr {
	if f.Errors[name] == "" {
		return ""
	}
	return template.HTMLAttr(` aria-invalid="true" autofocus aria-describedby="` + template.HTMLEscapeString(name) + `-error"`) //nolint:gosec // escaped
}

// Message writes the message beside field name, placed right after the
// field; nothing when the field was not refused.
func (f Form) Message(name string) template.HTML {
	msg := f.Errors[name]
	if msg == "" {
		return ""
	}
	return template.HTML(`<p class="field-error" id="` + template.HTMLEscapeString(name) + `-error">` + template.HTMLEscapeString(msg) + `</p>`) //nolint:gosec // escaped
}

// refused prepares v for showing a refused form again and returns the
// status to show it with. It reports false when err is not a refusal of
// the input (anything but invalid input or a conflict): the caller shows
// the failure page then. The message goes beside the first of fields it
// names (a field's name as a word, "front" in "front is 10001 characters"),
// or above the form when it names none of them.
func refused(r *http.Request, v *View, err error, fields ...string) (int, bool) {
	kind := contracts.KindOf(err)
	if kind != contracts.KindInvalid && kind != contracts.KindConflict {
		return 0, false
	}
	msg := contracts.MessageOf(err)
	v.Form.Values = r.PostForm
	if f := fieldNamed(msg, fields...); f != "" {
		v.Form.Errors = map[string]string{f: msg}
		v.Error = "Nothing was saved: see the message beside the field."
	} else {
		v.Error = msg
	}
	return httperr.Status(kind), true
}

// fieldNamed returns the first of fields that msg names as a word, or "".
func fieldNamed(msg string, fields ...string) string {
	words := strings.FieldsFunc(strings.ToLower(msg), func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_')
	})
	for _, f := range fields {
		if slices.Contains(words, strings.ToLower(f)) {
			return f
		}
	}
	return ""
}

var (
	limitsMu    sync.Mutex
	limitsCache = map[string]template.HTMLAttr{}
)

// limitAttrs returns the HTML attributes of a form control that match an
// argument of a tool in the catalog, so a page states the same limits the
// domain enforces without a second copy: maxlength and (for a required
// non-empty string) required, or type="number" with min and max for a
// number. path names the argument through objects and arrays with dots:
// "cards.front" is the front of add_cards' cards, and "*" an object's
// additional properties ("notes.fields.*": any field of a note). An unknown tool or path
// is an error, so a renamed argument fails the page's rendering in tests.
func limitAttrs(tool, path string) (template.HTMLAttr, error) {
	key := tool + " " + path
	limitsMu.Lock()
	defer limitsMu.Unlock()
	if a, ok := limitsCache[key]; ok {
		return a, nil
	}
	def, ok := contracts.Tool(tool)
	if !ok {
		return "", fmt.Errorf("limits: no tool %q", tool)
	}
	var s map[string]any
	if err := json.Unmarshal(def.InputSchema, &s); err != nil {
		return "", fmt.Errorf("limits: %s: %w", tool, err)
	}
	required := false
	for _, name := range strings.Split(path, ".") {
		if items, ok := s["items"].(map[string]any); ok {
			s = items
		}
		props, _ := s["properties"].(map[string]any)
		next, ok := props[name].(map[string]any)
		if name == "*" {
			next, ok = s["additionalProperties"].(map[string]any)
		}
		if !ok {
			return "", fmt.Errorf("limits: %s has no argument %q", tool, path)
		}
		req, _ := s["required"].([]any)
		required = slices.Contains(req, any(name))
		s = next
	}
	var b strings.Builder
	switch s["type"] {
	case "string":
		if n, ok := s["maxLength"].(float64); ok {
			fmt.Fprintf(&b, ` maxlength="%d"`, int(n))
		}
		if n, _ := s["minLength"].(float64); required && n >= 1 {
			b.WriteString(" required")
		}
	case "integer", "number":
		b.WriteString(` type="number"`)
		if n, ok := s["minimum"].(float64); ok {
			fmt.Fprintf(&b, ` min="%s"`, strconv.FormatFloat(n, 'f', -1, 64))
		}
		if n, ok := s["maximum"].(float64); ok {
			fmt.Fprintf(&b, ` max="%s"`, strconv.FormatFloat(n, 'f', -1, 64))
		}
		if s["type"] == "number" {
			b.WriteString(` step="any"`)
		}
	default:
		return "", fmt.Errorf("limits: %s's %q is a %v, not a string or a number", tool, path, s["type"])
	}
	a := template.HTMLAttr(b.String()) //nolint:gosec // written here from numbers and fixed words
	limitsCache[key] = a
	return a, nil
}
