package clientcode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// jsonField is one field of a struct whose wire names json tags cannot spell: its
// name, its value (a pointer to it, for unmarshalling), and whether a nil value is
// left out.
type jsonField struct {
	name      string
	value     any
	omitEmpty bool
}

// marshalFields writes fields as a JSON object under their exact names.
func marshalFields(fields []jsonField) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	n := 0
	for _, f := range fields {
		if f.omitEmpty && isNil(f.value) {
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

// unmarshalFields reads a JSON object into fields, each by its exact name.
func unmarshalFields(data []byte, fields []jsonField) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	for _, f := range fields {
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

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// marshalRaw writes raw JSON, or null when there is none.
func marshalRaw(raw json.RawMessage) ([]byte, error) {
	if raw == nil {
		return []byte("null"), nil
	}
	return raw, nil
}

// discriminatorValue returns the string value of property name in the JSON object data,
// or "" when data is not an object or the property is not a string.
func discriminatorValue(data []byte, name string) string {
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

// asVariant decodes raw as a T.
func asVariant[T any](raw json.RawMessage) (T, error) {
	var v T
	if raw == nil {
		return v, fmt.Errorf("decode as %T: the value is unset", v)
	}
	err := json.Unmarshal(raw, &v)
	return v, err
}

// setVariant replaces *raw with the JSON of v.
func setVariant(raw *json.RawMessage, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	*raw = data
	return nil
}
