package wire

import (
	"encoding/json"
	"io"
	"reflect"
	"testing"
)

type objPlain struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Tag  *int   `json:"tag,omitzero"`
}

func TestMarshalObjectReadOnlyAndExtra(t *testing.T) {
	v := objPlain{ID: "server-set", Name: "n"}
	extra := map[string]any{"extra2": 2, "extra1": "v1", "name": "shadowed"}
	data, err := MarshalObject(v, extra, "id")
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"n","extra1":"v1","extra2":2}`; string(data) != want {
		t.Errorf("got %s, want %s", data, want)
	}
	data, err = MarshalObject(v, map[string]string(nil))
	if err != nil || string(data) != `{"id":"server-set","name":"n"}` {
		t.Errorf("got %s, %v", data, err)
	}
}

func TestUnmarshalObjectKeepsExtra(t *testing.T) {
	var v objPlain
	var extra map[string]string
	if err := UnmarshalObject([]byte(`{"id":"1","name":"n","extra1":"v1","extra2":"v2"}`), &v, &extra); err != nil {
		t.Fatal(err)
	}
	if v.Name != "n" || !reflect.DeepEqual(extra, map[string]string{"extra1": "v1", "extra2": "v2"}) {
		t.Errorf("got %+v %v", v, extra)
	}
	data, err := MarshalObject(v, extra)
	if err != nil || string(data) != `{"id":"1","name":"n","extra1":"v1","extra2":"v2"}` {
		t.Errorf("round trip %s, %v", data, err)
	}
	if err := UnmarshalObject([]byte(`{"name":"n","bad":1}`), &v, &extra); err == nil {
		t.Error("an additional property of the wrong type decoded")
	}
	if err := UnmarshalObject([]byte(`{"name":"m"}`), &v, &extra); err != nil || extra != nil {
		t.Errorf("no extra members: %v, %v", extra, err)
	}
}

type cat struct {
	PetType string `json:"petType"`
	Meow    int    `json:"meow"`
}

func TestMarshalVariantWritesDiscriminator(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{cat{Meow: 1}, `{"petType":"kitty","meow":1}`},
		{cat{PetType: "cat", Meow: 1}, `{"petType":"cat","meow":1}`},
		{cat{PetType: "dog", Meow: 1}, `{"petType":"kitty","meow":1}`},
		{struct {
			Meow int `json:"meow"`
		}{1}, `{"petType":"kitty","meow":1}`},
	} {
		data, err := MarshalVariant(tc.v, "petType", "kitty", "cat")
		if err != nil || string(data) != tc.want {
			t.Errorf("%+v: got %s (%v), want %s", tc.v, data, err, tc.want)
		}
	}
}

func TestExtraFields(t *testing.T) {
	var a string
	var extra map[string]int
	if err := UnmarshalFields([]byte(`{"a,b":"x","n":1,"m":2}`), Field("a,b", &a), ExtraFields(&extra)); err != nil {
		t.Fatal(err)
	}
	if a != "x" || !reflect.DeepEqual(extra, map[string]int{"n": 1, "m": 2}) {
		t.Errorf("got %q %v", a, extra)
	}
	extra["a,b"] = 9 // a declared name is not written twice
	data, err := MarshalFields(Field("a,b", a), ExtraFields(&extra))
	if err != nil || string(data) != `{"a,b":"x","m":2,"n":1}` {
		t.Errorf("got %s, %v", data, err)
	}
}

type patch struct {
	Name Nullable[string]   `json:"name,omitzero"`
	Tag  Nullable[string]   `json:"tag,omitzero"`
	Tags Nullable[[]string] `json:"tags,omitzero"`
	Note Nullable[int]      `json:"note,omitzero"`
}

// Absent, null and a value are three things on the wire and after decoding.
func TestNullable(t *testing.T) {
	data, err := json.Marshal(patch{Name: Value("rex"), Tag: Null[string](), Tags: Value([]string{})})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"rex","tag":null,"tags":[]}`; string(data) != want {
		t.Errorf("got %s, want %s", data, want)
	}
	var p patch
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	if name, ok := p.Name.Get(); !ok || name != "rex" {
		t.Errorf("name %q %v", name, ok)
	}
	if !p.Tag.IsNull() || p.Tag.IsZero() {
		t.Error("tag is not null")
	}
	if !p.Note.IsZero() || p.Note.IsNull() {
		t.Error("note is not absent")
	}
	if tags, ok := p.Tags.Get(); !ok || tags == nil || len(tags) != 0 {
		t.Errorf("tags %#v %v", tags, ok)
	}
}

func TestDate(t *testing.T) {
	d, err := ParseDate("2024-02-29")
	if err != nil || d != (Date{2024, 2, 29}) {
		t.Fatalf("%v %v", d, err)
	}
	data, err := json.Marshal(struct{ D Date }{d})
	if err != nil || string(data) != `{"D":"2024-02-29"}` {
		t.Errorf("%s %v", data, err)
	}
	var back struct{ D Date }
	if err := json.Unmarshal(data, &back); err != nil || back.D != d {
		t.Errorf("%v %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"D":"2024-02-29T00:00:00Z"}`), &back); err == nil {
		t.Error("a date-time decoded as a date")
	}
	if _, err := json.Marshal(Date{}); err == nil {
		t.Error("the zero date marshalled")
	}
}

func TestJSONBodyNilCollections(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{{[]string(nil), "[]"}, {map[string]int(nil), "{}"}, {[]byte(nil), "null"}} {
		r := NewRequest("POST")
		r.JSONBody("application/json", tc.v)
		data, _ := readAll(r)
		if data != tc.want {
			t.Errorf("%#v: got %s, want %s", tc.v, data, tc.want)
		}
	}
}

func readAll(r *Request) (string, error) {
	b, err := io.ReadAll(r.body)
	return string(b), err
}

func TestOptionalFieldOmitsAbsentNullable(t *testing.T) {
	data, err := MarshalFields(
		OptionalField("a,b", Nullable[string]{}),
		OptionalField("c,d", Null[string]()),
		OptionalField("e", Value("x")),
	)
	if want := `{"c,d":null,"e":"x"}`; err != nil || string(data) != want {
		t.Errorf("got %s (%v), want %s", data, err, want)
	}
}
