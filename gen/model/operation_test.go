package model

import (
	"strings"
	"testing"
)

func TestSimplifyErrorCases(t *testing.T) {
	a, b := NamedType(&Decl{GoName: "A"}), NamedType(&Decl{GoName: "B"})
	tests := []struct {
		in   []*ErrorCase
		want string
	}{
		{[]*ErrorCase{{"404", a}, {"default", a}}, "default=A"},
		{[]*ErrorCase{{"404", a}, {"4XX", a}, {"default", a}}, "default=A"},
		{[]*ErrorCase{{"404", a}, {"4XX", b}, {"default", a}}, "404=A 4XX=B default=A"},
		{[]*ErrorCase{{"404", a}, {"4xx", a}, {"default", b}}, "4xx=A default=B"},
		{[]*ErrorCase{{"404", a}, {"5XX", a}}, "404=A 5XX=A"},
		{[]*ErrorCase{{"404", a}, {"500", a}}, "404=A 500=A"},
		{[]*ErrorCase{{"default", a}}, "default=A"},
	}
	for _, tt := range tests {
		if got := spell(SimplifyErrorCases(tt.in)); got != tt.want {
			t.Errorf("SimplifyErrorCases(%s) = %s, want %s", spell(tt.in), got, tt.want)
		}
	}
}

func spell(cases []*ErrorCase) string {
	var out []string
	for _, c := range cases {
		out = append(out, c.Status+"="+c.Type.String())
	}
	return strings.Join(out, " ")
}

func TestReadsBodyWhole(t *testing.T) {
	decoded := &Result{Responses: []*Response{{Status: "200", Type: NamedType(&Decl{GoName: "Pet"}), JSON: true}}}
	streamed := &Result{Responses: []*Response{{Status: "200", Type: &Type{Kind: KindBuiltin, Builtin: ReadCloser}}}}
	for _, tt := range []struct {
		name string
		op   *Operation
		want bool
	}{
		{"decoded", &Operation{Result: decoded}, true},
		{"handed over", &Operation{Result: streamed}, false},
		// The body of a no-content operation is ignored: reading it whole would turn a
		// successful call whose server sends a large body anyway into ErrBodyTooLarge.
		{"no content", &Operation{}, false},
	} {
		if got := tt.op.ReadsBodyWhole(); got != tt.want {
			t.Errorf("%s: ReadsBodyWhole() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
