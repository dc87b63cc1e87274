package client_test

import (
	"os"
	"strings"
	"testing"
)

// docs/testing.md shows example_test.go and idempotency_test.go as they are.
func TestTestingDocShowsTheExample(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/testing.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"example_test.go", "idempotency_test.go"} {
		example, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "```go\n"+string(example)+"```\n") {
			t.Errorf("docs/testing.md does not show %s as it is: copy it there", name)
		}
	}
}

// docs/design.md's section "The file" quotes ListPets's body as it is generated.
func TestDesignQuotesAMethodBody(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	client, err := os.ReadFile("client_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	const intro = "body reads as the request it builds (the petstore's `ListPets`):\n\n```go\n"
	_, rest, ok := strings.Cut(string(doc), intro)
	quoted, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/design.md no longer quotes ListPets's body")
	}
	var want strings.Builder
	for line := range strings.Lines(quoted) {
		want.WriteString("\t" + line)
	}
	if !strings.Contains(string(client), want.String()) {
		t.Errorf("client_gen.go has no lines\n%s\nas docs/design.md quotes them: copy them from ListPets", want.String())
	}
}
