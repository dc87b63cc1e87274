package gen

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/internal/longtest"
	"github.com/retrygen/retrygen/internal/tempmod"
)

// What keeps a large client cheap to compile, checked on the compiler's own output for the
// golden paging and basics clients: no equality function for any of their types (each
// struct holds a noCompare field), and none of runtime/wire's helpers that every method
// calls compiled into each method (Path, Unwrap, Items stay out of line).
func TestGeneratedCodeStaysCheapToCompile(t *testing.T) {
	longtest.Heavy(t)
	dir := tempModule(t)
	for _, name := range []string{"paging", "basics"} {
		want, err := os.ReadFile(filepath.Join(goldenDir, name, "want.go"))
		if err != nil {
			t.Fatal(err)
		}
		writePackage(t, dir, name, map[string][]byte{"client_gen.go": want})

		pkg := "retrygen.test/clients/" + name
		inlined := goOutput(t, dir, "build", "-gcflags="+pkg+"=-m", "./"+name)
		for _, helper := range []string{"wire.(*Request).Path", "wire.Unwrap", "wire.Items"} {
			if strings.Contains(inlined, "inlining call to "+helper) {
				t.Errorf("%s: %s is inlined into generated methods", name, helper)
			}
		}

		archive := filepath.Join(t.TempDir(), name+".a")
		goOutput(t, dir, "build", "-o", archive, "./"+name)
		syms := goOutput(t, dir, "tool", "nm", archive)
		var eq []string
		for _, sym := range regexp.MustCompile(`type:\.eq\.`+regexp.QuoteMeta(pkg)+`\.(\w+)`).FindAllStringSubmatch(syms, -1) {
			if !fixedComparable[sym[1]] {
				eq = append(eq, sym[0])
			}
		}
		if len(eq) > 0 {
			t.Errorf("%s: the compiler wrote equality functions for generated types: %v", name, eq)
		}
	}
}

// fixedComparable are the types of the client surface that stay comparable, one of each
// per package: an error compared by errors.Is, and plain values.
var fixedComparable = map[string]bool{"Date": true, "File": true, "ResponseInfo": true, "StreamError": true}

// goOutput runs the go command in dir, offline, and returns its combined output; it fails
// the test when the command fails.
func goOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = tempmod.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
