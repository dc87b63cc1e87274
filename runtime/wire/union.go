package wire

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// A union without a discriminator is generated as a struct with one pointer field per
// variant, set by the caller or by decoding, and the JSON it was read from:
//
//	type Title struct {
//		String  *string
//		Integer *int64
//		Raw     json.RawMessage
//	}
//
//	func (v Title) MarshalJSON() ([]byte, error)      { return wire.MarshalUnion(v.Raw, v.String, v.Integer) }
//	func (v *Title) UnmarshalJSON(data []byte) error { return wire.UnmarshalUnion(data, &v.Raw, &v.String, &v.Integer) }

// MarshalUnion writes the variant of a union that is set: variants are the union's
// fields, each a pointer (nil when unset). With none set it writes raw, the JSON the value
// was read from, and with no raw either fails with ErrNoVariant; with more than one set it
// fails with ErrManyVariants, as which one the API would receive cannot be told. A value
// read from JSON and sent back unchanged is written as read, members its variant does not
// know included.
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
		data, err := json.Marshal(set)
		if err != nil || raw == nil {
			return data, err
		}
		if unchanged(raw, set, data) {
			return raw, nil
		}
		return data, nil
	}
	return nil, fmt.Errorf("%w: %d of %d", ErrManyVariants, n, len(variants))
}

// unchanged reports whether data, the JSON of variant (a *T), is what raw reads as into
// a T: the variant still holds what was read from raw.
func unchanged(raw json.RawMessage, variant any, data []byte) bool {
	fresh := reflect.New(reflect.TypeOf(variant).Elem())
	if json.Unmarshal(raw, fresh.Interface()) != nil {
		return false
	}
	again, err := json.Marshal(fresh.Interface())
	return err == nil && bytes.Equal(again, data)
}

// UnmarshalUnion keeps data in *raw and sets the one of fields (each a pointer to a
// union's field for one variant, a **T) whose type takes data's JSON kind and decodes it:
// a string for a string (or a type read from text, a date say), a number for a number
// (an integer first when the number has no fraction or exponent), true or false for a
// bool, an array for a slice, an object for a struct or map. An object goes to the struct
// whose fields name the most of its properties (a struct that names them all before a
// map, a map before a struct that names only some), the first of equals. The other
// fields are left nil; with none that fits, all are, and Raw still holds the JSON. null
// sets none. It never fails on a value that is JSON: a union of a response stays
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
	integral := kind != '"' && !bytes.ContainsAny(data, ".eE")
	fits := make([]reflect.Value, 0, len(targets))
	for _, t := range targets {
		if takesType(t.Type().Elem(), kind, integral) {
			fits = append(fits, t)
		}
	}
	switch {
	case kind == '{' && len(fits) > 1: // only a choice needs the members' names
		keys := objectKeys(data)
		// Highest score first: a struct that names every property, a map, then structs
		// by how many properties they name.
		score := func(t reflect.Type) int {
			switch t.Kind() {
			case reflect.Map:
				return 2 * len(keys)
			case reflect.Struct:
				n := known(t, keys)
				if n == len(keys) {
					return 2*len(keys) + 1
				}
				return n
			}
			return 0
		}
		slices.SortStableFunc(fits, func(a, b reflect.Value) int { return score(b.Type().Elem()) - score(a.Type().Elem()) })
	case integral:
		// An integer before a float, whatever their order in the union.
		slices.SortStableFunc(fits, func(a, b reflect.Value) int { return isInt(b.Type().Elem()) - isInt(a.Type().Elem()) })
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

// objectKeys returns the names of the members of the JSON object data.
func objectKeys(data []byte) map[string]bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	keys := make(map[string]bool, len(m))
	for k := range m {
		keys[k] = true
	}
	return keys
}

// known counts the keys that name a field of the struct type t by its json tag (or
// name, as encoding/json matches them), embedded structs' fields included.
func known(t reflect.Type, keys map[string]bool) int {
	n := 0
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			n += known(f.Type, keys)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if keys[name] {
			n++
		}
	}
	return n
}

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
)

// takesType reports whether a value of type t may be decoded from JSON that starts with
// kind; integral says a number has no fraction or exponent.
func takesType(t reflect.Type, kind byte, integral bool) bool {
	if t.Kind() == reflect.Interface {
		return true // a free-form variant takes anything
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) {
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
