package load

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/internal/corpus"
)

// DigitalOceanSpec is DigitalOcean's public description, 2,907 files, as its repository
// holds it.
const DigitalOceanSpec = "digitalocean/specification/DigitalOcean-public.v2.yaml"

// DigitalOcean's description loads unbundled, with every operation, and with the
// components `redocly bundle` makes of it, by the same names
// (testdata/multifile/digitalocean-components.txt lists them).
func TestDigitalOceanUnbundled(t *testing.T) {
	path := corpus.MultiFile(t, DigitalOceanSpec)
	s, err := Load(path, Options{AllowExternalRefs: true})
	if err != nil {
		t.Fatal(err)
	}
	ops := 0
	for _, item := range s.Doc.Paths.Map() {
		ops += len(item.Operations())
	}
	if ops != 659 {
		t.Errorf("%d operations, want 659", ops)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "multifile", "digitalocean-components.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(string(data))
	var got []string
	c := s.Doc.Components
	for section, names := range map[string][]string{
		"schemas": keys(c.Schemas), "responses": keys(c.Responses), "parameters": keys(c.Parameters),
		"examples": keys(c.Examples), "headers": keys(c.Headers), "links": keys(c.Links),
		"securitySchemes": keys(c.SecuritySchemes), "requestBodies": keys(c.RequestBodies), "callbacks": keys(c.Callbacks),
	} {
		for _, name := range names {
			got = append(got, section+"/"+name)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		for _, g := range got {
			if !slices.Contains(want, g) {
				t.Errorf("component %s, which the bundle lacks", g)
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("no component %s", w)
			}
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
