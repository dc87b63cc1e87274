package gen

import (
	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrygen/retrygen/gen/internal/emit"
	"github.com/retrygen/retrygen/internal/corpus"
)

// goldenDir holds one folder per case: spec.yaml, whose info.description says what the
// case exercises, and want.go, the expected client. `go test -run TestGolden -update`
// rewrites want.go. A case may also hold client_test.go, run against the generated client
// by TestGoldenCompiles.
const goldenDir = "../testdata/golden"

// generatedHeader is Go's convention for generated files.
var generatedHeader = regexp.MustCompile(`^// Code generated .* DO NOT EDIT\.$`)

func goldenCases(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, e := range entries {
		if e.IsDir() {
			cases = append(cases, e.Name())
		}
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases")
	}
	return cases
}

// generateCase generates the client of one golden case, in a package named after it.
func generateCase(t testing.TB, name string) []byte {
	t.Helper()
	spec, err := Load(filepath.Join(goldenDir, name, "spec.yaml"), LoadOptions{})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if !strings.HasPrefix(spec.API.Description, `Golden case "`+name+`"`) {
		t.Errorf("info.description must start with %q and say what the case exercises", `Golden case "`+name+`"`)
	}
	out, err := Generate(spec, GenerateOptions{Package: name, Command: "-package " + name + " -o want.go spec.yaml"})
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	return out
}

func TestGolden(t *testing.T) {
	for _, name := range goldenCases(t) {
		t.Run(name, func(t *testing.T) {
			got := generateCase(t, name)
			if again, err := format.Source(got); err != nil || !bytes.Equal(again, got) {
				t.Errorf("generated client is not stable under gofmt (err %v)", err)
			}
			first, _, _ := bytes.Cut(got, []byte("\n"))
			if !generatedHeader.Match(first) {
				t.Errorf("first line %q does not match %v", first, generatedHeader)
			}
			wantPath := filepath.Join(goldenDir, name, "want.go")
			if *update {
				if err := os.WriteFile(wantPath, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(wantPath)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("generated client differs from %s (-want +got):\n%s", wantPath, diff)
			}
		})
	}
}

// TestGenerateDeterministic regenerates each case and expects the same bytes: nothing
// may depend on map order, time or the machine.
func TestGenerateDeterministic(t *testing.T) {
	for _, name := range goldenCases(t) {
		first := generateCase(t, name)
		for range 3 {
			if again := generateCase(t, name); !bytes.Equal(first, again) {
				t.Fatalf("%s: two generations differ", name)
			}
		}
	}
}

// TestChunkedFormatting checks that formatting the file in chunks, as Generate does, gives
// what formatting the whole file at once gives.
func TestChunkedFormatting(t *testing.T) {
	var paths []string
	for _, name := range goldenCases(t) {
		paths = append(paths, filepath.Join(goldenDir, name, "spec.yaml"))
	}
	if dir, ok := corpus.Find(); ok {
		paths = append(paths, filepath.Join(dir, "dub.json")) // a real spec, large enough for many chunks
	} else {
		t.Log("the spec corpus is absent: dub.json is not checked")
	}
	for _, path := range paths {
		spec, err := Load(path, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		api := spec.API
		opts := emit.Options{Package: "p", Command: "x"}
		chunked, err := emit.Generate(api, opts)
		if err != nil {
			t.Fatal(err)
		}
		src, err := emit.Source(api, opts)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := format.Source(src)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(whole), string(chunked)); diff != "" {
			t.Errorf("%s: chunked formatting differs (-whole +chunked):\n%s", path, diff)
		}
	}
}
