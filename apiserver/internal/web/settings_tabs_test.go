package web

import "testing"

// TestSettingsTabsOnceEach holds the settings navigation to one tab per
// section: a merge once listed Connected apps twice.
func TestSettingsTabsOnceEach(t *testing.T) {
	d := settings("day", nil)
	seen := map[string]bool{}
	current := 0
	for _, tab := range d.Tabs {
		if seen[tab.Path] {
			t.Errorf("settings tab %s (%s) is listed twice", tab.Path, tab.Label)
		}
		seen[tab.Path] = true
		if tab.Current {
			current++
		}
	}
	if current != 1 || !seen["/settings/day"] {
		t.Errorf("want exactly the Your day tab current, got %d current of %v", current, d.Tabs)
	}
}
