package gen

import (
	"testing"

	"github.com/retrygen/retrygen/internal/corpus"
)

// BenchmarkGenerate measures Generate (emit the model as Go, format it) on the largest
// shared specs, loaded once. Run it with:
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
				out, err := Generate(spec, GenerateOptions{Package: "bench", Command: name})
				if err != nil {
					b.Fatal(err)
				}
				size = len(out)
			}
			b.ReportMetric(float64(size), "bytes/op-output")
		})
	}
}
