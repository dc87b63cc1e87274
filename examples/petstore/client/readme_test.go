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

// The README's section "The generated client" quotes ListPets's body as it is generated.
func TestREADMEQuotesAMethodBody(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	client, err := os.ReadFile("client_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	const intro = "body reads as the request it builds (the petstore's `ListPets`):\n\n```go\n"
	_, rest, ok := strings.Cut(string(readme), intro)
	quoted, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("the README no longer quotes ListPets's body")
	}
	var want strings.Builder
	for line := range strings.Lines(quoted) {
		want.WriteString("\t" + line)
	}
	if !strings.Contains(string(client), want.String()) {
		t.Errorf("client_gen.go has no lines\n%s\nas the README quotes them: copy them from ListPets", want.String())
	}
}
