package gen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docExample is a Go block of a doc page marked with the file and function that run it:
// <!-- testdata/sdk/tasks_test.go chat -->.
var docExample = regexp.MustCompile("(?s)<!-- (\\S+\\.go) (\\w+) -->\n```go\n(.*?)```")

// Every example of docs/client.md is part of the function its marker names, line for
// line, so that the slow suite that runs those functions runs the examples.
func TestDocExamplesAreRun(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "client.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := docExample.FindAllSubmatch(doc, -1)
	if len(blocks) < 4 {
		t.Fatalf("docs/client.md has %d marked examples, want every one marked", len(blocks))
	}
	for _, b := range blocks {
		file, fn, code := string(b[1]), string(b[2]), string(b[3])
		src, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(file)))
		if err != nil {
			t.Fatal(err)
		}
		body := funcSource(string(src), fn)
		if body == "" {
			t.Errorf("%s has no func %s", file, fn)
			continue
		}
		for _, line := range strings.Split(strings.TrimRight(code, "\n"), "\n") {
			if !strings.Contains(body, "\t"+line+"\n") {
				t.Errorf("docs/client.md line %q is not in %s's %s", line, file, fn)
			}
		}
	}
}

// funcSource returns the text of the top-level function name in src, "" when none.
func funcSource(src, name string) string {
	start := strings.Index(src, "\nfunc "+name+"(")
	if start < 0 {
		return ""
	}
	end := strings.Index(src[start:], "\n}\n")
	if end < 0 {
		return ""
	}
	return src[start : start+end+3]
}
