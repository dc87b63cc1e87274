// Package tempmod makes Go modules in temporary folders that build against this
// repository's working tree, offline, for the tests that compile generated clients.
package tempmod

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// New creates the module modPath in a temporary folder of t and returns the folder: its
// go.mod requires github.com/retrygen/retrygen and replaces it with the working tree
// whose root is root (a path relative to the test's package folder, e.g. ".."), and its
// go.sum is the repository's.
func New(t testing.TB, root, modPath string) string {
	t.Helper()
	root, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := fmt.Sprintf("module %s\n\ngo 1.26\n\nrequire github.com/retrygen/retrygen v0.0.0\n\nreplace github.com/retrygen/retrygen => %s\n", modPath, root)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Env is the environment of the go command in such a module: the module's requirements as
// go.sum lists them, no proxy, no workspace, the local toolchain.
func Env() []string {
	return append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
}
