package client_test

import (
	"os"
	"strings"
	"testing"
)

// The README's section "Testing code that uses the client" shows example_test.go as it is.
func TestREADMEShowsTheExample(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```go\n"+string(example)+"```\n") {
		t.Error("the README does not show example_test.go as it is: copy it into the section \"Testing code that uses the client\"")
	}
}
