package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/internal/longtest"
)

// readmeLines returns the lines of the README that start with prefix, as written.
func readmeLines(t *testing.T, prefix string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			lines = append(lines, sc.Text())
		}
	}
	if len(lines) == 0 {
		t.Fatalf("the README has no line starting with %q", prefix)
	}
	return lines
}

// TestREADMERecipes runs the README's go:generate line and CI recipes, as written there,
// in a module of its own that uses retrygen through the tool directive: regenerating
// is clean, and -check passes in the package's folder and from the module's root, then
// fails once the spec changes.
func TestREADMERecipes(t *testing.T) {
	longtest.Only(t)
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	generateLine := readmeLines(t, "//go:generate go tool retrygen")[0]
	checkLines := readmeLines(t, "go tool retrygen -check")
	gitRecipe := readmeLines(t, "go generate ./... && git diff --exit-code")[0]

	mod := t.TempDir()
	spec, err := os.ReadFile(filepath.Join(repo, "examples", "petstore", "petstore.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	// retrygen's own requirements, so that nothing needs to be looked up.
	gomod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	_, requires, _ := strings.Cut(string(gomod), "\nrequire")
	files := map[string]string{
		"go.mod": "module example.com/app\n\ngo 1.26\n\ntool github.com/retrygen/retrygen/cmd/retrygen\n\n" +
			"require github.com/retrygen/retrygen v0.0.0\n\nreplace github.com/retrygen/retrygen => " + repo + "\n\nrequire" + requires,
		"go.sum":          string(sum),
		"api/api.yaml":    string(spec),
		"api/generate.go": "// Package api is the petstore's client.\npackage api\n\n" + generateLine + "\n",
	}
	for name, content := range files {
		path := filepath.Join(mod, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The module cache already holds what retrygen needs; nothing is downloaded.
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOPACKAGE=", "GOWORK=off")
	sh := func(dir, script string) (string, error) {
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, step := range []string{
		"go generate ./...",
		"go build ./...",
		"git init -q && git add -A && git -c user.name=t -c user.email=t@example.com commit -qm init",
	} {
		if out, err := sh(mod, step); err != nil {
			t.Fatalf("%s: %v\n%s", step, err, out)
		}
	}
	if out, err := sh(mod, gitRecipe); err != nil {
		t.Errorf("%s: %v\n%s", gitRecipe, err, out)
	}
	run := func(line string) (string, error) {
		dir := filepath.Join(mod, "api")
		if strings.Contains(line, "api/") {
			dir = mod
		}
		return sh(dir, line)
	}
	for _, line := range checkLines {
		if out, err := run(line); err != nil {
			t.Errorf("%s on a current client: %v\n%s", line, err, out)
		}
	}
	changed := strings.Replace(string(spec), "title:", "title: Changed", 1)
	if err := os.WriteFile(filepath.Join(mod, "api", "api.yaml"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, line := range checkLines {
		out, err := run(line)
		if err == nil || !strings.Contains(out, "is stale") {
			t.Errorf("%s after the spec changed: %v, want exit 1 and a diff\n%s", line, err, out)
		}
	}
}
