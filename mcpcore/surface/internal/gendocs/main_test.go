package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/takhtabush/takhtabush/contracts"
	"github.com/takhtabush/takhtabush/mcpcore/surface"
)

// The reference is complete: no empty table cell (every argument has a
// description), numbers as written, fields inside arrays and objects,
// a result table per tool, and the rules every tool follows.
func TestReferenceIsComplete(t *testing.T) {
	sizes, err := surface.MeasureLists()
	if err != nil {
		t.Fatal(err)
	}
	doc := string(render(contracts.Catalog(), sizes))
	for i, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		for _, c := range strings.Split(strings.Trim(line, "|"), " | ") {
			if strings.TrimSpace(c) == "" {
				t.Errorf("line %d has an empty cell: %s", i+1, line)
				break
			}
		}
	}
	if m := regexp.MustCompile(`[0-9]e[+-][0-9]`).FindString(doc); m != "" {
		t.Errorf("a number is printed in exponent form: %s", m)
	}
	for _, want := range []string{
		"`cards[].front`", "`updates[].deckId`", "`items[].status`", "10485760", contracts.MetaErrorKind,
		"idempotencyKey", "`position`", contracts.StudyWidgetURI, "media:ID",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the reference lacks %s", want)
		}
	}
	for _, k := range contracts.ErrorKinds {
		if !strings.Contains(doc, "| `"+string(k)+"` |") {
			t.Errorf("the error kind %s is not explained", k)
		}
	}
	for _, def := range contracts.Catalog() {
		section := doc[strings.Index(doc, "\n## "+def.Name+"\n"):]
		if next := strings.Index(section[1:], "\n## "); next > 0 {
			section = section[:next+1]
		}
		if !strings.Contains(section, "### Result\n\n| Field |") {
			t.Errorf("%s: no result table", def.Name)
		}
	}
}
