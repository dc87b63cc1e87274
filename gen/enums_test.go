package gen

// D4 of docs/reliability.md: enum values become constants that hold exactly the value the
// spec wrote, or no constant at all when Go cannot hold it exactly.

import (
	"github.com/retrygen/retrygen/internal/longtest"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"math"
	"slices"
	"strings"
	"testing"
)

const enumLiterals = `openapi: 3.0.3
info: {title: Literals, version: "1"}
paths: {}
components:
  schemas:
    Int:
      type: integer
      enum: [0, -0, 1, -1, 1e3, 9007199254740991, -9007199254740991, 9007199254740992,
        9007199254740993, 9223372036854775807, -9223372036854775808, 18446744073709551616]
    Int32:
      type: integer
      format: int32
      enum: [2147483647, -2147483648, 2147483648, -2147483649]
    Num:
      type: number
      enum: [0.1, -0, 1.5, 1e308, 5e-324, 1e309, -1e309, 18446744073709551616, -2.5e-10]
    Str:
      type: string
      enum: ["a\"b", "N\\A", "` + "`" + `", "\n", "\r\n", "\0", "\u202e", "\u2028", "1e309", "NaN", "-0", "", " ", "*/", "\t"]
    Bool:
      type: boolean
      enum: [true, false]
`

// TestEnumLiterals type-checks the constants of enumLiterals and compares their exact
// values with what the spec wrote: integers a float64 may have rounded (beyond 2^53),
// values beyond the type and infinities have no constant.
func TestEnumLiterals(t *testing.T) {
	longtest.NoRace(t)
	path := writeSpec(t, "literals.yaml", enumLiterals)
	src, err := loadAndGenerate(t, path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The values left without a constant are named in located warnings.
	spec, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"literals.yaml:6:5: #/components/schemas/Int: enum Int: no constant for 9007199254740992, 9007199254740992, 9223372036854776000, -9223372036854776000, 18446744073709552000: a int64 cannot hold them exactly",
		"literals.yaml:10:5: #/components/schemas/Int32: enum Int32: no constant for 2147483648, -2147483649",
		`literals.yaml:14:5: #/components/schemas/Num: enum Num: no constant for "1e309", "-1e309"`,
	} {
		if !strings.Contains(spec.Warnings.Error(), want) {
			t.Errorf("warnings lack %q:\n%s", want, spec.Warnings.Error())
		}
	}
	values := enumConstants(t, src)
	ints := func(ns ...int64) []constant.Value {
		var out []constant.Value
		for _, n := range ns {
			out = append(out, constant.MakeInt64(n))
		}
		return out
	}
	for typ, want := range map[string][]constant.Value{
		"Int":   ints(0, 1, -1, 1000, 9007199254740991, -9007199254740991),
		"Int32": ints(2147483647, -2147483648),
		"Bool":  {constant.MakeBool(true), constant.MakeBool(false)},
		"Str": {constant.MakeString("a\"b"), constant.MakeString("N\\A"), constant.MakeString("`"), constant.MakeString("\n"),
			constant.MakeString("\r\n"), constant.MakeString("\x00"), constant.MakeString("\u202e"), constant.MakeString("\u2028"),
			constant.MakeString("1e309"), constant.MakeString("NaN"), constant.MakeString("-0"), constant.MakeString(""),
			constant.MakeString(" "), constant.MakeString("*/"), constant.MakeString("\t")},
	} {
		got := values[typ]
		if len(got) != len(want) {
			t.Errorf("%s: %d constants %v, want %d %v", typ, len(got), got, len(want), want)
			continue
		}
		for i := range want {
			if !constant.Compare(got[i], token.EQL, want[i]) {
				t.Errorf("%s constant %d = %v, want exactly %v", typ, i, got[i], want[i])
			}
		}
	}
	// Floats: a float64 constant holds the float64 nearest to what the spec wrote.
	wantNum := []float64{0.1, 0, 1.5, 1e308, 5e-324, 18446744073709551616, -2.5e-10}
	gotNum := values["Num"]
	if len(gotNum) != len(wantNum) {
		t.Fatalf("Num: %d constants %v, want %v", len(gotNum), gotNum, wantNum)
	}
	for i, want := range wantNum {
		f, _ := constant.Float64Val(gotNum[i])
		if f != want || math.Signbit(f) != math.Signbit(want) {
			t.Errorf("Num constant %d = %v, want %v", i, gotNum[i], want)
		}
	}
}

// enumConstants type-checks src and returns the values of its constants by the name of
// their type, in the order they are declared.
func enumConstants(t *testing.T, src []byte) map[string][]constant.Value {
	t.Helper()
	if err := typeCheckClient(src); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "client.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	imp, err := clientImporter()
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{Importer: imp}).Check("client", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	type def struct {
		pos token.Pos
		c   *types.Const
	}
	var defs []def
	for id, obj := range info.Defs {
		if c, ok := obj.(*types.Const); ok && c.Parent() == c.Pkg().Scope() {
			defs = append(defs, def{id.Pos(), c})
		}
	}
	slices.SortFunc(defs, func(a, b def) int { return int(a.pos - b.pos) })
	out := map[string][]constant.Value{}
	for _, d := range defs {
		if named, ok := d.c.Type().(*types.Named); ok {
			out[named.Obj().Name()] = append(out[named.Obj().Name()], d.c.Val())
		}
	}
	return out
}
