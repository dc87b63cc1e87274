package load

import (
	"strings"
	"testing"
)

// The characters counted before parsing are those that may start a node: dashes,
// commas, colons and line breaks written inside a JSON document's strings are not, nor a
// dash or a question mark that is not followed by a blank (a markdown table's "|---|").
// Those that start nodes still add up past the cap: sequence entries ("- a"), explicit
// keys ("? a"), flow items.
func TestIndicatorsCountNodeStartsOnly(t *testing.T) {
	row := "        | " + strings.Repeat("c0 | ", 8) + "\n        |" + strings.Repeat("------------|", 8) + "\n"
	var tables strings.Builder
	tables.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n")
	for k := range 3 {
		tables.WriteString("  /a" + string(rune('0'+k)) + ":\n    get:\n      description: |\n" + strings.Repeat(row, 6000) +
			"      responses:\n        \"200\": {description: ok}\n")
	}
	prose := `{"openapi": "3.0.3", "info": {"title": "T", "version": "1", "description": "` +
		strings.Repeat(`a, b: c - d? [e] {f}\n`, 100000) + `"}, "paths": {}}`
	for name, text := range map[string]string{"tables.yaml": tables.String(), "prose.json": prose} {
		if len(text) <= MaxIndicators {
			t.Fatalf("%s: %d bytes, want more than %d", name, len(text), MaxIndicators)
		}
		if e := checkIndicators(name, []byte(text)); e != nil {
			t.Errorf("%s: %v", name, e)
		}
	}
	if s, err := loadSpec(t, "tables.yaml", tables.String()); err != nil || len(s.Doc.Paths.Map()) != 3 {
		t.Errorf("tables.yaml: %v", err)
	}
	n := MaxIndicators/2 + 1
	for name, text := range map[string]string{
		"seq.yaml":    strings.Repeat("- a\n", n),
		"keys.yaml":   strings.Repeat("? a\n", n),
		"dashes.yaml": "x:\n" + strings.Repeat("-\n", n),
		"flow.json":   "[" + strings.Repeat("-1,", 2*n) + "1]",
	} {
		if e := checkIndicators(name, []byte(text)); e == nil || !strings.Contains(e.Error(), "limit exceeded: more than") {
			t.Errorf("%s: %v, want the characters that start nodes counted past the cap", name, e)
		}
	}
}
