package gen

// Resource limits (docs/reliability.md, group E, and C2): every cap is a named constant, each
// has a test of its message, and nothing a spec holds can hang the generator or blow its
// stack.

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/gen/internal/spectest"
	"github.com/retrygen/retrygen/internal/longtest"
)

// hangBound is how long a load or a generation may take before a test calls it hung. It
// is not a speed target (benchmarks measure speed): it only turns a hang into a failure.
const hangBound = 2 * time.Minute

// loadAndGenerate loads the spec at path and generates its client, failing the test if
// that does not end within hangBound.
func loadAndGenerate(t testing.TB, path string, opts LoadOptions) ([]byte, error) {
	t.Helper()
	type result struct {
		src []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Load(path, opts)
		if err != nil {
			done <- result{err: err}
			return
		}
		src, err := Generate(s, GenerateOptions{Package: "client", Command: filepath.Base(path)})
		done <- result{src, err}
	}()
	timer := time.NewTimer(hangBound)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.src, r.err
	case <-timer.C:
		t.Fatalf("%s: no result after %v", path, hangBound)
		return nil, nil
	}
}

// writeSpec writes text as name in a fresh folder and returns its path.
func writeSpec(t testing.TB, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// wantLocated fails unless err is a located rejection whose text contains want.
func wantLocated(t testing.TB, what string, err error, want string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: accepted, want an error containing %q", what, want)
		return
	}
	if lerr := locatedError(err); lerr != nil {
		t.Errorf("%s: %s", what, clip(lerr.Error()))
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%s: got %q, want it to contain %q", what, clip(err.Error()), want)
	}
}

// clip shortens text for a test message.
func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// E4: a file over load.DefaultMaxBytes is refused from its size alone, before anything of it
// is read.
func TestSpecSizeCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file: 64 MiB + 1 of zero bytes, which would not parse if it were read.
	if err := f.Truncate(load.DefaultMaxBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	_, err = Load(path, LoadOptions{})
	goruntime.ReadMemStats(&after)
	want := fmt.Sprintf("%s: file too large: %d bytes, limit %d", path, load.DefaultMaxBytes+1, load.DefaultMaxBytes)
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("refusing the file allocated %d bytes: it was read", alloc)
	}
	if load.DefaultMaxBytes != 64<<20 {
		t.Errorf("load.DefaultMaxBytes = %d, want 64 MiB as documented", load.DefaultMaxBytes)
	}
}

// E4: external files draw on the same byte budget as the spec.
func TestSpecSizeCapCountsExternalFiles(t *testing.T) {
	dir := t.TempDir()
	spectest.WriteFiles(t, dir, map[string]string{
		"api.yaml": spectest.RefSpec("./big.yaml#/Pet"),
		"big.yaml": "Pet:\n  type: object\n  description: " + strings.Repeat("x", 2000) + "\n",
	})
	_, err := Load(filepath.Join(dir, "api.yaml"), LoadOptions{AllowExternalRefs: true, MaxBytes: 1000})
	wantLocated(t, "external file over the budget", err, "file too large")
	if err != nil && !strings.Contains(err.Error(), "api.yaml:13:17: ") {
		t.Errorf("got %v, want it located at the $ref", err)
	}
}

// nestedItems is a JSON spec whose one schema nests arrays depth levels deep.
func nestedItems(depth int) string {
	return `{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{},"components":{"schemas":{"D":` +
		strings.Repeat(`{"type":"array","items":`, depth) + `{"type":"string"}` + strings.Repeat("}", depth) + `}}}`
}

// nestedProperties nests objects depth levels deep through a property.
func nestedProperties(depth int) string {
	return `{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{},"components":{"schemas":{"D":` +
		strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"type":"string"}` + strings.Repeat("}}", depth) + `}}}`
}

// E2: schemas nested inline deeper than load.DefaultMaxDepth are refused with their place;
// 9000 levels are refused the same way, without exhausting the stack.
func TestDepthCap(t *testing.T) {
	longtest.NoRace(t)
	want := fmt.Sprintf("schema nested more than %d levels deep", load.DefaultMaxDepth)
	if _, err := loadAndGenerate(t, writeSpec(t, "at-cap.json", nestedItems(load.DefaultMaxDepth)), LoadOptions{}); err != nil {
		t.Errorf("%d levels: %v", load.DefaultMaxDepth, err)
	}
	_, err := loadAndGenerate(t, writeSpec(t, "over.json", nestedItems(load.DefaultMaxDepth+1)), LoadOptions{})
	wantLocated(t, fmt.Sprintf("%d levels", load.DefaultMaxDepth+1), err, want)
	for name, text := range map[string]string{
		"items-9000.json":      nestedItems(9000),
		"properties-4500.json": nestedProperties(4500), // 9000 levels of JSON
	} {
		_, err := loadAndGenerate(t, writeSpec(t, name, text), LoadOptions{})
		wantLocated(t, name, err, want)
	}
	// Deeper than the parser's own limit.
	_, err = loadAndGenerate(t, writeSpec(t, "items-20000.json", nestedItems(20000)), LoadOptions{})
	wantLocated(t, "20000 levels", err, "exceeded max depth")
	// Deep nesting outside schemas, in an extension: nothing walks it into code.
	ext := `{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{},"x-deep":` +
		strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`
	if _, err := loadAndGenerate(t, writeSpec(t, "extension.json", ext), LoadOptions{}); err != nil {
		if lerr := locatedError(err); lerr != nil {
			t.Errorf("deep extension: %v", lerr)
		}
	}
}

// E2: a chain of a thousand schemas, each referring to the next, is no deeper than
// one: each $ref starts a new count, and the builder does not recurse along the chain.
func TestLongRefChain(t *testing.T) {
	const n = 1000
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n")
	for i := range n {
		fmt.Fprintf(&b, "    S%d: {type: object, properties: {next: {$ref: '#/components/schemas/S%d'}}}\n", i, i+1)
	}
	fmt.Fprintf(&b, "    S%d: {type: string}\n", n)
	src, err := loadAndGenerate(t, writeSpec(t, "chain.yaml", b.String()), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := typeCheckClient(src); err != nil {
		t.Error(err)
	}
}

// E1: YAML alias bombs are refused by the parser, whatever they expand into.
func TestAliasBombs(t *testing.T) {
	head := "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\n"
	laughs := func(key string) string {
		var b strings.Builder
		b.WriteString(key + "\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
		prev := "a"
		for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
			fmt.Fprintf(&b, "  %s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", name, name, prev, prev, prev, prev, prev, prev, prev, prev, prev)
			prev = name
		}
		return b.String()
	}
	merge := func() string {
		var b strings.Builder
		b.WriteString("x-merge:\n  m0: &m0 {a0: 1, a1: 1, a2: 1, a3: 1, a4: 1, a5: 1, a6: 1, a7: 1, a8: 1, a9: 1}\n")
		for i := 1; i < 9; i++ {
			fmt.Fprintf(&b, "  m%d: &m%d {", i, i)
			for j := range 10 {
				if j > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "k%d: *m%d", j, i-1)
			}
			b.WriteString("}\n")
		}
		return b.String()
	}
	for name, text := range map[string]string{
		"extension.yaml":  head + laughs("x-bomb:"),
		"components.yaml": "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\ncomponents:\n  x-bomb:\n" + strings.ReplaceAll(laughs(""), "\n  ", "\n    ")[1:],
		"mappings.yaml":   head + merge(),
	} {
		_, err := loadAndGenerate(t, writeSpec(t, name, text), LoadOptions{})
		wantLocated(t, name, err, "excessive aliasing")
	}
	// A few aliases are ordinary YAML.
	ok := head + "components:\n  schemas:\n    Name: &name {type: string}\n    Other: *name\n"
	if _, err := loadAndGenerate(t, writeSpec(t, "aliases.yaml", ok), LoadOptions{}); err != nil {
		t.Errorf("plain aliases: %v", err)
	}
}

// C2: $refs that only name each other are refused with their places, and the loader
// does not loop on them.
func TestRefCycles(t *testing.T) {
	head := "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\n"
	use := func(ref string) string {
		return "paths:\n  /a:\n    get:\n      responses:\n        \"200\":\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: '" + ref + "'}\n"
	}
	for name, text := range map[string]string{
		"self": head + use("#/components/schemas/A") + "components:\n  schemas:\n    A: {$ref: '#/components/schemas/A'}\n",
		"two":  head + use("#/components/schemas/A") + "components:\n  schemas:\n    A: {$ref: '#/components/schemas/B'}\n    B: {$ref: '#/components/schemas/A'}\n",
		"three": head + use("#/components/schemas/A") + "components:\n  schemas:\n    A: {$ref: '#/components/schemas/B'}\n" +
			"    B: {$ref: '#/components/schemas/C'}\n    C: {$ref: '#/components/schemas/A'}\n",
		"parameters": head + "paths:\n  /a:\n    get:\n      parameters: [{$ref: '#/components/parameters/P'}]\n      responses: {\"204\": {description: ok}}\n" +
			"components:\n  parameters:\n    P: {$ref: '#/components/parameters/Q'}\n    Q: {$ref: '#/components/parameters/P'}\n",
		"responses": head + "paths:\n  /a:\n    get:\n      responses: {\"200\": {$ref: '#/components/responses/R'}}\n" +
			"components:\n  responses:\n    R: {$ref: '#/components/responses/S'}\n    S: {$ref: '#/components/responses/R'}\n",
		"request bodies": head + "paths:\n  /a:\n    post:\n      requestBody: {$ref: '#/components/requestBodies/B'}\n      responses: {\"204\": {description: ok}}\n" +
			"components:\n  requestBodies:\n    B: {$ref: '#/components/requestBodies/C'}\n    C: {$ref: '#/components/requestBodies/B'}\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := loadAndGenerate(t, writeSpec(t, "cycle.yaml", text), LoadOptions{})
			if err == nil {
				t.Fatal("accepted")
			}
			if lerr := locatedError(err); lerr != nil {
				t.Error(lerr)
			}
		})
	}
}

// E3: schemas that contain themselves, directly, through each other, through allOf,
// oneOf, items and additionalProperties, generate clients that type-check. (The JSON
// round trips of recursive.yaml run in TestHostileProgram.)
func TestRecursiveSchemas(t *testing.T) {
	// cycles.yaml: schemas that stand for each other through allOf, oneOf and anyOf of
	// one or more members, as well as through items, properties and the like.
	for _, name := range []string{"recursive.yaml", "cycles.yaml"} {
		src, err := loadAndGenerate(t, filepath.Join("..", "testdata", "hostile", name), LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := typeCheckClient(src); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	more := `openapi: 3.0.3
info: {title: T, version: "1"}
paths: {}
components:
  schemas:
    List: {type: array, items: {$ref: '#/components/schemas/List'}}
    Map: {type: object, additionalProperties: {$ref: '#/components/schemas/Map'}}
    Either: {oneOf: [{$ref: '#/components/schemas/Either'}, {type: string}]}
    Both: {allOf: [{$ref: '#/components/schemas/Both'}, {type: object, properties: {a: {type: string}}}]}
    Inline:
      type: object
      required: [self]
      properties:
        self:
          type: object
          required: [back]
          properties:
            back: {$ref: '#/components/schemas/Inline'}
`
	src, err := loadAndGenerate(t, writeSpec(t, "more.yaml", more), LoadOptions{})
	if err != nil {
		if lerr := locatedError(err); lerr != nil {
			t.Fatal(lerr)
		}
		return
	}
	if err := typeCheckClient(src); err != nil {
		t.Error(err)
	}
}

// manyOperations is a spec with n operations.
func manyOperations(n int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n")
	for i := range n {
		fmt.Fprintf(&b, "  /p%d:\n    get:\n      operationId: op%d\n      responses: {\"204\": {description: ok}}\n", i, i)
	}
	return b.String()
}

// bigEnum is a spec with one enum of n values.
func bigEnum(n int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n    E:\n      type: string\n      enum:\n")
	for i := range n {
		fmt.Fprintf(&b, "        - v%d\n", i)
	}
	return b.String()
}

// E4: more than load.MaxOperations operations, or an enum of more than load.MaxEnumValues values,
// is refused with a located "limit exceeded".
func TestWidthCaps(t *testing.T) {
	if load.MaxOperations != 10000 || load.MaxEnumValues != 10000 {
		t.Errorf("caps are %d operations and %d enum values; docs/cli.md and this test say 10000", load.MaxOperations, load.MaxEnumValues)
	}
	_, err := Load(writeSpec(t, "ops.yaml", manyOperations(load.MaxOperations+1)), LoadOptions{})
	wantLocated(t, "operations", err, fmt.Sprintf("ops.yaml:3:1: #/paths: limit exceeded: %d operations, more than %d", load.MaxOperations+1, load.MaxOperations))
	_, err = Load(writeSpec(t, "enum.yaml", bigEnum(load.MaxEnumValues+1)), LoadOptions{})
	wantLocated(t, "enum", err, fmt.Sprintf("enum.yaml:6:5: limit exceeded: enum of %d values, more than %d", load.MaxEnumValues+1, load.MaxEnumValues))
	if _, err := Load(writeSpec(t, "enum.yaml", bigEnum(load.MaxEnumValues)), LoadOptions{}); err != nil {
		t.Errorf("an enum of exactly %d values: %v", load.MaxEnumValues, err)
	}
}

// E4: names and values of 10,000 characters give a client whose identifiers are cut to
// names.MaxNameLen and whose literals hold the text whole.
func TestLongNames(t *testing.T) {
	long := strings.Repeat("a", 10000)
	spec := fmt.Sprintf(`openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /%[1]s/{%[1]s}:
    get:
      operationId: %[1]s
      parameters:
        - {name: %[1]s, in: path, required: true, schema: {type: string}}
        - {name: %[1]s, in: query, schema: {type: string}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/%[1]s'}
components:
  schemas:
    %[1]s:
      type: object
      properties:
        %[1]s: {type: string, enum: [%[1]s, b%[1]s]}
`, long)
	src, err := loadAndGenerate(t, writeSpec(t, "long.yaml", spec), LoadOptions{})
	if err != nil {
		t.Fatal(clip(err.Error()))
	}
	if err := typeCheckClient(src); err != nil {
		t.Error(err)
	}
	f, err := clientChecks(t, src)
	if err != nil {
		t.Fatal(err)
	}
	lits, _ := literalValues(f)
	found := 0
	for _, v := range lits {
		if strings.Contains(v, long) {
			found++
		}
	}
	if found < 3 {
		t.Errorf("%d literals hold the 10,000-character text, want the path, the query name and the enum values", found)
	}
	longest := 0
	for _, id := range identifiers(f) {
		longest = max(longest, utf8.RuneCountInString(id))
	}
	// A name is cut at names.MaxNameLen; an identifier joins at most three of them here (the
	// schema, its property and the enum value), plus a short suffix.
	if longest > 3*names.MaxNameLen+10 {
		t.Errorf("an identifier of %d characters, more than three names cut at %d", longest, names.MaxNameLen)
	}
	if len(src) > 1<<20 {
		t.Errorf("client of %d bytes for a spec of %d", len(src), len(spec))
	}
}

// BenchmarkHugeSpecs measures refusing the inputs of docs/reliability.md E4 that exceed the
// caps: 50,000 operations and an enum of 1,000,000 values. Run with:
//
//	go test -run '^$' -bench BenchmarkHugeSpecs -benchmem -benchtime 1x ./gen/
func BenchmarkHugeSpecs(b *testing.B) {
	for name, text := range map[string]string{
		"operations-50000": manyOperations(50000),
		"enum-1000000":     bigEnum(1000000),
	} {
		path := writeSpec(b, name+".yaml", text)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				_, err := Load(path, LoadOptions{})
				if err == nil || !strings.Contains(err.Error(), "limit exceeded") {
					b.Fatalf("got %v, want the limit", err)
				}
			}
		})
	}
}

// E4: a chain of allOf schemas, each copying its parents' properties into itself, asks
// for a quadratic number of struct fields; past build.MaxFields the spec is refused,
// located at the schema that crossed the limit, before anything is emitted.
func TestAllOfChainIsCapped(t *testing.T) {
	longtest.NoRace(t)
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n")
	b.WriteString("    S0: {type: object, properties: {p0: {type: string}}}\n")
	for i := 1; i < 700; i++ {
		fmt.Fprintf(&b, "    S%d: {allOf: [{$ref: '#/components/schemas/S%d'}, {type: object, properties: {p%d: {type: string}}}]}\n", i, i-1, i)
	}
	_, err := loadAndGenerate(t, writeSpec(t, "chain.yaml", b.String()), LoadOptions{})
	wantLocated(t, "allOf chain", err, "limit exceeded: the client would have more than 200000 struct fields (the count reaches 200")
	if err != nil && !strings.Contains(err.Error(), "chain.yaml:642:5: #/components/schemas/S636: ") {
		t.Errorf("got %v, want it at S636", err)
	}
}

// discriminatedUnion is a spec with one union of n variants, each named by a mapping.
func discriminatedUnion(n int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n")
	b.WriteString("    U:\n      discriminator:\n        propertyName: kind\n        mapping:\n")
	for i := range n {
		fmt.Fprintf(&b, "          k%d: '#/components/schemas/V%d'\n", i, i)
	}
	b.WriteString("      oneOf:\n")
	for i := range n {
		fmt.Fprintf(&b, "        - $ref: '#/components/schemas/V%d'\n", i)
	}
	for i := range n {
		fmt.Fprintf(&b, "    V%d: {type: object, properties: {kind: {type: string}}}\n", i)
	}
	return b.String()
}

// A union's discriminator mapping is read once, not once per variant: building four
// times the variants allocates about four times as much, where reading the mapping per
// variant made it sixteen (a mapping of 9,000 variants took 20 s).
func TestDiscriminatorMappingIsLinear(t *testing.T) {
	longtest.NoRace(t)
	alloc := func(n int) uint64 {
		path := writeSpec(t, fmt.Sprintf("union%d.yaml", n), discriminatedUnion(n))
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		if _, err := Load(path, LoadOptions{}); err != nil {
			t.Fatal(err)
		}
		goruntime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(500), alloc(2000)
	t.Logf("500 variants: %d bytes; 2,000: %d", small, large)
	if ratio := float64(large) / float64(small); ratio > 8 {
		t.Errorf("2,000 variants allocate %.1f times what 500 do (%d and %d bytes): more than linear", ratio, large, small)
	}
}
