package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/internal/longtest"
)

// setUpBlock matches the README's set-up commands: the shell block of its section "Set up
// on a fresh machine".
var setUpBlock = regexp.MustCompile("(?s)## Set up on a fresh machine\n.*?```sh\n(.*?)```")

// TestREADMESetUp reads the README's set-up commands: the first generates the petstore
// client and runs this example, and it runs here as written, from the repository's root,
// leaving the committed client as it is; the second is CI's script.
func TestREADMESetUp(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := setUpBlock.FindSubmatch(readme)
	if block == nil {
		t.Fatal("the README has no shell block under \"Set up on a fresh machine\"")
	}
	lines := strings.Split(strings.TrimSpace(string(block[1])), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "go generate ./examples/petstore/... && go run ./examples/petstore ") ||
		!strings.HasPrefix(lines[1], "bash .ci/run ") {
		t.Fatalf("the set-up commands are not the two this test knows:\n%s", block[1])
	}
	if _, err := os.Stat(filepath.Join(root, ".ci", "run")); err != nil {
		t.Fatal(err)
	}
	longtest.Heavy(t)
	clientFile := filepath.Join(root, "examples", "petstore", "client", "client_gen.go")
	before, err := os.ReadFile(clientFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", lines[0])
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", lines[0], err, out)
	}
	if after, err := os.ReadFile(clientFile); err != nil || !bytes.Equal(before, after) {
		t.Errorf("go generate changed the committed client (%v): commit examples/petstore/client/client_gen.go", err)
	}
	// It prints the calls that TestExampleLogShowsEachRule checks, in the same order.
	var got, want []string
	for _, b := range blocks(string(out)) {
		got = append(got, b.heading)
	}
	for _, b := range blocks(runLog(t)) {
		want = append(want, b.heading)
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("the example printed the calls\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
