package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// MarshalObject writes v, a struct value of a type without JSON methods of its own (the
// generated type converted to a local type), as a JSON object, and then leaves out the
// properties named in readOnly, which a request never sends, and adds the members of
// extra, a map[string]T of additional properties (nil when there are none), in key
// order. A member of extra that a declared property already writes is left out.
func MarshalObject(v any, extra any, readOnly ...string) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	ev := reflect.ValueOf(extra)
	if len(readOnly) == 0 && (extra == nil || ev.Len() == 0) {
		return data, nil
	}
	members, err := objectMembers(data)
	if err != nil {
		return nil, err
	}
	members = slices.DeleteFunc(members, func(m rawMember) bool { return slices.Contains(readOnly, m.name) })
	if extra != nil && ev.Len() > 0 {
		declared := knownNames(reflect.TypeOf(v))
		keys := make([]string, 0, ev.Len())
		for _, k := range ev.MapKeys() {
			keys = append(keys, k.String())
		}
		slices.Sort(keys)
		for _, k := range keys {
			if declared[k] {
				continue
			}
			value, err := json.Marshal(ev.MapIndex(reflect.ValueOf(k).Convert(ev.Type().Key())).Interface())
			if err != nil {
				return nil, fmt.Errorf("property %q: %w", k, err)
			}
			members = append(members, rawMember{name: k, value: value})
		}
	}
	return writeObject(members)
}

// UnmarshalObject reads the JSON object data into v, a pointer to a struct of a type
// without JSON methods of its own, and the members no field of it declares into *extra.
// An object without such members leaves *extra nil.
func UnmarshalObject[T any](data []byte, v any, extra *map[string]T) error {
	if err := json.Unmarshal(data, v); err != nil {
		return err
	}
	*extra = nil
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	members, err := objectMembers(data)
	if err != nil {
		return err
	}
	declared := knownNames(reflect.TypeOf(v).Elem())
	for _, m := range members {
		if declared[m.name] {
			continue
		}
		var x T
		if err := json.Unmarshal(m.value, &x); err != nil {
			return fmt.Errorf("property %q: %w", m.name, err)
		}
		if *extra == nil {
			*extra = map[string]T{}
		}
		(*extra)[m.name] = x
	}
	return nil
}

// MarshalVariant writes v, the variant of a union that is set, with its discriminator
// property: kept when it holds one of values, the values that select this variant, and
// else set to the first of them (the spec's mapping value, or the schema's name).
func MarshalVariant(v any, discriminator string, values ...string) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil || len(values) == 0 {
		return data, err
	}
	members, err := objectMembers(data)
	if err != nil {
		return nil, err
	}
	value, _ := json.Marshal(values[0])
	for i, m := range members {
		if m.name != discriminator {
			continue
		}
		var s string
		if json.Unmarshal(m.value, &s) == nil && slices.Contains(values, s) {
			return data, nil
		}
		members[i].value = value
		return writeObject(members)
	}
	return writeObject(append([]rawMember{{name: discriminator, value: value}}, members...))
}

// rawMember is one member of a JSON object, its value undecoded.
type rawMember struct {
	name  string
	value json.RawMessage
}

// objectMembers splits a JSON object into its members, in order.
func objectMembers(data []byte) ([]rawMember, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object, got %s", bytes.TrimSpace(data))
	}
	var out []rawMember
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		out = append(out, rawMember{name: name, value: value})
	}
	return out, nil
}

func writeObject(members []rawMember) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			buf.WriteByte(',')
		}
		name, err := json.Marshal(m.name)
		if err != nil {
			return nil, err
		}
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(m.value)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

var knownCache sync.Map // reflect.Type → map[string]bool

// knownNames returns the JSON names of the fields of struct type t, as encoding/json
// reads them from the tags: the names its properties are written under.
func knownNames(t reflect.Type) map[string]bool {
	if m, ok := knownCache.Load(t); ok {
		return m.(map[string]bool)
	}
	m := map[string]bool{}
	if t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if name == "" {
				name = f.Name
			}
			m[name] = true
		}
	}
	knownCache.Store(t, m)
	return m
}
