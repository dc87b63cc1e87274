package gen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// taskSet is one file of testdata/sdk's tasks, with the SDK's code of each from
// anchors.md.
type taskSet struct {
	file    string   // e.g. "tasks_test.go"
	tasks   []string // in anchors.md's order
	anchors map[string]int
}

// codeLines counts the lines of src that are neither blank nor a comment alone.
func codeLines(src string) int {
	n := 0
	for _, line := range strings.Split(src, "\n") {
		if s := strings.TrimSpace(line); s != "" && !strings.HasPrefix(s, "//") {
			n++
		}
	}
	return n
}

// anchorSets reads testdata/sdk/anchors.md: "## … (file)" opens a set, "### name" a task,
// and the ```go block after it is the SDK's code of the task.
func anchorSets(t *testing.T) []*taskSet {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "sdk", "anchors.md"))
	if err != nil {
		t.Fatal(err)
	}
	setHead := regexp.MustCompile(`^## .*\((\w+_test\.go)\)$`)
	var sets []*taskSet
	var task string
	var code []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case setHead.MatchString(line):
			sets = append(sets, &taskSet{file: setHead.FindStringSubmatch(line)[1], anchors: map[string]int{}})
		case strings.HasPrefix(line, "### "):
			task = strings.TrimPrefix(line, "### ")
		case line == "```go" && task != "":
			in, code = true, nil
		case line == "```" && in:
			s := sets[len(sets)-1]
			s.tasks = append(s.tasks, task)
			s.anchors[task] = codeLines(strings.Join(code, "\n"))
			in, task = false, ""
		case in:
			code = append(code, line)
		}
	}
	if len(sets) != 2 {
		t.Fatalf("anchors.md holds %d sets of tasks, want 2", len(sets))
	}
	return sets
}

// taskBodies returns the code lines of the body of each function of the Go file path.
func taskBodies(t *testing.T, path string) map[string]int {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Body != nil {
			from, to := fset.Position(fn.Body.Lbrace).Offset+1, fset.Position(fn.Body.Rbrace).Offset
			out[fn.Name.Name] = codeLines(string(src[from:to]))
		}
	}
	return out
}

// The tasks users write with a generated client take no more lines, set by set, than
// the same tasks with openai-go, go-github and stripe-go (testdata/sdk/anchors.md), and
// docs/client.md's table gives each count as it is.
func TestTaskLines(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "client.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range anchorSets(t) {
		ours := taskBodies(t, filepath.Join("..", "testdata", "sdk", set.file))
		sumOurs, sumTheirs := 0, 0
		for _, task := range set.tasks {
			n, ok := ours[task]
			if !ok {
				t.Errorf("%s has no task %s, which anchors.md writes", set.file, task)
				continue
			}
			sumOurs, sumTheirs = sumOurs+n, sumTheirs+set.anchors[task]
			if row := fmt.Sprintf("| `%s` | %d | %d |", task, n, set.anchors[task]); !strings.Contains(string(doc), row) {
				t.Errorf("docs/client.md lacks the row %s", row)
			}
		}
		t.Logf("%s: %d tasks in %d lines, %d with the SDKs", set.file, len(set.tasks), sumOurs, sumTheirs)
		if sumOurs > sumTheirs {
			t.Errorf("%s: %d lines, more than the SDKs' %d", set.file, sumOurs, sumTheirs)
		}
		if row := fmt.Sprintf("| %d tasks of `%s` | %d | %d |", len(set.tasks), set.file, sumOurs, sumTheirs); !strings.Contains(string(doc), row) {
			t.Errorf("docs/client.md lacks the row %s", row)
		}
	}
}
