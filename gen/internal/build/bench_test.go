package build

import (
	"slices"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/internal/corpus"
)

// BenchmarkBuild measures Build (the loaded document turned into the model, names
// decided) on the largest shared specs, loaded once. Run it with:
//
//	go test -run '^$' -bench BenchmarkBuild -benchmem ./gen/internal/build/
func BenchmarkBuild(b *testing.B) {
	for _, name := range []string{"stripe.yaml", "github.json"} {
		path := corpus.Path(b, name)
		spec, err := load.Load(path, load.Options{})
		if err != nil {
			b.Fatal(err)
		}
		warnings := slices.Clone(spec.Warnings)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				// Build adds its own warnings to the spec's and sorts them: each run
				// starts from the loader's.
				spec.Warnings = slices.Clone(warnings)
				if _, err := Build(spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
