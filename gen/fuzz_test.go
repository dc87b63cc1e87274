package gen

// Fuzz targets of docs/reliability.md C11 and D12. Their seed corpora are the specs of the
// repository (added below) and testdata/fuzz/<target>, which every go test replays;
// .ci/fuzz fuzzes each actively, as do these:
//
//	go test -run '^$' -fuzz '^FuzzGenerate$' -fuzztime 10s ./gen/
//	go test -run '^$' -fuzz '^FuzzInjection$' -fuzztime 10s ./gen/

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"

	"github.com/retrygen/retrygen/internal/corpus"
)

// maxFuzzSpec bounds the specs FuzzGenerate tries; larger inputs only slow the fuzzer.
const maxFuzzSpec = 64 << 10

// addSpecSeeds adds every spec file of the repository's test corpora up to maxFuzzSpec.
func addSpecSeeds(f *testing.F) {
	specs, _ := corpus.Find() // when absent, its patterns match nothing
	var files []string
	for _, pattern := range []string{
		filepath.Join(goldenDir, "*", "spec.yaml"),
		filepath.Join(errorsDir, "*.*"),
		filepath.Join(malformedDir, "*"),
		filepath.Join("..", "testdata", "hostile", "*.yaml"),
		filepath.Join("..", "examples", "petstore", "*.yaml"),
		filepath.Join(specs, "oai-*"),
		filepath.Join(specs, "swagger2-*"),
	} {
		matches, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		files = append(files, matches...)
	}
	n := 0
	for _, name := range files {
		if filepath.Ext(name) == ".err" {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil || len(data) > maxFuzzSpec {
			continue
		}
		f.Add(data)
		n++
	}
	f.Add(hostileSpecText(nil))
	if n < 40 {
		f.Fatalf("only %d seed specs", n)
	}
}

// FuzzGenerate (C11) loads, plans and generates from arbitrary bytes. It must never
// panic or hang; it either refuses the spec with a located error, or returns Go that
// parses and declares no init function. Nothing is written beside the spec.
func FuzzGenerate(f *testing.F) {
	addSpecSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzSpec {
			return
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "spec.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		spec, err := Load(path, LoadOptions{})
		var src []byte
		if err == nil {
			src, err = Generate(spec, GenerateOptions{Package: "client", Command: "spec.yaml"})
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("the spec's folder holds %d entries after generating", len(entries))
		}
		if err != nil {
			if lerr := locatedError(err); lerr != nil {
				t.Fatal(clip(lerr.Error()))
			}
			return
		}
		file, err := parser.ParseFile(token.NewFileSet(), "client.go", src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("generated client does not parse: %v", err)
		}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" {
				t.Fatal("generated client declares func init")
			}
		}
	})
}

// fuzzTwins keeps the twins FuzzInjection has generated. A fuzz function runs one call
// at a time in each process, so the map needs no lock.
var fuzzTwins = map[string]*hostileTwin{}

// FuzzInjection (D12) puts arbitrary text in one field of hostileTemplate: the oracle
// of TestHostileFields must pass, and the client type-check, or the spec be refused
// with a located error.
func FuzzInjection(f *testing.F) {
	// TestHostileFields tries every payload in every field; here each seeds one field.
	for i, p := range hostilePayloads {
		f.Add(uint(i*7), p)
	}
	f.Fuzz(func(t *testing.T, field uint, payload string) {
		if len(payload) > 4<<10 {
			return
		}
		fl := hostileFields[field%uint(len(hostileFields))]
		r := &hostileRun{t: t, dir: t.TempDir(), twins: fuzzTwins}
		o := r.try([]hostileField{fl}, payload)
		if o.err != nil {
			t.Fatalf("%s: %s", fl.name, clip(o.err.Error()))
		}
		if o.accepted {
			if err := typeCheckClient(o.src); err != nil {
				t.Fatalf("%s: client does not type-check: %v", fl.name, err)
			}
		}
	})
}
