package load

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
)

// Overlays made to make the overlay step work hard, on one of the largest public
// descriptions, end as they must (applied, or refused with a located error), and none
// allocates more than a load of the description itself several times over: the limits
// on queries, filters and growth hold.
func TestHostileOverlaysOnStripe(t *testing.T) {
	longtest.Only(t)
	spec := corpus.Path(t, "stripe.yaml")
	dir := t.TempDir()
	for i, tt := range []struct {
		target, change string
		want           string // in the error, or "" when it applies
	}{
		{"$..*", "update: {x-a: 1}", "o.yaml:4:13: action 1: target \"$..*\" selects objects and primitive values together"},
		{"$..*", "remove: true", "missing OpenAPI version"},
		{"$..*..*..*..*..*..*..*..*", "remove: true", ""},
		{"$..[?@.type == 'string']", "update: {x-a: [" + strings.Repeat("1, ", 99) + "1]}",
			"would grow the document past 600000 nodes"},
		{"$..*[?@..description && @..['x-none']]", "remove: true", "more than one descendant segment"},
		{"$..*[?@..['x-none']]", "remove: true", ""},
		{"$..*[?count(@.*) > 1 && count(@.*.*) > 1 && count(@.*.*.*) > 1]", "remove: true",
			"the searches in its filters would visit"},
		{"$.paths.*[?match(@.operationId, 'Post.*')]", "update: {x-a: 1}", ""},
		{"$..[?search(@.description, 'charge') && length(@.description) > 10]", "update: {x-a: 1}", ""},
		{`$..[?search(@, "` + strings.Repeat(`\\pL{1,1000}`, 70) + `")]`, "remove: true", "a regular expression too large"},
		{"$..[?@ == $.components.schemas]", "remove: true", `unresolved $ref "#/components/schemas/account"`},
		{"$.paths.*.get", "update: {requestBody: {$ref: '#/components/requestBodies/none'}}",
			`o.yaml:5:28: unresolved $ref "#/components/requestBodies/none": nothing is defined there`},
	} {
		t.Run(tt.target, func(t *testing.T) {
			o := filepath.Join(dir, fmt.Sprintf("%d", i), "o.yaml")
			if err := os.MkdirAll(filepath.Dir(o), 0o755); err != nil {
				t.Fatal(err)
			}
			text := fmt.Sprintf("overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: %q\n    %s\n", tt.target, tt.change)
			if err := os.WriteFile(o, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Load(spec, Options{Overlays: []string{o}})
			runtime.ReadMemStats(&after)
			got := ""
			if err != nil {
				got = strings.ReplaceAll(err.Error(), filepath.Dir(o)+string(filepath.Separator), "")
			}
			if tt.want == "" && err != nil || !strings.Contains(got, tt.want) {
				t.Errorf("got %v, want %q", got, tt.want)
			}
			if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; mb > 2048 {
				t.Errorf("%d MB allocated", mb)
			} else {
				t.Logf("%d MB allocated", mb)
			}
		})
	}
}
