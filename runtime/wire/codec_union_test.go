package wire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// holder is a union whose object variant holds a required union, which the JSON may lack.
type holder struct {
	_   noCmp `wire:"union"`
	Box *holderBox
	Str *string
	Raw json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

func (v holder) MarshalJSON() ([]byte, error)     { return Marshal(&v) }
func (v *holder) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }

type holderBox struct {
	_     noCmp      `wire:"object"`
	Inner innerUnion `json:"inner"`
	Name  string     `json:"name"`
}

type innerUnion struct {
	_   noCmp `wire:"union"`
	Int *int64
	Str *string
	Raw json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

func (v innerUnion) MarshalJSON() ([]byte, error)     { return Marshal(&v) }
func (v *innerUnion) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }

// A union the JSON lacked, set after its parent was read, changes the parent: it is
// written, and so is a change of what it holds at the next Marshal.
func TestUnionSetWhereJSONHadNoneIsWritten(t *testing.T) {
	var o holder
	if err := json.Unmarshal([]byte(`{"name":"a"}`), &o); err != nil || o.Box == nil {
		t.Fatalf("%v %+v", err, o)
	}
	if out, err := json.Marshal(o); err != nil || string(out) != `{"name":"a"}` {
		t.Fatalf("unchanged: %s %v, want the JSON read", out, err)
	}
	seven := int64(7)
	o.Box.Inner = innerUnion{Int: &seven}
	if out, err := json.Marshal(o); err != nil || string(out) != `{"inner":7,"name":"a"}` {
		t.Fatalf("the union set after reading: %s %v", out, err)
	}
	seven = 8
	if out, err := json.Marshal(o); err != nil || string(out) != `{"inner":8,"name":"a"}` {
		t.Fatalf("its value changed: %s %v", out, err)
	}
}

// mutualA and mutualB hold each other: A is oneOf [B, string], B oneOf [A, integer].
type mutualA struct {
	_      noCmp `wire:"union"`
	B      *mutualB
	String *string
	Raw    json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

func (v mutualA) MarshalJSON() ([]byte, error)     { return Marshal(&v) }
func (v *mutualA) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }

type mutualB struct {
	_     noCmp `wire:"union"`
	A     *mutualA
	Int64 *int64
	Raw   json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

func (v mutualB) MarshalJSON() ([]byte, error)     { return Marshal(&v) }
func (v *mutualB) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }

// Unions that are variants of each other are read without end no more: a union is not
// read again at the offset where it is being read, so that each value ends in the
// variant that takes it, through the other union when that is the way to it.
func TestUnionsHoldingEachOtherDecode(t *testing.T) {
	var a mutualA
	if err := json.Unmarshal([]byte(`"s"`), &a); err != nil || a.String == nil || *a.String != "s" || a.B != nil {
		t.Fatalf(`"s" into A: %v %+v`, err, a)
	}
	if err := json.Unmarshal([]byte(`7`), &a); err != nil || a.B == nil || a.B.Int64 == nil || *a.B.Int64 != 7 {
		t.Fatalf(`7 into A: %v %+v`, err, a)
	}
	var b mutualB
	if err := json.Unmarshal([]byte(`"s"`), &b); err != nil || b.A == nil || b.A.String == nil {
		t.Fatalf(`"s" into B: %v %+v`, err, b)
	}
	if err := json.Unmarshal([]byte(`{"x":[1]}`), &b); err != nil || b.A != nil || b.Int64 != nil || string(b.Raw) != `{"x":[1]}` {
		t.Fatalf(`an object into B: %v %+v`, err, b)
	}
	if out, err := json.Marshal(b); err != nil || string(out) != `{"x":[1]}` {
		t.Fatalf("written back as %s %v", out, err)
	}
}

// wideU0 to wideU3 are unions of unions four deep, each of width 6; wideU3's variants are
// objects with one optional property each.
type wideU0 struct {
	_                      noCmp `wire:"union"`
	V0, V1, V2, V3, V4, V5 *wideU1
	Raw                    json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

func (v *wideU0) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }

type wideU1 struct {
	_                      noCmp `wire:"union"`
	V0, V1, V2, V3, V4, V5 *wideU2
	Raw                    json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

type wideU2 struct {
	_                      noCmp `wire:"union"`
	V0, V1, V2, V3, V4, V5 *wideU3
	Raw                    json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

type wideU3 struct {
	_   noCmp `wire:"union"`
	V0  *wideP0
	V1  *wideP1
	V2  *wideP2
	V3  *wideP3
	V4  *wideP4
	V5  *wideP5
	Raw json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

type (
	wideP0 struct {
		P *string `json:"p0,omitzero"`
	}
	wideP1 struct {
		P *string `json:"p1,omitzero"`
	}
	wideP2 struct {
		P *string `json:"p2,omitzero"`
	}
	wideP3 struct {
		P *string `json:"p3,omitzero"`
	}
	wideP4 struct {
		P *string `json:"p4,omitzero"`
	}
	wideP5 struct {
		P *string `json:"p5,omitzero"`
	}
)

// flatU is a union of the objects of wideU3 alone.
type flatU wideU3

func (v *flatU) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }

// The look ahead of a union whose variants are unions scores each object a union below
// may be once per JSON value, rather than once per way down to it (width^depth): a list
// of objects into unions four deep and six wide allocates in proportion to its length,
// a few times what a flat union of the same six objects does.
func TestWideNestedUnionsDecodeInLinearWork(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocations")
	}
	list := func(n int) []byte {
		return []byte("[" + strings.TrimSuffix(strings.Repeat(`{"q":1},`, n), ",") + "]")
	}
	perElement := func(n int, decode func([]byte) error) float64 {
		data := list(n)
		return testing.AllocsPerRun(3, func() {
			if err := decode(data); err != nil {
				t.Fatal(err)
			}
		}) / float64(n)
	}
	nested := func(data []byte) error { var out []wideU0; return json.Unmarshal(data, &out) }
	flat := func(data []byte) error { var out []flatU; return json.Unmarshal(data, &out) }
	small, large, one := perElement(100, nested), perElement(200, nested), perElement(200, flat)
	t.Logf("allocations per element: %.1f of 100, %.1f of 200, %.1f into a flat union", small, large, one)
	if large > small*1.1 || large > 5*one {
		t.Fatalf("%.1f allocations per element of 100, %.1f of 200, %.1f flat: the look ahead grows with the nesting", small, large, one)
	}
	var u wideU0
	if err := json.Unmarshal([]byte(`{"p4":"x"}`), &u); err != nil || u.V0 == nil || u.V0.V0 == nil || u.V0.V0.V0 == nil || u.V0.V0.V0.V4 == nil {
		t.Fatalf("the object that fits is not the one taken: %v", err)
	}
}

// shape is a union chosen by its discriminator, whose circle fails on a radius that is
// not a number.
type shape struct {
	_      noCmp   `wire:"union" discriminator:"kind"`
	Circle *circle `discriminator:"[\"circle\"]"`
	Raw    json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

func (v *shape) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }

type circle struct {
	_    noCmp   `wire:"object"`
	Kind string  `json:"kind"`
	R    float64 `json:"r"`
}

// twoHolders is a union of two objects that hold the same shape.
type twoHolders struct {
	_ noCmp `wire:"union"`
	A *struct {
		Child shape `json:"child"`
	}
	B *struct {
		Child shape   `json:"child"`
		Note  *string `json:"note,omitzero"`
	}
	Raw json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

func (v *twoHolders) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }

// twoHoldersSwapped is twoHolders with its variants the other way round.
type twoHoldersSwapped struct {
	_ noCmp `wire:"union"`
	B *struct {
		Child shape   `json:"child"`
		Note  *string `json:"note,omitzero"`
	}
	A *struct {
		Child shape `json:"child"`
	}
	Raw json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

func (v *twoHoldersSwapped) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }

// A union below that fails fails every variant above that holds it, whichever is tried
// first: its failure is kept with it, as its value is, for the next variant that reads it.
func TestFailedNestedUnionFailsEveryVariant(t *testing.T) {
	data := []byte(`{"child":{"kind":"circle","r":"not a number"}}`)
	var o twoHolders
	if err := json.Unmarshal(data, &o); err != nil || o.A != nil || o.B != nil {
		t.Fatalf("a variant that fails taken: %v %+v", err, o)
	}
	var swapped twoHoldersSwapped
	if err := json.Unmarshal(data, &swapped); err != nil || swapped.A != nil || swapped.B != nil {
		t.Fatalf("a variant that fails taken, the variants the other way round: %v %+v", err, swapped)
	}
	var typeErr *json.UnmarshalTypeError
	var alone shape
	if err := json.Unmarshal([]byte(`{"kind":"circle","r":"x"}`), &alone); !errors.As(err, &typeErr) {
		t.Fatalf("the shape alone: %v", err)
	}
}
