package wire

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

type unionObjA struct {
	Name string `json:"name"`
}

type unionObjB struct {
	Name string `json:"name"`
	Size int    `json:"size"`
}

// union is what a generated union of these variants holds.
type union struct {
	Str  *string
	Num  *float64
	Int  *int64
	List *[]string
	A    *unionObjA
	B    *unionObjB
	Time *time.Time
	raw  json.RawMessage
}

func (u *union) decode(t *testing.T, data string) {
	t.Helper()
	if err := UnmarshalUnion([]byte(data), &u.raw, &u.Str, &u.Num, &u.Int, &u.List, &u.A, &u.B, &u.Time); err != nil {
		t.Fatalf("UnmarshalUnion(%s): %v", data, err)
	}
	if string(u.raw) != data {
		t.Errorf("raw = %s, want %s", u.raw, data)
	}
}

// A union's JSON picks the variant by its kind: an integer before a float whatever
// their order, an object the struct that names all its properties, a string a type read
// from text only when no string variant comes first; a value no variant takes, or null,
// sets none and is no error.
func TestUnmarshalUnion(t *testing.T) {
	cases := []struct {
		data string
		want func(u *union) bool
	}{
		{`"bug"`, func(u *union) bool { return u.Str != nil && *u.Str == "bug" }},
		{`3`, func(u *union) bool { return u.Int != nil && *u.Int == 3 && u.Num == nil }},
		{`3.5`, func(u *union) bool { return u.Num != nil && *u.Num == 3.5 && u.Int == nil }},
		{`1e3`, func(u *union) bool { return u.Num != nil && *u.Num == 1000 }},
		{`["a","b"]`, func(u *union) bool { return u.List != nil && len(*u.List) == 2 }},
		{`{"name":"x"}`, func(u *union) bool { return u.A != nil && u.B == nil }},
		{`{"name":"x","size":2}`, func(u *union) bool { return u.B != nil && u.B.Size == 2 && u.A == nil }},
		{`{"name":"x","other":true}`, func(u *union) bool { return u.A != nil && u.B == nil }},
		{`true`, func(u *union) bool { return u.Str == nil && u.Num == nil && u.A == nil }},
		{`null`, func(u *union) bool { return u.Str == nil && u.Int == nil && u.A == nil }},
		{`[1,2]`, func(u *union) bool { return u.List == nil }},
	}
	for _, c := range cases {
		u := union{Str: new(string), A: &unionObjA{}} // decoding clears what was set
		u.decode(t, c.data)
		if !c.want(&u) {
			t.Errorf("UnmarshalUnion(%s) set %+v", c.data, u)
		}
	}
	var tm struct {
		Time *time.Time
		raw  json.RawMessage
	}
	if err := UnmarshalUnion([]byte(`"2024-03-01T10:00:00Z"`), &tm.raw, &tm.Time); err != nil || tm.Time == nil || tm.Time.Year() != 2024 {
		t.Errorf("a time variant: %v, %v", tm.Time, err)
	}
}

// The variant set is written; with none, the JSON read; with neither, ErrNoVariant;
// with two, ErrManyVariants.
func TestMarshalUnion(t *testing.T) {
	s, n := "bug", int64(3)
	var none *int64
	for _, c := range []struct {
		raw      json.RawMessage
		variants []any
		want     string
		err      error
	}{
		{nil, []any{&s, none}, `"bug"`, nil},
		{nil, []any{(*string)(nil), &n}, `3`, nil},
		{json.RawMessage(`{"x":1}`), []any{(*string)(nil), none}, `{"x":1}`, nil},
		{nil, []any{(*string)(nil), none}, "", ErrNoVariant},
		{nil, []any{&s, &n}, "", ErrManyVariants},
	} {
		got, err := MarshalUnion(c.raw, c.variants...)
		if !errors.Is(err, c.err) || string(got) != c.want {
			t.Errorf("MarshalUnion(%s, %v) = %s, %v; want %s, %v", c.raw, c.variants, got, err, c.want, c.err)
		}
	}
}

// A union read from JSON and sent back unchanged is written as read, members its variant
// does not name included; changed, it is written as it now is.
func TestUnionRoundTrip(t *testing.T) {
	var u union
	data := `{"name":"x","extra":[1,2]}`
	u.decode(t, data)
	if u.A == nil {
		t.Fatalf("decoded %+v", u)
	}
	got, err := MarshalUnion(u.raw, u.Str, u.Num, u.Int, u.List, u.A, u.B, u.Time)
	if err != nil || string(got) != data {
		t.Errorf("unchanged: %s, %v; want %s", got, err, data)
	}
	u.A.Name = "y"
	got, err = MarshalUnion(u.raw, u.Str, u.Num, u.Int, u.List, u.A, u.B, u.Time)
	if err != nil || string(got) != `{"name":"y"}` {
		t.Errorf("changed: %s, %v", got, err)
	}
}
