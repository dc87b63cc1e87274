package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Nullable is an optional property that may also be null, so that a request can say each
// of three things: leave the property out (the zero value), send null (Null), or send a
// value (Value). A generated struct tags such fields `omitzero`, so that the zero value
// is left out; a merge-patch clears a property by sending Null.
//
// Decoding sets it the same way: a property that is absent leaves the zero value, null
// gives IsNull, anything else a value.
type Nullable[T any] struct {
	value T
	state nullState
}

type nullState uint8

const (
	absent nullState = iota
	null
	present
)

// Value returns a Nullable that holds v.
func Value[T any](v T) Nullable[T] { return Nullable[T]{value: v, state: present} }

// Null returns a Nullable that is null.
func Null[T any]() Nullable[T] { return Nullable[T]{state: null} }

// Get returns the value and true, or the zero value and false when n is absent or null.
func (n Nullable[T]) Get() (T, bool) { return n.value, n.state == present }

// IsNull reports whether n is null.
func (n Nullable[T]) IsNull() bool { return n.state == null }

// IsZero reports whether n is absent, which leaves an `omitzero` field out of JSON.
func (n Nullable[T]) IsZero() bool { return n.state == absent }

// MarshalJSON writes the value, or null when n is null or absent.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if n.state != present {
		return []byte("null"), nil
	}
	return json.Marshal(n.value)
}

// UnmarshalJSON reads null as null and anything else as the value.
func (n *Nullable[T]) UnmarshalJSON(data []byte) error {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		*n = Nullable[T]{state: null}
		return nil
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*n = Nullable[T]{value: v, state: present}
	return nil
}

// MarshalNullable writes value when set, else null: the MarshalJSON of a generated
// package's Nullable.
func MarshalNullable(value any, set bool) ([]byte, error) {
	if !set {
		return []byte("null"), nil
	}
	return marshalValue(value)
}

// UnmarshalNullable decodes data into *value and reports true, or reports false for
// null, which leaves *value alone: the UnmarshalJSON of a generated package's Nullable.
func UnmarshalNullable(data []byte, value any) (bool, error) {
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return false, nil
	}
	rv := reflect.ValueOf(value)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return true, &json.InvalidUnmarshalError{Type: reflect.TypeOf(value)}
	}
	return true, unmarshalInto(data, rv.Elem(), planOf(rv.Type().Elem()))
}
