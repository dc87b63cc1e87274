package conformance

import (
	"os"
	"strings"
	"testing"
)

// The README's section "Conformance" shows the table of REPORT.md as it is.
func TestREADMEShowsTheReport(t *testing.T) {
	report, err := os.ReadFile("REPORT.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var table []string
	for _, line := range strings.Split(string(report), "\n") {
		if strings.HasPrefix(line, "|") {
			table = append(table, line)
		}
	}
	if len(table) < 3 || !strings.Contains(string(readme), strings.Join(table, "\n")+"\n") {
		t.Error("the README's conformance table differs from REPORT.md: copy the table into the section \"Conformance\"")
	}
}
