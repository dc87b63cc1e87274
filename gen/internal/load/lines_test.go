package load

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/spectest"
)

const linesSpec = "openapi: 3.0.3\ninfo:\n  title: T%s\n  version: \"1\"\npaths: {}\n"

// The YAML parser breaks lines at U+0085, U+2028 and U+2029 too: a YAML file holding one
// is refused at the line and column the file has it (lines broken at LF, CR and CRLF),
// the root file's, a $ref'd file's; a JSON document's are escapes for the parser.
func TestYAMLLineBreaksBeyondLFAndCRAreRefused(t *testing.T) {
	for name, text := range map[string]string{
		"ls.yaml":      strings.Replace(linesSpec, "%s", "\u2028more", 1),
		"nel.yaml":     strings.Replace(strings.ReplaceAll(linesSpec, "\n", "\r\n"), "%s", "\u0085", 1),
		"cr.yaml":      strings.Replace(strings.ReplaceAll(linesSpec, "\n", "\r"), "%s", "\u2029", 1),
		"comment.yaml": "openapi: 3.0.3\n# no servers\u2028servers: [{url: 'https://evil.example'}]\ninfo: {title: T, version: \"1\"}\npaths: {}\n",
	} {
		_, err := loadSpec(t, name, text)
		want := "/" + name + ":3:11: malformed document: the character U+"
		if name == "comment.yaml" {
			want = "/" + name + ":2:13: malformed document: the character U+2028"
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `fix: write it as \u`) {
			t.Errorf("%s: got %v, want %s...", name, err, want)
		}
	}
	if _, err := loadSpec(t, "ls.json", `{"openapi": "3.0.3", "info": {"title": "T`+"\u2028"+`", "version": "1"}, "paths": {}}`); err != nil {
		t.Errorf("ls.json: %v", err)
	}
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, map[string]string{
		"api.yaml": spectest.RefSpec("s.yaml#/S"),
		"s.yaml":   "S:\n  type: string\n  description: a\u2028b\n",
	})
	_, err := Load(filepath.Join(dir, "api.yaml"), Options{AllowExternalRefs: true})
	if want := "s.yaml:3:17: malformed document: the character U+2028"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("$ref'd file: got %v, want %s", err, want)
	}
}

// A run of more than 1000 blank lines is refused at its first line.
func TestLongRunsOfBlankLinesAreRefused(t *testing.T) {
	blanks := func(n int) string {
		return "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\nx-a: &a [0, 0]\n" + strings.Repeat(" \n", n) + "paths: {}\n"
	}
	if _, err := loadSpec(t, "ok.yaml", blanks(MaxBlankLines)); err != nil {
		t.Errorf("%d blank lines: %v", MaxBlankLines, err)
	}
	_, err := loadSpec(t, "blanks.yaml", blanks(MaxBlankLines+1))
	if want := "/blanks.yaml:4:1: limit exceeded: more than 1000 blank lines in a row"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %s", err, want)
	}
}
