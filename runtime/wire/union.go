package wire

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
)

// A union without a discriminator is generated as a struct with one pointer field per
// variant, set by the caller or by decoding, and the JSON it was read from:
//
//	type Title struct {
//		String  *string
//		Integer *int64
//		raw     json.RawMessage
//	}
//
//	func (v Title) MarshalJSON() ([]byte, error)      { return wire.MarshalUnion(v.raw, v.String, v.Integer) }
//	func (v *Title) UnmarshalJSON(data []byte) error { return wire.UnmarshalUnion(data, &v.raw, &v.String, &v.Integer) }

// MarshalUnion writes the variant of a union that is set: variants are the union's
// fields, each a pointer (nil when unset). With none set it writes raw, the JSON the value
// was read from, and with no raw either fails with ErrNoVariant; with more than one set it
// fails with ErrManyVariants, as which one the API would receive cannot be told.
func MarshalUnion(raw json.RawMessage, variants ...any) ([]byte, error) {
	var set any
	n := 0
	for _, v := range variants {
		if !isNil(v) {
			set = v
			n++
		}
	}
	switch n {
	case 0:
		return MarshalRaw(raw)
	case 1:
		return json.Marshal(set)
	}
	return nil, fmt.Errorf("%w: %d of %d", ErrManyVariants, n, len(variants))
}

// UnmarshalUnion keeps data in *raw and sets the first of fields (each a pointer to a
// union's field for one variant, a **T) whose type takes data's JSON kind and decodes it:
// a string for a string (or a type read from text, a date say), a number for a number
// (an integer first when the number has no fraction or exponent), true or false for a
// bool, an array for a slice, an object for a struct or map. An object goes to the first
// struct whose fields name every property, else the first that decodes at all. The
// other fields are left nil; with none that fits, all are, and Raw still holds the JSON.
// null sets none. It never fails on a value that is JSON: a union of a response stays
// readable whatever the server sends.
func UnmarshalUnion(data []byte, raw *json.RawMessage, fields ...any) error {
	*raw = append(json.RawMessage(nil), data...)
	targets := make([]reflect.Value, 0, len(fields))
	for _, f := range fields {
		t := reflect.ValueOf(f).Elem() // the *T field
		t.SetZero()
		targets = append(targets, t)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] == 'n' {
		return nil
	}
	kind := data[0]
	integral := kind != '"' && bytes.IndexAny(data, ".eE") < 0
	fits := make([]reflect.Value, 0, len(targets))
	for _, t := range targets {
		if takes(t.Type().Elem(), kind, integral) {
			fits = append(fits, t)
		}
	}
	if integral {
		// An integer before a float, whatever their order in the union.
		slices.SortStableFunc(fits, func(a, b reflect.Value) int { return isInt(b.Type().Elem()) - isInt(a.Type().Elem()) })
	}
	if kind == '{' {
		for _, t := range fits {
			if decodeStrict(data, t) {
				return nil
			}
		}
	}
	for _, t := range fits {
		v := reflect.New(t.Type().Elem())
		if json.Unmarshal(data, v.Interface()) == nil {
			t.Set(v)
			return nil
		}
	}
	return nil
}

// decodeStrict sets t to data decoded as its element type when every property of data
// names a field.
func decodeStrict(data []byte, t reflect.Value) bool {
	v := reflect.New(t.Type().Elem())
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(v.Interface()) != nil {
		return false
	}
	t.Set(v)
	return true
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// takes reports whether a value of type t may be decoded from JSON that starts with
// kind; integral says a number has no fraction or exponent.
func takes(t reflect.Type, kind byte, integral bool) bool {
	if t.Kind() == reflect.Interface {
		return true // a free-form variant takes anything
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return true // it decides for itself
	}
	switch kind {
	case '"':
		return t.Kind() == reflect.String || reflect.PointerTo(t).Implements(textUnmarshaler)
	case 't', 'f':
		return t.Kind() == reflect.Bool
	case '[':
		return t.Kind() == reflect.Slice || t.Kind() == reflect.Array
	case '{':
		return t.Kind() == reflect.Struct || t.Kind() == reflect.Map
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return true
	}
	return integral && isInt(t) == 1
}

// isInt is 1 for an integer type, 0 for any other.
func isInt(t reflect.Type) int {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return 1
	}
	return 0
}
