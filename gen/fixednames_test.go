package gen

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/gen/model"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
	"go.yaml.in/yaml/v4"
)

// takenBefore are the names of the fixed surface that public specs' schemas had when they
// became the surface's, by spec: those schemas' types have been named otherwise since.
var takenBefore = map[string][]string{"File": {"box.json", "stripe.yaml"}}

// A name of the fixed surface takes no name a public spec's component schema has, so that
// a name added to it renames no type users of those clients already have (stripe.yaml's
// Token, github.json's RateLimit).
func TestFixedNamesSpareTheCorpus(t *testing.T) {
	longtest.Heavy(t)
	dir := corpus.Dir(t)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fixed := model.FixedNames().Package
	used := map[string]bool{}
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || ext != ".yaml" && ext != ".json" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Components  struct{ Schemas map[string]yaml.Node } `yaml:"components"`
			Definitions map[string]yaml.Node                   `yaml:"definitions"`
		}
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		for _, schemas := range []map[string]yaml.Node{doc.Components.Schemas, doc.Definitions} {
			for key := range schemas {
				name := names.GoName(key)
				switch {
				case !slices.Contains(fixed, name):
				case slices.Contains(takenBefore[name], e.Name()):
					used[name+" "+e.Name()] = true
				default:
					t.Errorf("%s: the schema %q is named %s, which the fixed surface takes", e.Name(), key, name)
				}
			}
		}
	}
	for name, specs := range takenBefore {
		for _, spec := range specs {
			if !used[name+" "+spec] {
				t.Errorf("takenBefore lists %s for %s, whose schemas no longer have it: remove it", name, spec)
			}
		}
	}
}
