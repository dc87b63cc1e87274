package build

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/internal/corpus"
)

// inlineSchemas is every schema of the document's schema trees, components and inline
// ones, each once.
func inlineSchemas(doc *openapi3.T) []*openapi3.Schema {
	var out []*openapi3.Schema
	seen := map[*openapi3.Schema]bool{}
	var walk func(sr *openapi3.SchemaRef)
	walk = func(sr *openapi3.SchemaRef) {
		if sr == nil || sr.Value == nil || seen[sr.Value] {
			return
		}
		s := sr.Value
		seen[s] = true
		out = append(out, s)
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
		for _, group := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
			for _, m := range group {
				walk(m)
			}
		}
		walk(s.Not)
	}
	if doc.Components != nil {
		for _, sr := range doc.Components.Schemas {
			walk(sr)
		}
	}
	if doc.Paths != nil {
		for _, item := range doc.Paths.Map() {
			for _, kop := range item.Operations() {
				if kop.RequestBody != nil && kop.RequestBody.Value != nil {
					for _, mt := range kop.RequestBody.Value.Content {
						walk(mt.Schema)
					}
				}
				for _, rr := range kop.Responses.Map() {
					if rr.Value != nil {
						for _, mt := range rr.Value.Content {
							walk(mt.Schema)
						}
					}
				}
			}
		}
	}
	return out
}

// checkContentKeys holds contentKeys to json.Marshal on every schema of spec: a schema
// has a key exactly when it marshals, and two keys are equal exactly when the JSON is.
func checkContentKeys(t *testing.T, spec *load.Spec) {
	t.Helper()
	keys := newContentKeys()
	byJSON, byKey := map[string]string{}, map[string]string{}
	schemas := inlineSchemas(spec.Doc)
	for _, s := range schemas {
		data, err := json.Marshal(s)
		key, ok := keys.of(s)
		if ok != (err == nil) {
			t.Fatalf("schema %q: key %v, marshal error %v", s.Title, ok, err)
		}
		if !ok {
			continue
		}
		if k, seen := byJSON[string(data)]; seen && k != key {
			t.Fatalf("schemas of one JSON have keys %q and %q", k, key)
		}
		if j, seen := byKey[key]; seen && j != string(data) {
			t.Fatalf("key %q stands for two JSON texts:\n%s\n%s", key, j, data)
		}
		byJSON[string(data)], byKey[key] = key, string(data)
	}
	if len(byJSON) < 2 || len(byJSON) == len(schemas) {
		t.Fatalf("%d schemas, %d distinct: the spec does not test sharing", len(schemas), len(byJSON))
	}
	// Keyed by several goroutines at once, the schemas have keys as equal as one's.
	all, ok := newContentKeys().all(schemas)
	one, many := map[string]string{}, map[string]string{}
	for i, s := range schemas {
		key, good := keys.of(s)
		if good != ok[i] {
			t.Fatalf("schema %q: key %v alone, %v among several goroutines", s.Title, good, ok[i])
		}
		if k, seen := one[key]; seen && k != all[i] || many[all[i]] != "" && many[all[i]] != key {
			t.Fatalf("schema %q: keys differ in their equalities among several goroutines", s.Title)
		}
		one[key], many[all[i]] = all[i], key
	}
}

// Titled schemas' content keys, which marshal each schema once with the schemas inside
// it standing as $refs, are equal exactly when the schemas' JSON is: schemas that
// differ only deep inside, in an additionalProperties of false beside a schema, or
// that share inline schemas.
func TestContentKeysAreJSON(t *testing.T) {
	spec, err := loadYAML(t, `openapi: 3.1.0
info: {title: t, version: "1"}
paths: {}
components:
  schemas:
    A:
      type: object
      properties:
        x: {title: X, type: object, properties: {deep: {type: object, properties: {v: {type: string}}}}}
        y: {title: X, type: object, properties: {deep: {type: object, properties: {v: {type: integer}}}}}
        z: {title: X, type: object, properties: {deep: {type: object, properties: {v: {type: string}}}}}
        m1: {title: M, type: object, additionalProperties: {type: string}}
        m2: {title: M, type: object, additionalProperties: {type: integer}}
        m3: {title: M, type: object, additionalProperties: true}
        l1: {title: L, type: array, items: {type: object, properties: {a: {type: string}}}}
        l2: {title: L, type: array, items: {type: object, properties: {a: {type: string}}}}
        l3: {title: L, type: array, items: {$ref: '#/components/schemas/B'}}
        u1: {title: U, oneOf: [{type: string}, {type: object, properties: {k: {type: string}}}], not: {type: integer}}
        u2: {title: U, oneOf: [{type: string}, {type: object, properties: {k: {type: number}}}], not: {type: integer}}
        u3: {title: U, anyOf: [{type: string}, {type: object, properties: {k: {type: string}}}], not: {type: integer}}
        r1: {title: R, allOf: [{$ref: '#/components/schemas/B'}, {type: object, properties: {s: {type: string}}}]}
        r2: {title: R, allOf: [{$ref: '#/components/schemas/B'}, {type: object, properties: {s: {type: string}}}]}
        e1: {title: E, type: object, properties: {o: {type: object, x-ext: {a: [1, 2]}}}}
        e2: {title: E, type: object, properties: {o: {type: object, x-ext: {a: [1, 3]}}}}
    B:
      type: object
      properties:
        b: {type: string}
`)
	if err != nil {
		t.Fatal(err)
	}
	checkContentKeys(t, spec)
}

// On the corpus's specs with the most titled inline schemas.
func TestContentKeysAreJSONOnCorpus(t *testing.T) {
	for _, name := range []string{"box.json", "openai.yaml", "stripe.yaml"} {
		spec, err := load.Load(corpus.Path(t, name), load.Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkContentKeys(t, spec)
	}
}

func loadYAML(t *testing.T, yaml string) (*load.Spec, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return load.Load(path, load.Options{})
}
