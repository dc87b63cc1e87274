package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/retrygen/retrygen/runtime"
)

// JSONField is one field of a struct whose wire names json tags cannot spell (empty, or
// with a comma, quote or backslash), for MarshalFields and UnmarshalFields.
type JSONField struct {
	name    string
	value   any
	omitNil bool
	// extra is set for ExtraFields: the additional properties, which take the members
	// that no other field names.
	extra interface {
		members() ([]rawMember, error)
		set(name string, raw json.RawMessage) error
	}
}

// ExtraFields stands for the additional properties *m: MarshalFields writes its members
// after the other fields, in key order, and UnmarshalFields reads into it the members no
// other field names.
func ExtraFields[T any](m *map[string]T) JSONField { return JSONField{extra: extraMap[T]{m}} }

type extraMap[T any] struct{ m *map[string]T }

func (e extraMap[T]) members() ([]rawMember, error) {
	keys := make([]string, 0, len(*e.m))
	for k := range *e.m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]rawMember, 0, len(keys))
	for _, k := range keys {
		data, err := json.Marshal((*e.m)[k])
		if err != nil {
			return nil, fmt.Errorf("property %q: %w", k, err)
		}
		out = append(out, rawMember{name: k, value: data})
	}
	return out, nil
}

func (e extraMap[T]) set(name string, raw json.RawMessage) error {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("property %q: %w", name, err)
	}
	if *e.m == nil {
		*e.m = map[string]T{}
	}
	(*e.m)[name] = v
	return nil
}

// Field is the field name with value: the field's value to marshal, or a pointer to it
// to unmarshal.
func Field(name string, value any) JSONField { return JSONField{name: name, value: value} }

// OptionalField is the field name with value, left out when the value is nil or says it
// is zero (an absent Nullable).
func OptionalField(name string, value any) JSONField {
	return JSONField{name: name, value: value, omitNil: true}
}

// MarshalFields writes fields as a JSON object under their exact names, in order.
func MarshalFields(fields ...JSONField) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	n := 0
	declared := map[string]bool{}
	for _, f := range fields {
		declared[f.name] = f.extra == nil
	}
	for _, f := range fields {
		if f.extra != nil {
			members, err := f.extra.members()
			if err != nil {
				return nil, err
			}
			for _, m := range members {
				if declared[m.name] {
					continue
				}
				name, _ := json.Marshal(m.name)
				if n > 0 {
					buf.WriteByte(',')
				}
				n++
				buf.Write(name)
				buf.WriteByte(':')
				buf.Write(m.value)
			}
			continue
		}
		if f.omitNil && (isNil(f.value) || isZeroer(f.value)) {
			continue
		}
		name, err := json.Marshal(f.name)
		if err != nil {
			return nil, err
		}
		value, err := json.Marshal(f.value)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", f.name, err)
		}
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(value)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalFields reads the JSON object data into fields, each by its exact name; each
// field's value must be a pointer. Members no field names go to the ExtraFields among
// fields, if any, else are ignored.
func UnmarshalFields(data []byte, fields ...JSONField) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	declared := map[string]bool{}
	for _, f := range fields {
		if f.extra == nil {
			declared[f.name] = true
		}
	}
	for _, f := range fields {
		if f.extra != nil {
			for _, k := range slices.Sorted(maps.Keys(m)) {
				if !declared[k] {
					if err := f.extra.set(k, m[k]); err != nil {
						return err
					}
				}
			}
			continue
		}
		raw, ok := m[f.name]
		if !ok {
			continue
		}
		if err := json.Unmarshal(raw, f.value); err != nil {
			return fmt.Errorf("field %q: %w", f.name, err)
		}
	}
	return nil
}

// isZeroer reports whether v has an IsZero method that reports true, as `omitzero` does:
// one that takes a pointer (a Nullable's) is called on a copy of v.
func isZeroer(v any) bool {
	if z, ok := v.(zeroer); ok {
		return z.IsZero()
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || !reflect.PointerTo(rv.Type()).Implements(zeroerType) {
		return false
	}
	p := reflect.New(rv.Type())
	p.Elem().Set(rv)
	return p.Interface().(zeroer).IsZero()
}

type zeroer interface{ IsZero() bool }

var zeroerType = reflect.TypeFor[zeroer]()

// ErrNoVariant is the error marshalling a union whose no variant is set and that was not
// read from JSON: a zero union would otherwise go out as null, which the API does not
// accept where the union is required. (An optional union left zero is omitted; a nullable
// one is a wire.Nullable.)
var ErrNoVariant = runtime.ErrNoVariant

// ErrManyVariants is the error marshalling a union with more than one variant set: which
// one the API would receive cannot be told, so none is sent.
var ErrManyVariants = runtime.ErrManyVariants

// OneVariant returns an error that wraps ErrManyVariants when more than one of set, the
// union's variants each reported as set or not, is true.
func OneVariant(set ...bool) error {
	n := 0
	for _, b := range set {
		if b {
			n++
		}
	}
	if n > 1 {
		return fmt.Errorf("%w: %d of %d", ErrManyVariants, n, len(set))
	}
	return nil
}

// MarshalRaw returns raw, the JSON of a union that holds the value it was read from; with
// none, ErrNoVariant.
func MarshalRaw(raw json.RawMessage) ([]byte, error) {
	if raw == nil {
		return nil, ErrNoVariant
	}
	return raw, nil
}

// DiscriminatorValue returns the string value of property name in the JSON object data,
// or "" when data is not an object or the property is not a string.
func DiscriminatorValue(data []byte, name string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[name], &s) != nil {
		return ""
	}
	return s
}

// AsVariant decodes raw, a union's JSON, as a T. An unset union (nil) is an error.
func AsVariant[T any](raw json.RawMessage) (T, error) {
	var v T
	if raw == nil {
		return v, fmt.Errorf("decode as %T: the value is unset", v)
	}
	err := json.Unmarshal(raw, &v)
	return v, err
}

// SetVariant replaces *raw, a union's JSON, with the JSON of v.
func SetVariant(raw *json.RawMessage, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	*raw = data
	return nil
}
