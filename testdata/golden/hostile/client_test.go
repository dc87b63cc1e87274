package hostile

// These tests run against the generated client of this case (want.go, copied next to them
// by gen's TestGoldenCompiles).

import (
	"encoding/json"
	"reflect"
	"testing"
)

// D8: property names that json tags cannot express keep their exact wire names.
func TestWireNamesRoundTrip(t *testing.T) {
	in := `{"":"empty","-":"minus","Error":"e","MarshalJSON":"m","` + "`" + `":"tick",` +
		`"a\" json:\"b":"quote","a,omitempty":"comma","a,string":7,"enum":"Foo Bar","type":"t"}`
	var v Type
	if err := json.Unmarshal([]byte(in), &v); err != nil {
		t.Fatal(err)
	}
	checks := map[string]*string{
		"":             v.Empty,
		"-":            v.Minus,
		"Error":        v.Error,
		"MarshalJSON":  v.MarshalJSONProperty,
		"`":            v.Backtick,
		"a\" json:\"b": v.AJSONB,
		"a,omitempty":  v.AOmitempty,
		"type":         v.Type,
	}
	want := map[string]string{"": "empty", "-": "minus", "Error": "e", "MarshalJSON": "m", "`": "tick", "a\" json:\"b": "quote", "a,omitempty": "comma", "type": "t"}
	for name, got := range checks {
		if got == nil || *got != want[name] {
			t.Errorf("field %q = %v, want %q", name, got, want[name])
		}
	}
	if v.AString == nil || *v.AString != 7 {
		t.Errorf(`field "a,string" = %v, want 7`, v.AString)
	}
	if v.Enum == nil || *v.Enum != X1FooFooBar {
		t.Errorf("enum = %v", v.Enum)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var a, b map[string]any
	if err := json.Unmarshal([]byte(in), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("round trip:\n in  %s\n out %s", in, out)
	}
	empty, _ := json.Marshal(Type{})
	if string(empty) != "{}" {
		t.Errorf("empty value = %s, want {}", empty)
	}
}

// D4: enum values keep their exact text in their constants.
func TestEnumValuesExact(t *testing.T) {
	want := map[X1Foo]string{
		X1FooFooBar:    "Foo Bar",
		X1FooFooBar2:   "Foo-Bar",
		X1Foo1Foo:      "1Foo",
		X1FooFoo:       " Foo",
		X1FooFoo2:      " Foo ",
		X1FooEmpty:     "",
		X1FooAB:        "a\"b",
		X1FooNA:        "N\\A",
		X1FooBacktick:  "`",
		X1FooEmpty2:    "\n",
		X1FooEmpty3:    "\u202e",
		X1FooStarSlash: "*/",
		X1FooEmpty4:    "\x00",
	}
	if len(want) != 13 {
		t.Fatalf("constants are not distinct: %d of 13", len(want))
	}
	for c, s := range want {
		if string(c) != s {
			t.Errorf("constant %q, want %q", string(c), s)
		}
	}
}
