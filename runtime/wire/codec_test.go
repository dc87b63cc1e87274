package wire

import (
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// These types are written as retrygen writes them: the codec reads their tags.

type noCmp [0]func()

// retryU is a union whose two variants take the same members, and differ only below
// them: the first tried does not fit, at every level.
type retryU struct {
	_   noCmp `wire:"union"`
	A   *retryA
	B   *retryB
	Raw json.RawMessage
	//lint:ignore U1000 the codec reads and writes it through unsafe, as a generated union's
	sum uint64
}

func (v retryU) MarshalJSON() ([]byte, error)     { return Marshal(&v) }
func (v *retryU) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }

type retryA struct {
	X     struct{ Y int } `json:"x"`
	Child *retryU         `json:"child,omitzero"`
}

type retryB struct {
	X     struct{ Y string } `json:"x"`
	Child *retryU            `json:"child,omitzero"`
}

func allocatedBytes(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A union whose first variant fails below its members at every level takes the second
// at every level, and reads each union below once: the work stays linear.
func TestUnionRetryReadsNestedUnionsOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocations")
	}
	nested := func(depth int) []byte {
		return []byte(strings.Repeat(`{"x":{"Y":"s"},"child":`, depth) + `{"x":{"Y":"s"}}` + strings.Repeat("}", depth))
	}
	decode := func(depth int) (uint64, *retryU) {
		data := nested(depth)
		u := new(retryU)
		n := allocatedBytes(func() {
			if err := json.Unmarshal(data, u); err != nil {
				t.Fatal(err)
			}
		})
		return n, u
	}
	// Depths eight times apart, the least of three measures each: the buffers that
	// grow by doubling allocate between one and about two and a half times what they
	// end up holding, so linear work measures at most 8 × 2.5 = 20 times as much at
	// the deeper, and reading each union below again at every level (quadratic) at
	// least 64 / 2.5 ≈ 26 times.
	least := func(depth int) (uint64, *retryU) {
		n, u := decode(depth)
		for range 2 {
			m, _ := decode(depth)
			n = min(n, m)
		}
		return n, u
	}
	small, _ := least(125)
	large, u := least(1000)
	t.Logf("%d bytes at depth 125, %d at 1000", small, large)
	if large > 20*small {
		t.Fatalf("%d bytes at depth 125, %d at 1000: more than linear", small, large)
	}
	levels := 0
	for ; u != nil; levels++ {
		if u.B == nil || u.A != nil {
			t.Fatalf("level %d: %+v", levels, u)
		}
		u = u.B.Child
	}
	if levels != 1001 {
		t.Fatalf("%d levels read, want 1001", levels)
	}
}

// object is a struct the codec writes by its tags.
type object struct {
	_     noCmp             `wire:"object"`
	ID    string            `json:"id" wire:"readonly"`
	Kind  string            `json:"kind" fill:"\"thing\""`
	Tags  []string          `json:"tags" fill:"[]"`
	Unit  string            `json:"unit,omitzero" const:"\"cm\""`
	S     string            `json:"s"`
	I     int64             `json:"i"`
	F     float64           `json:"f"`
	B     bool              `json:"b"`
	P     *int32            `json:"p,omitzero"`
	T     time.Time         `json:"t"`
	Bytes []byte            `json:"bytes"`
	Any   any               `json:"any"`
	Raw   json.RawMessage   `json:"raw"`
	M     map[string]*int64 `json:"m"`
	More  map[string]any    `json:"-" wire:"additional"`
}

func (v object) MarshalJSON() ([]byte, error)     { return Marshal(&v) }
func (v *object) UnmarshalJSON(data []byte) error { return Unmarshal(data, v) }

// twin is object as encoding/json reads it.
type twin struct {
	ID    string            `json:"id"`
	Kind  string            `json:"kind"`
	Tags  []string          `json:"tags"`
	Unit  string            `json:"unit,omitzero"`
	S     string            `json:"s"`
	I     int64             `json:"i"`
	F     float64           `json:"f"`
	B     bool              `json:"b"`
	P     *int32            `json:"p,omitzero"`
	T     time.Time         `json:"t"`
	Bytes []byte            `json:"bytes"`
	Any   any               `json:"any"`
	Raw   json.RawMessage   `json:"raw"`
	M     map[string]*int64 `json:"m"`
}

// The codec reads and writes what encoding/json does, plain kinds, escapes, types with
// methods of their own, case-insensitive names and all; the tags add read-only, fill,
// const and additional properties.
func TestCodecAgreesWithEncodingJSON(t *testing.T) {
	data := `{"id":"x","KIND":"k","tags":["a"],"s":"\u003c\u00e9\"\\\n\u2028","i":-7,"f":1.5e3,"b":true,"p":3,` +
		`"t":"2024-03-01T10:00:00Z","bytes":"aGk=","any":{"n":[1,"2",null]},"raw":[1, 2],"m":{"a":1,"b":null},"extra":{"z":1}}`
	var got object
	if err := json.Unmarshal([]byte(data), &got); err != nil {
		t.Fatal(err)
	}
	var want twin
	if err := json.Unmarshal([]byte(data), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(asTwin(got), want) {
		t.Errorf("codec read\n%+v\nencoding/json\n%+v", asTwin(got), want)
	}
	if !reflect.DeepEqual(got.More, map[string]any{"extra": map[string]any{"z": 1.0}}) {
		t.Errorf("additional properties %v", got.More)
	}
	out, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	want.ID, want.Unit = "", "cm"
	wantOut, _ := json.Marshal(want)
	wantOut = []byte(strings.Replace(strings.Replace(string(wantOut), `"id":"",`, "", 1), `}}`, `},"extra":{"z":1}}`, 1))
	if string(out) != string(wantOut) {
		t.Errorf("codec wrote\n%s\nwant\n%s", out, wantOut)
	}
	out, _ = json.Marshal(object{})
	if !strings.HasPrefix(string(out), `{"kind":"thing","tags":[],"unit":"cm","s":""`) {
		t.Errorf("zero object written as %s", out)
	}
}

func asTwin(o object) twin {
	return twin{o.ID, o.Kind, o.Tags, o.Unit, o.S, o.I, o.F, o.B, o.P, o.T, o.Bytes, o.Any, o.Raw, o.M}
}

// Hostile JSON ends with encoding/json's errors, never a panic: invalid, too deep, of the
// wrong kind.
func TestCodecHostileJSON(t *testing.T) {
	var u retryU
	for _, data := range []string{``, `{`, `{"x":}`, `[1,2`, strings.Repeat(`{"child":`, 10001) + "null" + strings.Repeat("}", 10001)} {
		var syntax *json.SyntaxError
		if err := Unmarshal([]byte(data), &u); !errors.As(err, &syntax) {
			t.Errorf("Unmarshal(%.20q): %v, want a syntax error", data, err)
		}
	}
	var o object
	if err := Unmarshal([]byte(`{"i":"seven","s":"ok"}`), &o); err == nil || o.S != "ok" {
		t.Errorf("a member of the wrong kind: %v, and the others read: %q", err, o.S)
	}
	if err := Unmarshal([]byte(`[1]`), &o); err == nil {
		t.Error("an array into an object: no error")
	}
	// A union takes no variant for JSON none fits, and keeps it.
	if err := Unmarshal([]byte(`"text"`), &u); err != nil || u.A != nil || u.B != nil || string(u.Raw) != `"text"` {
		t.Errorf("a string into a union of objects: %+v, %v", u, err)
	}
	if _, err := Marshal(&retryU{}); !errors.Is(err, ErrNoVariant) {
		t.Errorf("an empty union: %v", err)
	}
	if _, err := Marshal(&retryU{A: &retryA{}, B: &retryB{}}); !errors.Is(err, ErrManyVariants) {
		t.Errorf("two variants: %v", err)
	}
}

// A value that holds itself through an any field or an additionalProperties map is refused
// as a cycle, as any other: what an any holds is written by the same encoder.
func TestCyclicValueThroughAnyFailsToMarshal(t *testing.T) {
	for name, o := range map[string]*object{
		"any":        func() *object { o := &object{}; o.Any = o; return o }(),
		"additional": func() *object { o := &object{}; o.More = map[string]any{"self": o}; return o }(),
	} {
		if _, err := Marshal(o); err == nil || !strings.Contains(err.Error(), "cycle") {
			t.Errorf("%s: err = %v, want a cycle", name, err)
		}
	}
	// What an any holds is written as encoding/json writes it.
	o := &object{Any: map[string]any{"n": 1.5, "s": "<x>", "l": []any{true, nil}}}
	got, err := Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(o.Any)
	if !strings.Contains(string(got), `"any":`+string(want)) {
		t.Errorf("Marshal = %s, want the any as encoding/json writes it, %s", got, want)
	}
}

// FuzzCodecAgreesWithEncodingJSON holds the codec's reading to encoding/json's on the
// same input: both fail, or both succeed and read the same values.
func FuzzCodecAgreesWithEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"id":"x","KIND":"k","tags":["a"],"s":"\u003c\u00e9\"\\\n\u2028","i":-7,"f":1.5e3,"b":true,"p":3,` +
		`"t":"2024-03-01T10:00:00Z","bytes":"aGk=","any":{"n":[1,"2",null]},"raw":[1, 2],"m":{"a":1,"b":null},"extra":{"z":1}}`))
	f.Add([]byte(`{"s":null,"i":1e3,"p":null,"tags":null,"m":{},"S":"dup","s":"last"}`))
	f.Add([]byte(`{"i":"seven","s":"ok","f":-0,"b":false}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(`{"t":"not a time","bytes":"!!"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var got object
		gotErr := Unmarshal(data, &got)
		var want twin
		wantErr := json.Unmarshal(data, &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%q: codec error %v, encoding/json error %v", data, gotErr, wantErr)
		}
		if gotErr == nil && !reflect.DeepEqual(asTwin(got), want) {
			t.Fatalf("%q: codec read\n%+v\nencoding/json\n%+v", data, asTwin(got), want)
		}
	})
}
