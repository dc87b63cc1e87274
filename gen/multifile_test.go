package gen

import (
	"strings"
	"testing"

	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
)

// TestDigitalOceanCompiles generates a client from DigitalOcean's description as its
// repository holds it, 2,907 files, with -allow-external-refs and no overlay, in files
// as the retrygen command writes them, and builds and vets it. Loading it, and the
// components it bundles to, are checked by the fast suite (gen/internal/load).
func TestDigitalOceanCompiles(t *testing.T) {
	longtest.Heavy(t)
	path := corpus.MultiFile(t, "digitalocean/specification/DigitalOcean-public.v2.yaml")
	spec, err := Load(path, LoadOptions{AllowExternalRefs: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(spec.API.Operations); n != 659 {
		t.Errorf("%d operations, want 659", n)
	}
	parts, err := GenerateFiles(spec, GenerateOptions{Package: "digitalocean", Command: "-package digitalocean -allow-external-refs DigitalOcean-public.v2.yaml"}, SplitAbove)
	if err != nil {
		t.Fatal(err)
	}
	files, lines := map[string][]byte{}, 0
	for _, p := range parts {
		files[PartName("client_gen.go", p.Part)] = p.Source
		lines += strings.Count(string(p.Source), "\n")
	}
	t.Logf("%d lines in %d files", lines, len(parts))
	dir := tempModule(t)
	writePackage(t, dir, "digitalocean", files)
	goCmd(t, dir, "build", "./...")
	goCmd(t, dir, "vet", "./...")
}
