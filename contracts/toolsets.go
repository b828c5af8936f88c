package contracts

import "slices"

// Toolset names: what a user does. A tool belongs to one or more
// (ToolDef.Sets); an agent chooses sets by URL (/mcp/x/study,library) or
// header, and an account has a default (ExposureSettings.Toolsets).
const (
	ToolsetStudy    = "study"    // study sessions, the widget, progress
	ToolsetLibrary  = "library"  // decks and cards: search, add, edit, text import
	ToolsetNotes    = "notes"    // notes and note types, media for cards
	ToolsetExchange = "exchange" // Anki packages in and out, jobs
	ToolsetAdmin    = "admin"    // settings, deck presets, trash, rescheduling, the optimiser
	// ToolsetsAll names every set.
	ToolsetsAll = "all"
)

// ToolsetDef describes one toolset.
type ToolsetDef struct {
	Name        string
	Title       string // for people: the agent settings page
	Description string // for people and the tool reference
	// Instructions are added to the server's instructions when the set
	// is chosen: how its tools work together, for a model.
	Instructions string
}

var toolsets = []ToolsetDef{
	{
		Name: ToolsetStudy, Title: "Study",
		Description:  "Study sessions, the study widget, what is due, statistics and the study plan.",
		Instructions: "To study: render_study_session shows the widget (use it alone in its turn); without widgets, start_study_session, show each front, reveal the back, and submit_review the user's rating.",
	},
	{
		Name: ToolsetLibrary, Title: "Decks and cards",
		Description:  "Decks and cards: list, search, create, edit, delete, and pasted CSV/TSV or Anki text import.",
		Instructions: "Add cards in bulk with add_cards or import_cards (one call, up to 1000).",
	},
	{
		Name: ToolsetNotes, Title: "Notes and media",
		Description:  "Notes (Basic, reversed, Cloze, own note types) that make cards, and images or audio for cards.",
		Instructions: "add_notes makes reversed and Cloze cards; request_media_upload gives a URL to PUT an image or audio file to.",
	},
	{
		Name: ToolsetExchange, Title: "Anki import and export",
		Description:  "Anki packages (.apkg, .colpkg) and files in, .apkg out, and the jobs that run them.",
		Instructions: "import_package and export_deck move whole decks in and out of Anki; poll get_job for a job's report.",
	},
	{
		Name: ToolsetAdmin, Title: "Settings and maintenance",
		Description:  "The learner's day and limits, deck settings, trash and restore, rescheduling, FSRS optimisation.",
		Instructions: "Ask the user's timezone before update_settings. Deleted decks and cards stay in the trash 30 days.",
	},
}

// Toolsets returns the toolsets in the order their instructions are served.
func Toolsets() []ToolsetDef { return slices.Clone(toolsets) }

// LeanToolsets are the sets of an account that never chose: studying and
// keeping decks, the everyday work, at a fraction of the full list's cost.
var LeanToolsets = []string{ToolsetStudy, ToolsetLibrary}

// ValidToolset reports whether name is a toolset or ToolsetsAll.
func ValidToolset(name string) bool {
	return name == ToolsetsAll || slices.ContainsFunc(toolsets, func(t ToolsetDef) bool { return t.Name == name })
}

// ChooseToolsets checks an account's choice of default toolsets and
// returns it in one form: ["all"] when it names ToolsetsAll, otherwise
// each set once in the toolsets' order. Invalid when a name is not a
// toolset or the choice is empty (an account's agents need one set).
func ChooseToolsets(names []string) ([]string, error) {
	chosen := map[string]bool{}
	for _, n := range names {
		if !ValidToolset(n) {
			return nil, Errorf(KindInvalid, "unknown toolset %q in toolsets; choose from %s", n, toolsetNames())
		}
		chosen[n] = true
	}
	if len(chosen) == 0 {
		return nil, Errorf(KindInvalid, "toolsets is empty: choose at least one of %s", toolsetNames())
	}
	if chosen[ToolsetsAll] {
		return []string{ToolsetsAll}, nil
	}
	var out []string
	for _, t := range toolsets {
		if chosen[t.Name] {
			out = append(out, t.Name)
		}
	}
	return out, nil
}

// toolsetNames lists ToolsetsAll and every set, for error messages.
func toolsetNames() string {
	out := ToolsetsAll
	for _, t := range toolsets {
		out += ", " + t.Name
	}
	return out
}
