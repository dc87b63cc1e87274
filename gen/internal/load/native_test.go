package load

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/internal/corpus"
)

// decoded is a root file decoded by kin-openapi's own loader and by decodeTree.
type decoded struct {
	kin, native       *openapi3.T
	kinErr, nativeErr error
	ok                bool // whether decodeTree decoded it (else it left it to the loader)
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
	d.native, d.ok, d.nativeErr = decodeTree(newLoader(), root, text, parserText, location)
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
	if diffs := diffDocs(d.kin, d.native); len(diffs) > 0 {
		t.Errorf("%s: decodeTree's document differs from kin-openapi's:\n  %s", name, strings.Join(diffs, "\n  "))
	}
}

// diffDocs returns the differences between two documents, every field compared, the
// unexported ones too, but two that decodeTree cannot set, both unexported: the location
// of the file the loader records on the root (nothing reads it but InternalizeRefs), and
// the origin of the schema a SchemaRef decodes the fields written next to its $ref into
// (nothing reads it: the loader copies the fields it applies, not the origin, and a
// schema of 3.1 fields that hold objects is left to the loader, native.go).
func diffDocs(a, b *openapi3.T) []string {
	d := &differ{seen: map[[2]uintptr]bool{}}
	d.diff("doc", reflect.ValueOf(a), reflect.ValueOf(b))
	return d.diffs
}

type differ struct {
	seen  map[[2]uintptr]bool
	diffs []string
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
func TestDecodeTreeMatchesLoader(t *testing.T) {
	var files []string
	if dir, ok := corpus.Find(); ok {
		names, _ := filepath.Glob(filepath.Join(dir, "*"))
		files = append(files, names...)
	} else {
		t.Logf("no spec corpus at %s: the repository's test data only", dir)
	}
	root := filepath.Join("..", "..", "..")
	for _, dir := range []string{"testdata", filepath.Join("gen", "testdata")} {
		filepath.WalkDir(filepath.Join(root, dir), func(path string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".json")) {
				files = append(files, path)
			}
			return nil
		})
	}
	native := 0
	for _, path := range files {
		if !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".json") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) > 1<<20 && testing.Short() {
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
