package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/retrygen/retrygen/internal/corpus"
)

// longEnv turns on the slow suites, as gen/internal/spectest.LongEnv does for gen.
const longEnv = "RETRYGEN_LONG"

// long reports whether RETRYGEN_LONG=1 asks for the whole corpus.
func long() bool { return os.Getenv(longEnv) == "1" }

// onlyEnv narrows a run to the specs whose report name contains its value, e.g.
// RETRYGEN_CONFORMANCE_SPEC=stripe; the report is then checked for those specs only.
const onlyEnv = "RETRYGEN_CONFORMANCE_SPEC"

// smallSpec is the size under which a shared spec is part of the default run.
const smallSpec = 64 << 10

// specFile is one spec of the corpus.
type specFile struct {
	Name string // as the report shows it, e.g. "specs/openai.yaml"
	Path string // the file, relative to this package
	Pkg  string // the generated client's package name
}

// specFiles lists the specs to check: the petstore example, the golden cases and the
// shared specs (history/ included); without RETRYGEN_LONG=1, only the shared specs under
// smallSpec bytes.
func specFiles() ([]specFile, error) {
	files := []specFile{{Name: "examples/petstore/petstore.yaml", Path: "../examples/petstore/petstore.yaml", Pkg: "petstore"}}
	golden, err := filepath.Glob("../testdata/golden/*/spec.yaml")
	if err != nil {
		return nil, err
	}
	slices.Sort(golden)
	for _, g := range golden {
		name := filepath.Base(filepath.Dir(g))
		files = append(files, specFile{Name: "testdata/golden/" + name + "/spec.yaml", Path: g, Pkg: "golden" + packageName(name)})
	}
	var shared []specFile
	if sharedSpecs, ok := corpus.Find(); ok {
		err = filepath.WalkDir(sharedSpecs, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			ext := filepath.Ext(path)
			if d.IsDir() || ext != ".yaml" && ext != ".yml" && ext != ".json" {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if !long() && info.Size() >= smallSpec {
				return nil
			}
			rel, err := filepath.Rel(sharedSpecs, path)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			shared = append(shared, specFile{Name: "specs/" + rel, Path: path, Pkg: "spec" + packageName(strings.TrimSuffix(rel, ext))})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(shared, func(a, b specFile) int { return strings.Compare(a.Name, b.Name) })
	files = append(files, shared...)
	if only := os.Getenv(onlyEnv); only != "" {
		files = slices.DeleteFunc(files, func(f specFile) bool { return !strings.Contains(f.Name, only) })
	}
	return files, nil
}

var nonIdent = regexp.MustCompile(`[^a-z0-9]+`)

// packageName makes a package name of a file name: "openrouter-31" gives "openrouter31".
func packageName(base string) string {
	return nonIdent.ReplaceAllString(strings.ToLower(base), "")
}

// loadDoc reads the spec as kin-openapi sees it, Swagger 2.0 converted, for sampling,
// routing and validation. The generator loads it on its own.
func loadDoc(path string, swagger2 bool) (*openapi3.T, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// kin-openapi reads JSON with its YAML parser, which breaks lines at these; the
	// escapes mean the same inside JSON strings, the only place JSON allows them.
	if json.Valid(data) {
		data = []byte(jsonLineBreaks.Replace(string(data)))
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	loc := &url.URL{Path: filepath.ToSlash(abs)}
	loader := openapi3.NewLoader()
	if swagger2 {
		var doc2 openapi2.T
		if err := openapi2.UnmarshalFromData(data, &doc2); err != nil {
			return nil, err
		}
		return openapi2conv.ToV3WithLoader(&doc2, loader, loc)
	}
	return loader.LoadFromDataWithPath(bytes.Clone(data), loc)
}

var jsonLineBreaks = strings.NewReplacer("\u0085", `\u0085`, "\u2028", `\u2028`, "\u2029", `\u2029`)

// isJSON reports a JSON media type: application/json, or any with a +json suffix.
func isJSON(mediaType string) bool {
	mt := strings.ToLower(strings.TrimSpace(strings.SplitN(mediaType, ";", 2)[0]))
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// opKey names an operation in the report, e.g. "GET /pets/{petId}".
func opKey(method, path string) string { return fmt.Sprintf("%s %s", method, path) }
