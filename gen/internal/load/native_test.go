package load

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/internal/spectest"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
	"go.yaml.in/yaml/v4"
)

// decoded is a root file decoded by kin-openapi's own loader and by decodeTree.
type decoded struct {
	kin, native       *openapi3.T
	kinErr, nativeErr error
	ok                bool          // whether decodeTree decoded it (else it left it to the loader)
	files             *source.Files // what decodeTree was given, the fields of native's origins found through
}

// decodeBoth decodes the root file at path, holding data, as Load would with each: by
// kin-openapi's LoadFromDataWithPath (origins on) from the text, and by decodeTree from
// the tree. A file the YAML parser refuses, or whose text was written with columns moved,
// is not decoded by decodeTree.
func decodeBoth(t testing.TB, path string, data []byte) decoded {
	t.Helper()
	text, edits := yamlSafeJSON(data)
	s := &Spec{Path: path, Files: source.NewFiles(path)}
	parserText := s.forParser(text)
	location := &url.URL{Path: filepath.ToSlash(path)}
	newLoader := func() *openapi3.Loader {
		l := openapi3.NewLoader()
		l.IncludeOrigin = true
		return l
	}
	var d decoded
	d.kin, d.kinErr = newLoader().LoadFromDataWithPath(parserText, location)
	root, err := parseTree(data)
	if err != nil || len(edits) > 0 {
		return d
	}
	s.Files.SetTree(source.URIOf(path), root)
	tree, _ := s.Files.Tree(source.URIOf(path))
	d.files = s.Files
	d.native, d.ok, d.nativeErr = decodeTree(newLoader(), root, s.Files, tree, text, parserText, location)
	return d
}

// check fails t when decodeTree decoded the file into something other than what
// kin-openapi's loader decodes, origins included, or failed otherwise.
func (d decoded) check(t testing.TB, name string) {
	t.Helper()
	if !d.ok {
		return
	}
	if fmt.Sprint(d.kinErr) != fmt.Sprint(d.nativeErr) {
		t.Errorf("%s: error\n  kin-openapi: %v\n  decodeTree:  %v", name, d.kinErr, d.nativeErr)
		return
	}
	if d.kinErr != nil {
		return
	}
	if diffs := diffDocs(d.kin, d.native, d.files); len(diffs) > 0 {
		t.Errorf("%s: decodeTree's document differs from kin-openapi's:\n  %s", name, strings.Join(diffs, "\n  "))
	}
}

// diffDocs returns the differences between a, a document kin-openapi decoded, and b, one
// decoded from the tree, every field compared, the unexported ones too, but two that
// decodeTree cannot set, both unexported: the location of the file the loader records on
// the root (nothing reads it but InternalizeRefs), and the origin of the schema a
// SchemaRef decodes the fields written next to its $ref into (nothing reads it: the
// loader copies the fields it applies, not the origin, and a schema of 3.1 fields that
// hold objects is left to the loader, native.go). Of an origin, b records the Key, and
// Fields only where kin-openapi reads them (an Example's); the rest of its Fields are
// compared as bFiles finds them (source.Files.OriginFields, which FieldLocation reads),
// and the Sequences, which nothing reads, are not recorded.
func diffDocs(a, b *openapi3.T, bFiles *source.Files) []string {
	d := &differ{seen: map[[2]uintptr]bool{}, files: bFiles}
	d.diff("doc", reflect.ValueOf(a), reflect.ValueOf(b))
	return d.diffs
}

type differ struct {
	seen  map[[2]uintptr]bool
	diffs []string
	files *source.Files // b's
}

// origin compares two origins: b's Fields as d.files finds them.
func (d *differ) origin(path string, a, b *openapi3.Origin) {
	d.diff(path+".Key", reflect.ValueOf(a.Key), reflect.ValueOf(b.Key))
	fields := d.files.OriginFields(b)
	d.diff(path+".Fields", reflect.ValueOf(a.Fields), reflect.ValueOf(fields))
	for _, loc := range a.Fields {
		if got, ok := d.files.FieldLocation(b, loc.Name); !ok || got != loc {
			d.add(path+".Fields", "%q found at %+v (%v), recorded at %+v", loc.Name, got, ok, loc)
		}
	}
	if _, ok := d.files.FieldLocation(b, "no such field"); ok {
		d.add(path+".Fields", "a field that is not there found")
	}
}

func (d *differ) add(path, format string, args ...any) {
	if len(d.diffs) < 20 {
		d.diffs = append(d.diffs, path+": "+fmt.Sprintf(format, args...))
	}
}

func (d *differ) diff(path string, a, b reflect.Value) {
	if len(d.diffs) >= 20 {
		return
	}
	if a.Type() != b.Type() {
		d.add(path, "type %v against %v", a.Type(), b.Type())
		return
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				d.add(path, "nil %v against nil %v", a.IsNil(), b.IsNil())
			}
			return
		}
	}
	switch a.Kind() {
	case reflect.Pointer:
		key := [2]uintptr{a.Pointer(), b.Pointer()}
		if d.seen[key] {
			return
		}
		d.seen[key] = true
		if a.Type() == originPtrType {
			d.origin(path, (*openapi3.Origin)(a.UnsafePointer()), (*openapi3.Origin)(b.UnsafePointer())) // reached through unexported fields too
			return
		}
		d.diff(path, a.Elem(), b.Elem())
	case reflect.Interface:
		d.diff(path, a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			name := a.Type().Field(i).Name
			switch {
			case a.Type() == docType && name == "url":
				continue
			case a.Type() == schemaRefType && name == "sibling" && !a.Field(i).IsNil() && !b.Field(i).IsNil():
				x, y := a.Field(i).Elem(), b.Field(i).Elem()
				for j := range x.NumField() {
					if f := x.Type().Field(j).Name; f != "Origin" {
						d.diff(path+".sibling."+f, x.Field(j), y.Field(j))
					}
				}
				continue
			}
			d.diff(path+"."+name, a.Field(i), b.Field(i))
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			d.add(path, "%d items against %d", a.Len(), b.Len())
			return
		}
		for i := range a.Len() {
			d.diff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
		}
	case reflect.Map:
		if a.Len() != b.Len() {
			d.add(path, "%d entries against %d", a.Len(), b.Len())
			return
		}
		if a.Type().Key().Kind() != reflect.String {
			d.add(path, "map keyed by %v", a.Type().Key())
			return
		}
		keys := a.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			key := reflect.ValueOf(k.String()).Convert(a.Type().Key())
			bv := b.MapIndex(key)
			if !bv.IsValid() {
				d.add(path, "no entry %q", k.String())
				continue
			}
			d.diff(fmt.Sprintf("%s[%q]", path, k.String()), a.MapIndex(key), bv)
		}
	case reflect.Func:
		d.add(path, "a function")
	case reflect.String:
		if a.String() != b.String() {
			d.add(path, "%q against %q", a.String(), b.String())
		}
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			d.add(path, "%v against %v", a.Bool(), b.Bool())
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if a.Int() != b.Int() {
			d.add(path, "%d against %d", a.Int(), b.Int())
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if a.Uint() != b.Uint() {
			d.add(path, "%d against %d", a.Uint(), b.Uint())
		}
	case reflect.Float32, reflect.Float64:
		if x, y := a.Float(), b.Float(); x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
			d.add(path, "%v against %v", x, y)
		}
	default:
		d.add(path, "kind %v not compared", a.Kind())
	}
}

// The differential test: every description of the corpus and of the repository's test
// data that decodeTree decodes, it decodes into the document kin-openapi's own loader
// does, every origin included (place, name and end of each key, field and list item).
// The corpus files over 1 MiB (stripe.yaml, github.json, openai.yaml and others, some
// seconds each) are compared with RETRYGEN_LONG=1.
func TestDecodeTreeMatchesLoader(t *testing.T) {
	files := specFiles(t)
	native := 0
	for _, path := range files {
		if !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".json") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) > 1<<20 && !longtest.On() {
			continue
		}
		d := decodeBoth(t, path, data)
		d.check(t, path)
		if d.ok {
			native++
		} else if strings.Contains(path, "shared") {
			t.Logf("%s: left to the loader", path)
		}
	}
	if native < 50 {
		t.Errorf("decodeTree decoded %d of %d files; want most of them", native, len(files))
	}
}

// decodeTree decodes random descriptions, written as YAML and as JSON, as kin-openapi's
// loader does: 120 of them, 1,000 with RETRYGEN_LONG=1.
func TestDecodeTreeMatchesLoaderSeeded(t *testing.T) {
	dir := t.TempDir()
	native, failed, n := 0, 0, 120
	if longtest.On() {
		n = 1000
	}
	for seed := range uint64(n) {
		g := newDocGen(seed, seed%3 == 2)
		text := g.render(g.document())
		path := filepath.Join(dir, fmt.Sprintf("seed%d.yaml", seed))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		d := decodeBoth(t, path, []byte(text))
		if t.Failed() {
			t.Fatalf("seed %d:\n%s", seed, text)
		}
		d.check(t, fmt.Sprintf("seed %d", seed))
		if t.Failed() {
			t.Fatalf("seed %d:\n%s", seed, text)
		}
		if d.ok {
			native++
			if d.kinErr != nil {
				failed++
			}
		}
	}
	t.Logf("%d of %d decoded by decodeTree, %d of them refused by both", native, n, failed)
	if native < n/2 {
		t.Errorf("decodeTree decoded %d of %d random descriptions; want most", native, n)
	}
}

// decodeTree readies the tree's scalars as kin-openapi readies its own, and leaves to
// it the trees whose decoding or $refs depend on what its loader keeps to itself; each
// document is decoded by both and compared.
func TestDecodeTreeAsLoader(t *testing.T) {
	const head = "openapi: 3.1.0\ninfo: {title: T, version: '1'}\n"
	for _, c := range []struct {
		name, doc string
		native    bool
		check     func(*openapi3.T) string
	}{
		{"application tag", head + "paths: {}\ncomponents:\n  schemas:\n    A: {type: string, description: !md hello}\n", true,
			func(d *openapi3.T) string { return d.Components.Schemas["A"].Value.Description }},
		{"timestamp", head + "paths: {}\ncomponents:\n  schemas:\n    A: {type: string, example: 2020-06-11T16:32:50-03:00}\n", true,
			func(d *openapi3.T) string {
				return fmt.Sprintf("%T %v", d.Components.Schemas["A"].Value.Example, d.Components.Schemas["A"].Value.Example)
			}},
		{"keys as written", head + "paths: {}\nx-codes: {0x1F: a, 1_0: b, .5: c, true: d}\n", true,
			func(d *openapi3.T) string { return fmt.Sprint(d.Extensions["x-codes"]) }},
		{"infinity", head + "paths: {}\nx-n: .inf\n", false, nil},
		{"NaN", head + "paths: {}\nx-n: .NaN\n", false, nil},
		{"null key", head + "paths: {}\nx-m: {~: a}\n", false, nil},
		{"anchor and alias", head + "paths: {}\ncomponents:\n  schemas:\n    A: &a {type: string}\n    B: *a\n", false, nil},
		{"merge key", head + "paths: {}\ncomponents:\n  schemas:\n    A: {<<: {type: string}}\n", false, nil},
		{"another file", head + "paths: {}\ncomponents:\n  schemas:\n    A: {$ref: 'other.yaml#/B'}\n", false, nil},
		{"the root file by name", head + "paths: {}\ncomponents:\n  schemas:\n    A: {$ref: 'api.yaml#/components/schemas/B'}\n    B: {type: string}\n", false, nil},
		{"an extension", head + "paths: {}\nx-defs: {B: {type: string}}\ncomponents:\n  schemas:\n    A: {$ref: '#/x-defs/B'}\n", false, nil},
		{"a path's extension", head + "paths: {x-p: {description: d}}\ncomponents:\n  responses:\n    A: {$ref: '#/paths/x-p'}\n", false, nil},
		{"an undeclared key", head + "paths: {}\ndefinitions: {B: {type: string}}\ncomponents:\n  schemas:\n    A: {$ref: '#/definitions/B'}\n", false, nil},
		{"a mapping to another file", head + "paths: {}\ncomponents:\n  schemas:\n    A: {oneOf: [{$ref: '#/components/schemas/B'}], discriminator: {propertyName: k, mapping: {b: 'other.yaml#/B'}}}\n    B: {type: object}\n", false, nil},
		{"a schema next to a $ref", head + "paths: {}\ncomponents:\n  schemas:\n    A: {$ref: '#/components/schemas/B', properties: {p: {type: string}}}\n    B: {type: object}\n", false, nil},
		{"a description next to a $ref", head + "paths: {}\ncomponents:\n  schemas:\n    A: {$ref: '#/components/schemas/B', description: d}\n    B: {type: object}\n", true,
			func(d *openapi3.T) string { return d.Components.Schemas["A"].Value.Description }},
		{"a typed $ref", head + "paths: {}\ncomponents:\n  schemas:\n    A: {$ref: '#/components/schemas/B/properties/p/items'}\n    B: {properties: {p: {items: {type: integer}}}}\n", true,
			func(d *openapi3.T) string { return fmt.Sprint(d.Components.Schemas["A"].Value.Type) }},
		{"a discriminator mapping", head + "paths: {}\ncomponents:\n  schemas:\n    A: {oneOf: [{$ref: '#/components/schemas/B'}], discriminator: {propertyName: k, mapping: {b: '#/components/schemas/B'}}}\n    B: {type: object}\n", true,
			func(d *openapi3.T) string {
				return fmt.Sprint(d.Components.Schemas["A"].Value.Discriminator.Mapping["b"].Value == nil)
			}},
		{"entries decoded one at a time", head + "paths:\n  /a: {get: {responses: {'200': {description: ok}}}}\n  x-p: {d: 1}\n  /b:\n  x-q: 2\n" +
			"components:\n  x-c: 3\n  schemas:\n    A: {type: string}\n    x-s: {type: integer}\n  examples:\n    E: {value: 1}\n  securitySchemes: {}\n", true,
			func(d *openapi3.T) string {
				return fmt.Sprint(d.Paths.Len(), d.Paths.Value("/b") == nil, d.Paths.Extensions, len(d.Components.Schemas),
					d.Components.Extensions, d.Components.Examples["E"].Value.Value, d.Components.SecuritySchemes != nil)
			}},
		{"keys named as no field is", head + "paths: {}\ncomponents:\n  x-owner: team-a\n  \"-\": {x-owner: team-b, description: d}\n" +
			"  \"\": {A: {type: string}}\n  Extensions: {x-a: 1}\n  Origin: {x-b: 2}\n  Schemas: {B: {type: string}}\n" +
			"  schemas: {S: {type: string}}\n  SCHEMAS: {C: {type: string}}\n  x-: {D: 1}\n", true,
			func(d *openapi3.T) string { return fmt.Sprint(d.Components.Extensions, len(d.Components.Schemas)) }},
		{"a $ref of components", head + "paths: {}\ncomponents: {$ref: '#/info', x-a: 1}\n", true,
			func(d *openapi3.T) string { return fmt.Sprint(d.Components.Extensions) }},
		{"keys named as no field is, elsewhere", head + "paths:\n  \"-\": {description: d}\n  \"\": {}\n  Extensions: {x-a: 1}\n" +
			"  /a: {get: {\"-\": {x-a: 1}, Responses: {}, responses: {\"-\": {description: d}, Default: {description: e}}}, Get: {}}\n" +
			"components:\n  schemas:\n    A: {type: string, \"-\": {type: integer}, Type: integer, Extensions: {x-a: 1}, origin: {}, __origin__: {}, \"\": 1}\n", true,
			func(d *openapi3.T) string {
				return fmt.Sprint(d.Paths.Len(), d.Components.Schemas["A"].Value.Extensions, d.Paths.Value("/a").Get.Extensions)
			}},
		{"a repeated path", head + "paths:\n  /a: {}\n  /a: {description: d}\n", true,
			func(d *openapi3.T) string { return fmt.Sprint(d.Paths.Len(), d.Paths.Value("/a").Description) }},
		{"a repeated schema", head + "paths: {}\ncomponents:\n  schemas:\n    A: {}\n    A: {}\n", false, nil},
		{"U+0085", head + "paths: {}\ninfo: {title: \"a\u0085b\", version: '1'}\n", false, nil},
		{"a flow document", "{openapi: 3.0.3, info: {title: T, version: '1'},\n paths: {/p: {get: {responses: {'200': {description: ok}}}}}}\n", true,
			func(d *openapi3.T) string { return fmt.Sprint(d.Paths.Value("/p").Get.Origin.Key.Column) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "api.yaml")
			if err := os.WriteFile(path, []byte(c.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			d := decodeBoth(t, path, []byte(c.doc))
			if d.ok != c.native {
				t.Fatalf("decodeTree decoded it: %v, want %v (%v)", d.ok, c.native, d.nativeErr)
			}
			d.check(t, c.name)
			if c.check != nil && d.kin != nil && d.native != nil {
				if got, want := c.check(d.native), c.check(d.kin); got != want {
					t.Errorf("decodeTree: %s, kin-openapi: %s", got, want)
				} else {
					t.Logf("%s", got)
				}
			}
		})
	}
}

// FuzzDecodeTree holds decodeTree to kin-openapi's loader on every document it decodes:
// the same document, origins included, or the same error.
func FuzzDecodeTree(f *testing.F) {
	for seed := range uint64(6) {
		g := newDocGen(seed, seed%3 == 2)
		f.Add(g.render(g.document()))
	}
	f.Add("openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths: {}\nx-a: !foo {1: 2020-01-01}\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, doc string) {
		data := []byte(doc)
		if !utf8.Valid(data) || checkDocuments("api.yaml", data) != nil {
			return // Load refuses it before
		}
		if root, err := parseTree(data); err != nil || root == nil || newGuard(func(n *yaml.Node) source.Pos { return source.Pos{} }).check(root) != nil {
			return
		}
		path := filepath.Join(dir, "api.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		decodeBoth(t, path, data).check(t, fmt.Sprintf("%q", doc))
	})
}

// Load gives the same Spec whether it decodes the root file's tree (or the tree of the
// text the bundle and overlay steps write) or lets kin-openapi parse the text: the
// document, the errors and the warnings, for every description of the repository's test
// data and of the corpus (the files over 1 MiB with RETRYGEN_LONG=1), overlaid, and
// written across several files.
func TestLoadDecodesTreeAsLoader(t *testing.T) {
	type loadCase struct {
		path     string
		overlays []string
	}
	var cases []loadCase
	for _, dir := range []string{"testdata", filepath.Join("gen", "testdata")} {
		filepath.WalkDir(filepath.Join("..", "..", "..", dir), func(path string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".json")) {
				cases = append(cases, loadCase{path: path})
			}
			return nil
		})
	}
	tmp := t.TempDir()
	spectest.WriteFiles(t, tmp, map[string]string{
		"api.yaml": spectest.RefSpec("#/components/schemas/Pet") + "components:\n  schemas:\n    Pet: {type: object, required: [id], properties: {id: {type: integer}}}\n",
		"overlay.yaml": "overlay: 1.0.0\ninfo: {title: o, version: '1'}\nactions:\n" +
			"  - target: $.paths['/pets'].get\n    update:\n      x-retry: {maxAttempts: 3}\n      description: |\n        two\n        lines\n",
	})
	cases = append(cases, loadCase{filepath.Join(tmp, "api.yaml"), []string{filepath.Join(tmp, "overlay.yaml")}})
	if dir, ok := corpus.Find(); ok {
		names, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, name := range names {
			cases = append(cases, loadCase{path: name})
		}
		examples := filepath.Join("..", "..", "..", "examples", "overlays")
		cases = append(cases,
			loadCase{filepath.Join(dir, "stripe.yaml"), []string{filepath.Join(examples, "stripe-keys.yaml")}},
			loadCase{filepath.Join(dir, "openai.yaml"), []string{filepath.Join(examples, "openai-retries.yaml")}})
		if longtest.On() {
			cases = append(cases, loadCase{path: filepath.Join(dir, "..", "multifile", "digitalocean", "specification", "DigitalOcean-public.v2.yaml")})
		}
	}
	load := func(c loadCase, native bool) (*Spec, error) {
		defer func(was bool) { decodeNatively = was }(decodeNatively)
		decodeNatively = native
		return Load(c.path, Options{AllowExternalRefs: strings.Contains(c.path, "multifile"), Overlays: c.overlays})
	}
	for _, c := range cases {
		if !strings.HasSuffix(c.path, ".yaml") && !strings.HasSuffix(c.path, ".json") {
			continue
		}
		if info, err := os.Stat(c.path); err != nil || info.Size() > 1<<20 && !longtest.On() {
			continue
		}
		name := fmt.Sprint(c.path, c.overlays)
		kin, kinErr := load(c, false)
		native, nativeErr := load(c, true)
		if fmt.Sprint(kinErr) != fmt.Sprint(nativeErr) {
			t.Errorf("%s: error\n  kin-openapi: %v\n  decodeTree:  %v", name, kinErr, nativeErr)
			continue
		}
		if (kin == nil) != (native == nil) {
			t.Errorf("%s: a Spec %v against %v", name, kin != nil, native != nil)
			continue
		}
		if kin == nil {
			continue
		}
		if fmt.Sprint(kin.Warnings) != fmt.Sprint(native.Warnings) {
			t.Errorf("%s: warnings\n  kin-openapi: %v\n  decodeTree:  %v", name, kin.Warnings, native.Warnings)
		}
		if kin.Doc != nil && native.Doc != nil {
			if diffs := diffDocs(kin.Doc, native.Doc, native.Files); len(diffs) > 0 {
				t.Errorf("%s: the documents differ:\n  %s", name, strings.Join(diffs, "\n  "))
			}
		}
	}
}

// A document whose $refs the loader must resolve itself is known to be one before it is
// decoded, so that it is not decoded twice; a "$ref" that is a property's name or part of
// an example does not count.
func TestNativeTreeBeforeDecoding(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		native    bool
	}{
		{"typed refs", `{"components":{"schemas":{"A":{"$ref":"#/components/schemas/B"},"B":{"type":"string"}}}}`, true},
		{"a property named $ref", `{"components":{"schemas":{"A":{"type":"object","properties":{"$ref":{"type":"string"},"value":{"type":"string"}}}}}}`, true},
		{"a $ref in an example", `{"components":{"schemas":{"A":{"type":"object","example":{"$ref":"https://example.com/x","v":{"$ref":"#/x-s"}}}}}}`, true},
		{"a $ref in an extension", `{"x-s":{"S":{"$ref":"#/x-t"}},"components":{}}`, true},
		{"a $ref into an extension", `{"x-s":{"S":{"type":"string"}},"components":{"schemas":{"A":{"$ref":"#/x-s/S"}}}}`, false},
		{"a $ref to another file", `{"components":{"schemas":{"A":{"$ref":"other.yaml#/A"}}}}`, false},
		{"objects beside a $ref", `{"components":{"schemas":{"A":{"$ref":"#/components/schemas/B","properties":{"a":{}}},"B":{}}}}`, false},
		{"a discriminator mapping into an extension", `{"components":{"schemas":{"A":{"discriminator":{"propertyName":"k","mapping":{"b":"#/x-s/B"}}}}}}`, false},
		{"an anchor in an example", "components:\n  schemas:\n    A:\n      example: &a {b: 1}\n", false},
	} {
		var root yaml.Node
		if err := yaml.Unmarshal([]byte(c.doc), &root); err != nil {
			t.Fatal(err)
		}
		if got := nativeTree(&root); got != c.native {
			t.Errorf("%s: nativeTree = %v, want %v", c.name, got, c.native)
		}
	}
}

// typedRef reads each part of a $ref from the fields' index kept by type (taggedFields),
// not by scanning the struct's tags: a $ref of 1 MiB of "/items" scanned Schema's
// seventy-odd tags for each of its 175,000 parts, seconds per $ref, twice per $ref.
func TestTypedRefReadsFieldsFromTheIndex(t *testing.T) {
	schema := reflect.TypeFor[openapi3.Schema]()
	taggedFieldsOf.Delete(schema)
	ref := "#/components/schemas/A" + strings.Repeat("/items", 1000)
	if !typedRef(ref) {
		t.Fatalf("typedRef(%.40q...) = false, want true", ref)
	}
	if _, ok := taggedFieldsOf.Load(schema); !ok {
		t.Errorf("typedRef did not read Schema's fields from the index kept by type")
	}
	for ref, want := range map[string]bool{
		"#/components/schemas/A/additionalProperties/items": true,
		"#/components/schemas/A/properties/p/allOf/0":       true,
		"#/paths/~1a/get/responses/200":                     true,
		"#/components/schemas/A/example/x":                  false,
		"#/components/schemas/A/x-ext":                      false,
		"#/components/schemas/A/extensions":                 false,
		"#/components/schemas/A/origin":                     false,
		"#/components/schemas/A/-":                          false,
		"#/paths/x-a/get":                                   false,
	} {
		if got := typedRef(ref); got != want {
			t.Errorf("typedRef(%q) = %v, want %v", ref, got, want)
		}
	}
}

// specFiles lists the specs of the corpus, its history too (when there is one: see
// corpus.Optional), and of the repository's test data: every file whose name ends in
// .yaml, .yml or .json.
func specFiles(t *testing.T) []string {
	var files []string
	if dir, ok := corpus.Optional(t); ok {
		for _, pattern := range []string{"*", "history/*"} {
			names, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pattern)))
			files = append(files, names...)
		}
	}
	root := filepath.Join("..", "..", "..")
	for _, dir := range []string{"testdata", filepath.Join("gen", "testdata")} {
		filepath.WalkDir(filepath.Join(root, dir), func(path string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				files = append(files, path)
			}
			return nil
		})
	}
	return slices.DeleteFunc(files, func(path string) bool {
		return !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") && !strings.HasSuffix(path, ".json")
	})
}
