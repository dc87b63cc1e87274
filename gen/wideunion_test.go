package gen

import (
	"fmt"
	"strings"
	"testing"
)

// A oneOf of more variants than a Go type set holds (100) gets no New<Union> constructor,
// whose constraint the type checker refuses ("cannot handle more than 100 union terms"),
// with a discriminator or without; up to 100 it gets one. The client type-checks either way.
func TestWideUnionsTypeCheck(t *testing.T) {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: u, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n")
	union := func(name string, n int, disc bool) {
		fmt.Fprintf(&b, "    %s:\n      oneOf:\n", name)
		for i := range n {
			fmt.Fprintf(&b, "        - $ref: \"#/components/schemas/V%d\"\n", i)
		}
		if disc {
			b.WriteString("      discriminator: {propertyName: kind}\n")
		}
	}
	union("Hundred", 100, false)
	union("Wide", 101, false)
	union("WideTagged", 150, true)
	for i := range 150 {
		fmt.Fprintf(&b, "    V%d: {type: object, required: [kind, f%d], properties: {kind: {type: string}, f%d: {type: string}}}\n", i, i, i)
	}
	src, err := loadAndGenerate(t, writeSpec(t, "wide.yaml", b.String()), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := typeCheckClient(src); err != nil {
		t.Fatalf("the client does not type-check: %v", err)
	}
	for name, want := range map[string]bool{"NewHundred": true, "NewWide": false, "NewWideTagged": false} {
		if got := strings.Contains(string(src), "\nfunc "+name+"["); got != want {
			t.Errorf("%s declared: %v, want %v", name, got, want)
		}
	}
}
