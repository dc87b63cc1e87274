package docrefs

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// outsideDoc matches the names of the documents a clone does not have: the product
// contract, the style guide and the test catalogue kept beside the repository. What they
// said is in docs/design.md and docs/reliability.md. A file may name one only if the
// repository holds a file of that name.
var outsideDoc = regexp.MustCompile(`\b(?:DESIGN|RELIABILITY|STYLE)\.md\b`)

// besideRepo matches a relative path that climbs to the folder shared beside the
// repository. Only the spec corpora there may be named (internal/corpus reads them).
var besideRepo = regexp.MustCompile("(?:\\.\\./)+shared\\b[^\\s\"'`)\\],;]*")

// corpora are the paths beside the repository that files may name, relative to the
// folder above the repository: the spec corpus, and the descriptions written across
// several files.
var corpora = []string{"shared/specs", "shared/multifile"}

// mdLink matches a Markdown link or image and captures its target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// TestNoReferenceLeavesTheRepository reads every tracked file: none may cite a document
// the repository lacks or a path beside it other than the spec corpus, and each relative
// link of a Markdown file must reach a tracked file, and a heading of it when the link
// names one.
func TestNoReferenceLeavesTheRepository(t *testing.T) {
	root := moduleRoot(t)
	files := trackedFiles(t, root)
	names := map[string]bool{}
	for _, f := range files {
		names[path.Base(f)] = true
	}
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue // deleted in the work tree, or not text
		}
		checked++
		text := string(data)
		for _, m := range outsideDoc.FindAllStringIndex(text, -1) {
			if name := text[m[0]:m[1]]; !names[name] {
				t.Errorf("%s:%d: cites %s, which the repository does not hold: point to docs/design.md or docs/reliability.md, or say it here",
					f, lineOf(text, m[0]), name)
			}
		}
		for _, m := range besideRepo.FindAllStringIndex(text, -1) {
			p := strings.TrimRight(text[m[0]:m[1]], ".:")
			rest := strings.TrimLeft(p, "./")
			if !slices.ContainsFunc(corpora, func(c string) bool { return rest == c || strings.HasPrefix(rest, c+"/") }) {
				t.Errorf("%s:%d: names %s, beside the repository: a clone does not have it", f, lineOf(text, m[0]), p)
			}
		}
		if strings.HasSuffix(f, ".md") {
			checkLinks(t, root, f, text, files)
		}
	}
	if checked < 100 {
		t.Fatalf("read %d files of %s; the walk missed the repository", checked, root)
	}
}

// testName matches the name of a test, fuzz target or benchmark as documents cite it.
var testName = regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*`)

// testFunc matches the declaration of one in a _test.go file.
var testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)[A-Za-z0-9_]*)\(`)

// TestDocumentedTestsExist checks that every test a Markdown file or a package's doc.go
// names (docs/reliability.md names the test of each case) is declared in a tracked
// _test.go file, so that renaming a test cannot leave the catalogue pointing at nothing.
func TestDocumentedTestsExist(t *testing.T) {
	root := moduleRoot(t)
	files := trackedFiles(t, root)
	declared := map[string]bool{}
	var docs []string
	for _, f := range files {
		switch {
		case strings.HasSuffix(f, "_test.go"):
			data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
			if err != nil {
				continue
			}
			for _, m := range testFunc.FindAllStringSubmatch(string(data), -1) {
				declared[m[1]] = true
			}
		case strings.HasSuffix(f, ".md") || path.Base(f) == "doc.go":
			docs = append(docs, f)
		}
	}
	if !declared["TestDocumentedTestsExist"] {
		t.Fatalf("found %d test declarations, not this one: the walk missed the repository", len(declared))
	}
	for _, f := range docs {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			continue
		}
		text := string(data)
		for _, m := range testName.FindAllStringIndex(text, -1) {
			if name := text[m[0]:m[1]]; !declared[name] {
				t.Errorf("%s:%d: names %s, which no test file declares", f, lineOf(text, m[0]), name)
			}
		}
	}
}

// checkLinks reports each relative link of the Markdown file f (text) that reaches no
// tracked file, or no heading of it.
func checkLinks(t *testing.T, root, f, text string, files []string) {
	t.Helper()
	for i, line := range proseLines(text) {
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			dest := f
			if file != "" {
				dest = path.Clean(path.Join(path.Dir(f), file))
			}
			switch {
			case dest == ".." || strings.HasPrefix(dest, "../"):
				t.Errorf("%s:%d: links to %s, outside the repository", f, i+1, target)
			case !isTracked(root, dest, files):
				t.Errorf("%s:%d: links to %s, which the repository does not hold", f, i+1, target)
			case anchor != "" && strings.HasSuffix(dest, ".md"):
				data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dest)))
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(headingAnchors(string(data)), anchor) {
					t.Errorf("%s:%d: links to %s, but %s has no heading #%s", f, i+1, target, dest, anchor)
				}
			}
		}
	}
}

// isTracked reports whether p is a tracked file present in the work tree, or a folder
// holding one.
func isTracked(root, p string, files []string) bool {
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
		return false
	}
	return slices.ContainsFunc(files, func(f string) bool { return f == p || strings.HasPrefix(f, p+"/") })
}

// proseLines returns the lines of a Markdown text, those inside fenced code blocks blanked
// so that line numbers stay right.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	inCode := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			inCode = !inCode
			lines[i] = ""
			continue
		}
		if inCode {
			lines[i] = ""
		}
	}
	return lines
}

// headingAnchors returns the anchors GitHub gives the headings of a Markdown text: the
// heading in lower case, without backquotes and punctuation, spaces made hyphens, and a
// numeric suffix for repeats.
func headingAnchors(text string) []string {
	var anchors []string
	seen := map[string]int{}
	for _, l := range proseLines(text) {
		h := strings.TrimLeft(l, "#")
		if n := len(l) - len(h); n == 0 || n > 6 || !strings.HasPrefix(h, " ") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(h)) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors = append(anchors, fmt.Sprintf("%s-%d", a, n))
		} else {
			anchors = append(anchors, a)
		}
		seen[a]++
	}
	return anchors
}

// lineOf returns the line of text that offset lies on, from 1.
func lineOf(text string, offset int) int {
	return strings.Count(text[:offset], "\n") + 1
}

// moduleRoot returns the folder above the working directory that holds go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// trackedFiles returns the files git tracks under root, slash-separated and relative to
// it; outside a git checkout, every file under root but those of .git.
func trackedFiles(t *testing.T, root string) []string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files = append(files, f)
			}
		}
		return files
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// readmeMaxLines bounds the README: what a newcomer reads first. The rest belongs in
// docs/, linked from it.
const readmeMaxLines = 300

// TestREADMEIsShort checks that the README stays within readmeMaxLines lines.
func TestREADMEIsShort(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail into docs/ and link it", n, readmeMaxLines)
	}
}
