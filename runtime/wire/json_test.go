package wire

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestMarshalFields(t *testing.T) {
	var a *string
	b := "x"
	out, err := MarshalFields(OptionalField("a,b", a), OptionalField("", &b), Field("-", 3), Field(`q"`, nil))
	if err != nil || string(out) != `{"":"x","-":3,"q\"":null}` {
		t.Errorf("MarshalFields = %s, %v", out, err)
	}
	var got string
	var n int
	if err := UnmarshalFields([]byte(`{"a,b":"y","-":4,"other":1}`), Field("a,b", &got), Field("-", &n), Field("absent", &b)); err != nil || got != "y" || n != 4 || b != "x" {
		t.Errorf("UnmarshalFields: %q %d %q %v", got, n, b, err)
	}
	if err := UnmarshalFields([]byte(`{"-":"no"}`), Field("-", &n)); err == nil {
		t.Error("a wrong type decoded")
	}
}

func TestUnionHelpers(t *testing.T) {
	// A zero union is no value: marshalling it fails rather than send null.
	if out, err := MarshalRaw(nil); !errors.Is(err, ErrNoVariant) {
		t.Errorf("MarshalRaw(nil) = %s, %v", out, err)
	}
	// More than one variant set is no value either.
	if err := OneVariant(true, false, true); !errors.Is(err, ErrManyVariants) {
		t.Errorf("OneVariant(true, false, true) = %v", err)
	}
	if err := OneVariant(false, true, false); err != nil {
		t.Errorf("OneVariant(false, true, false) = %v", err)
	}
	if out, _ := MarshalRaw(json.RawMessage(`{"a":1}`)); string(out) != `{"a":1}` {
		t.Errorf("MarshalRaw = %s", out)
	}
	for data, want := range map[string]string{`{"type":"cat"}`: "cat", `{"type":1}`: "", `[1]`: "", `{}`: ""} {
		if got := DiscriminatorValue([]byte(data), "type"); got != want {
			t.Errorf("DiscriminatorValue(%s) = %q, want %q", data, got, want)
		}
	}
	if _, err := AsVariant[int](nil); err == nil {
		t.Error("AsVariant of an unset union succeeded")
	}
	var raw json.RawMessage
	if err := SetVariant(&raw, point{X: 2}); err != nil {
		t.Fatal(err)
	}
	p, err := AsVariant[point](raw)
	if err != nil || p.X != 2 {
		t.Errorf("AsVariant = %+v, %v", p, err)
	}
}
