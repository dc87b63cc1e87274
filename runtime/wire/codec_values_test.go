package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// tree is a union whose node holds a tree.
type tree struct {
	_    noCmp `wire:"union"`
	Node *treeNode
	Str  *string
	Raw  json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

func (v tree) MarshalJSON() ([]byte, error)     { return Marshal(&v) }
func (v *tree) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }

type treeNode struct {
	Name  string `json:"name"`
	Child *tree  `json:"child,omitzero"`
}

// A value that holds itself fails to marshal with encoding/json's error, whichever way
// the cycle goes: through a pointer, through unions only, through a union read from
// JSON; a deep value that does not is written.
func TestCyclicValueFailsToMarshal(t *testing.T) {
	tr := &tree{}
	tr.Node = &treeNode{Name: "n", Child: tr}
	var a mutualA
	a.B = &mutualB{A: &a}
	var read tree
	if err := json.Unmarshal([]byte(`{"name":"n","child":{"name":"m"}}`), &read); err != nil {
		t.Fatal(err)
	}
	read.Node.Child.Node.Child = &read
	for name, v := range map[string]any{"pointer": tr, "unions": &a, "read": &read} {
		var unsupported *json.UnsupportedValueError
		if _, err := json.Marshal(v); !errors.As(err, &unsupported) || !strings.Contains(err.Error(), "encountered a cycle via") {
			t.Errorf("%s: %v, want encoding/json's error for a cycle", name, err)
		}
	}
	deep := &tree{Str: new(string)}
	for range 3000 {
		deep = &tree{Node: &treeNode{Child: deep}}
	}
	if out, err := json.Marshal(deep); err != nil || strings.Count(string(out), "child") != 3000 {
		t.Errorf("a deep value: %v", err)
	}
}

type stringMap struct {
	_ noCmp             `wire:"object"`
	M map[string]string `json:"m"`
}

// A member name of invalid UTF-8 is read as encoding/json reads it, each invalid byte a
// U+FFFD (two names may then be one); keys that would be written as the same name are
// written once, the last of them in encoding/json's order.
func TestMapKeysOfInvalidUTF8(t *testing.T) {
	data := []byte("{\"m\":{\"\xff\":\"a\",\"\xfe\":\"b\",\"\xff\xfe\":\"c\"}}")
	var want, got stringMap
	if err := json.Unmarshal(data, &want); err != nil { // no methods: encoding/json's own reading
		t.Fatal(err)
	}
	if err := Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.M) != 2 || got.M["\ufffd"] != want.M["\ufffd"] || got.M["\ufffd\ufffd"] != "c" {
		t.Fatalf("encoding/json %q, codec %q", want.M, got.M)
	}
	out, err := Marshal(&stringMap{M: map[string]string{"\xfe": "b", "\xff": "a", "ok": "c"}})
	if err != nil || string(out) != `{"m":{"ok":"c","\ufffd":"a"}}` {
		t.Fatalf("written as %s %v", out, err)
	}
}

type numberObject struct {
	_ noCmp       `wire:"object"`
	N json.Number `json:"n"`
}

// A json.Number is written as the number it holds and read from a number or a string
// that holds one, as encoding/json does.
func TestJSONNumberAsEncodingJSON(t *testing.T) {
	for _, n := range []json.Number{"12", "-1.5e3", ""} {
		v := numberObject{N: n}
		want, _ := json.Marshal(v)
		if got, err := Marshal(&v); err != nil || string(got) != string(want) {
			t.Errorf("%q: encoding/json %s, codec %s %v", n, want, got, err)
		}
	}
	for data, want := range map[string]json.Number{`{"n":12.5}`: "12.5", `{"n":"7"}`: "7"} {
		var x numberObject
		if err := Unmarshal([]byte(data), &x); err != nil || x.N != want {
			t.Errorf("%s read as %q %v", data, x.N, err)
		}
	}
	var x numberObject
	if err := Unmarshal([]byte(`{"n":"abc"}`), &x); err == nil {
		t.Errorf("%q read as a json.Number; encoding/json refuses it", x.N)
	}
}

// stopping is an object whose first field fails on a value its UnmarshalJSON refuses.
type stopping struct {
	_     noCmp     `wire:"object"`
	T     time.Time `json:"t"`
	Shape *shape    `json:"shape,omitzero"`
	S     string    `json:"s"`
	I     int64     `json:"i"`
}

// stoppingTwin is stopping as encoding/json reads it, with the shape's UnmarshalJSON.
type stoppingTwin struct {
	T     time.Time `json:"t"`
	Shape *shape    `json:"shape,omitzero"`
	S     string    `json:"s"`
	I     int64     `json:"i"`
}

// After a value that an UnmarshalJSON refuses (a time, a union), the codec reads no
// further, as encoding/json; after a value of the wrong kind it reads the others.
func TestDecodeStopsWhereEncodingJSONDoes(t *testing.T) {
	for _, data := range []string{
		`{"i":"x","t":"not a time","s":"a","i":1}`,
		`{"shape":{"kind":"circle","r":"x"},"s":"a","i":1}`,
		`{"i":"x","s":"a"}`,
	} {
		var got stopping
		var want stoppingTwin
		errGot, errWant := Unmarshal([]byte(data), &got), json.Unmarshal([]byte(data), &want)
		if errGot == nil || errWant == nil || got.S != want.S || got.I != want.I {
			t.Errorf("%s: codec %v, S %q, I %d; encoding/json %v, S %q, I %d", data, errGot, got.S, got.I, errWant, want.S, want.I)
		}
	}
}
