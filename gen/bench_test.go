package gen

import (
	"testing"

	"github.com/retrygen/retrygen/internal/corpus"
)

// BenchmarkGenerate measures GenerateFiles (emit the model as Go, format it, in parts as
// the retrygen command writes them) on the largest shared specs, loaded once. Run it with:
//
//	go test -run '^$' -bench BenchmarkGenerate -benchmem ./gen/
func BenchmarkGenerate(b *testing.B) {
	for _, name := range []string{"stripe.yaml", "github.json"} {
		path := corpus.Path(b, name)
		spec, err := Load(path, LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var size int
			for b.Loop() {
				parts, err := GenerateFiles(spec, GenerateOptions{Package: "bench", Command: name}, SplitAbove)
				if err != nil {
					b.Fatal(err)
				}
				size = 0
				for _, p := range parts {
					size += len(p.Source)
				}
			}
			b.ReportMetric(float64(size), "bytes/op-output")
		})
	}
}
