package load

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/spectest"
)

// sameNamedSpec writes a description whose n components are each a $ref to a file that
// defines a different schema named Pet, and returns its path.
func sameNamedSpec(t *testing.T, n int) string {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	var root strings.Builder
	root.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n  /o:\n    get:\n      operationId: getO\n" +
		"      responses:\n        \"200\":\n          description: ok\n          content:\n            application/json:\n" +
		"              schema: {$ref: \"#/components/schemas/P0\"}\ncomponents:\n  schemas:\n")
	for i := range n {
		file := fmt.Sprintf("Pet: {type: object, properties: {a: {type: string}, z: {type: string, enum: [v%d]}}}\n", i)
		if err := os.WriteFile(filepath.Join(dir, "c", fmt.Sprintf("p%d.yaml", i)), []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&root, "    P%d: {$ref: \"c/p%d.yaml#/Pet\"}\n", i, i)
	}
	path := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(path, []byte(root.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Files that each define a schema under the same last pointer step ("Pet", as
// per-resource files do) are hoisted as Pet, Pet-2, ..., Pet-N. Finding whether one has
// the content of one named before, and the next free name, takes work that does not
// grow with the components of that name: the allocations of the load grow with the
// files (about 4 times for 4 times the files), not with their square.
func TestSameNamedComponentsHoistInLinearWork(t *testing.T) {
	mallocs := func(n int) uint64 {
		path := sameNamedSpec(t, n)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := Load(path, Options{AllowExternalRefs: true}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs
	}
	small, large := mallocs(400), mallocs(1600)
	t.Logf("%d allocations for 400 files, %d for 1600", small, large)
	if large > 6*small { // linear: about 4 times; quadratic: about 16 times
		t.Fatalf("%d allocations for 400 files, %d for 1600 (x%.1f): quadratic in the files", small, large, float64(large)/float64(small))
	}
}

// hoistedSchemas loads a description of files and returns its schemas' names, sorted,
// and the $ref each property of the schema Root names.
func hoistedSchemas(t *testing.T, files map[string]string) ([]string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, files)
	s, err := Load(filepath.Join(dir, "spec.yaml"), Options{AllowExternalRefs: true})
	if err != nil {
		t.Fatal(err)
	}
	names := keys(s.Doc.Components.Schemas)
	slices.Sort(names)
	refs := map[string]string{}
	for name, p := range s.Doc.Components.Schemas["Root"].Value.Properties {
		refs[name] = p.Ref
	}
	return names, refs
}

// rootWithProperties is a description whose schema Root has a property by each $ref.
func rootWithProperties(refs ...string) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n    Root:\n      type: object\n      properties:\n")
	for i, ref := range refs {
		fmt.Fprintf(&b, "        p%d: {$ref: %q}\n", i, ref)
	}
	return b.String()
}

// A hoisted component takes the first free name of base, base-2, base-3 ...; one whose
// content, its $refs resolved, is that of a component of one of those names before the
// first free one is kept once, under that name, whichever base name that one had.
func TestHoistedNamesAndSameContent(t *testing.T) {
	names, refs := hoistedSchemas(t, map[string]string{
		"spec.yaml": rootWithProperties("a.yaml#/Pet", "b.yaml#/Pet", "c.yaml#/Pet", "d.yaml#/Pet-3", "e.yaml#/Pet", "f.yaml#/Pet"),
		"a.yaml":    "Pet: {type: string}\n",
		"b.yaml":    "Pet: {type: integer}\n",
		"c.yaml":    "Pet: {type: string}\n",   // a.yaml's: kept once
		"d.yaml":    "Pet-3: {type: number}\n", // a name of Pet's line, written so
		"e.yaml":    "Pet: {type: number}\n",   // d.yaml's
		"f.yaml":    "Pet: {type: boolean}\n",  // new: the first free name
	})
	if want := []string{"Pet", "Pet-2", "Pet-3", "Pet-4", "Root"}; !slices.Equal(names, want) {
		t.Errorf("schemas %v, want %v", names, want)
	}
	want := map[string]string{"p0": "Pet", "p1": "Pet-2", "p2": "Pet", "p3": "Pet-3", "p4": "Pet-3", "p5": "Pet-4"}
	for p, name := range want {
		if refs[p] != "#/components/schemas/"+name {
			t.Errorf("%s: $ref %q, want %s", p, refs[p], name)
		}
	}
}

// A component hoisted from a key of another file is named after the key, not its
// spelling in the $ref: JSON pointer escapes ("~1" for "/", "~0" for "~") and
// percent-encoding are undone first. Keys are free in other files but a component's name
// is not (^[a-zA-Z0-9.\-_]+$): each character it does not allow becomes "_", so that
// no error names a component the author never wrote.
func TestHoistedNamesFromEscapedSteps(t *testing.T) {
	names, refs := hoistedSchemas(t, map[string]string{
		"spec.yaml":   rootWithProperties("a.yaml#/a~1b", "a.yaml#/my%20pet", "a.yaml#/t~0x", "a.yaml#/Ünï", "my pet.yaml", "a.yaml#/a_b"),
		"a.yaml":      "a/b: {type: string}\nmy pet: {type: integer}\nt~x: {type: boolean}\nÜnï: {type: number}\na_b: {type: object}\n",
		"my pet.yaml": "type: array\n",
	})
	if want := []string{"Root", "_n_", "a_b", "a_b-2", "my_pet", "my_pet-2", "t_x"}; !slices.Equal(names, want) {
		t.Errorf("schemas %v, want %v", names, want)
	}
	want := map[string]string{"p0": "a_b", "p1": "my_pet", "p2": "t_x", "p3": "_n_", "p4": "my_pet-2", "p5": "a_b-2"}
	for p, name := range want {
		if refs[p] != "#/components/schemas/"+name {
			t.Errorf("%s: $ref %q, want %s", p, refs[p], name)
		}
	}
}
