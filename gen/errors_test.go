package gen

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the expected files of golden tests")

// errorsDir holds the negative corpus: each spec beside a .err file with the exact
// messages expected. A spec whose first line is "# load: allow-external-refs" is loaded
// with that option.
const errorsDir = "../testdata/errors"

// TestErrorCorpus checks that every bad spec is rejected with located messages, exactly
// as its .err file says.
func TestErrorCorpus(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join(errorsDir, "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, spec := range specs {
		if strings.HasSuffix(spec, ".err") {
			continue
		}
		n++
		name := filepath.Base(spec)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(spec)
			if err != nil {
				t.Fatal(err)
			}
			opts := LoadOptions{AllowExternalRefs: strings.HasPrefix(string(data), "# load: allow-external-refs")}
			got := loadAndPlanError(spec, opts)
			if got == "" {
				t.Fatal("no error")
			}
			got = strings.ReplaceAll(got, errorsDir+string(filepath.Separator), "") + "\n"
			for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
				if strings.HasPrefix(line, "\tfix: ") || strings.HasPrefix(line, "(and ") {
					continue
				}
				if !strings.HasPrefix(line, name+":") {
					t.Errorf("message is not located in %s: %q", name, line)
				}
			}
			wantFile := strings.TrimSuffix(spec, filepath.Ext(spec)) + ".err"
			if *update {
				if err := os.WriteFile(wantFile, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(wantFile)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("messages differ (-want +got):\n%s", diff)
			}
		})
	}
	// Every .err file must belong to a spec, so that none is silently left unchecked.
	errs, _ := filepath.Glob(filepath.Join(errorsDir, "*.err"))
	if len(errs) != n && !*update {
		t.Errorf("%d .err files for %d specs", len(errs), n)
	}
}

// loadAndPlanError runs what `retrygen plan` runs and returns the error text, or "".
func loadAndPlanError(path string, opts LoadOptions) string {
	if _, err := Load(path, opts); err != nil {
		return err.Error()
	}
	return ""
}
