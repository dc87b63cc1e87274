package conformance

import (
	"os"
	"strings"
	"testing"
)

// docs/contributing.md's section "Conformance" shows the table of REPORT.md as it is.
func TestContributingShowsTheReport(t *testing.T) {
	report, err := os.ReadFile("REPORT.md")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../docs/contributing.md")
	if err != nil {
		t.Fatal(err)
	}
	var table []string
	for _, line := range strings.Split(string(report), "\n") {
		if strings.HasPrefix(line, "|") {
			table = append(table, line)
		}
	}
	if len(table) < 3 || !strings.Contains(string(doc), strings.Join(table, "\n")+"\n") {
		t.Error("the conformance table of docs/contributing.md differs from REPORT.md: copy the table into its section \"Conformance\"")
	}
}
