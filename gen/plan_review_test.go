package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
)

// maxWidePlan bounds the lines of plan -wide: every cell is capped, whatever the spec.
const maxWidePlan = 320

// On every spec of the corpus, and on DigitalOcean's multi-file spec, plan -markdown fits
// a pull-request comment (65,536 characters), plan -wide stays within maxWidePlan
// columns, and no two rows of the table read the same.
func TestPlanFitsAReview(t *testing.T) {
	dir := corpus.Dir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	files = append(files, filepath.Join(dir, "..", "multifile", "digitalocean", "specification", "DigitalOcean-public.v2.yaml"))
	for _, f := range files {
		if ext := filepath.Ext(f); ext != ".yaml" && ext != ".json" {
			continue
		}
		name := filepath.Base(f)
		t.Run(strings.TrimSuffix(name, filepath.Ext(name)), func(t *testing.T) {
			info, err := os.Stat(f)
			if err != nil {
				t.Skipf("no %s: %v", f, err)
			}
			if info.Size() > 1<<20 {
				longtest.Heavy(t)
			}
			s, err := Load(f, LoadOptions{AllowExternalRefs: true})
			if err != nil {
				if strings.Contains(f, "multifile") {
					t.Skipf("the multi-file spec does not load yet: %.300v", err)
				}
				t.Fatal(err)
			}
			var md, wide bytes.Buffer
			if err := Plan(&md, s, PlanOptions{Format: "markdown"}); err != nil {
				t.Fatal(err)
			}
			if n := utf8.RuneCount(md.Bytes()); n >= 65536 {
				t.Errorf("plan -markdown is %d characters", n)
			}
			if err := Plan(&wide, s, PlanOptions{Wide: true}); err != nil {
				t.Fatal(err)
			}
			rows := map[string]bool{}
			inTable := false
			for _, line := range strings.Split(wide.String(), "\n") {
				if n := utf8.RuneCountInString(line); n > maxWidePlan {
					t.Errorf("a line of %d columns: %.120s…", n, line)
				}
				if strings.HasPrefix(line, "OPERATION ") {
					inTable = true
					continue
				}
				if inTable && line == "" {
					break
				}
				if inTable {
					op := strings.Join(strings.Fields(line)[:2], " ")
					if rows[op] {
						t.Errorf("two rows read %q", op)
					}
					rows[op] = true
				}
			}
			if len(rows) != len(s.API.Operations) {
				t.Errorf("%d distinct rows for %d operations", len(rows), len(s.API.Operations))
			}
		})
	}
}
