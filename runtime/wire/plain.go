package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// member is one member of an object value.
type member struct {
	name  string
	value any
}

// reduce is plain, except that asJSON (a parameter described by content rather than a
// schema) writes the value as one JSON text.
func reduce(v any, asJSON bool) (any, error) {
	if !asJSON {
		return plain(v)
	}
	if isNil(v) {
		return nil, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(data), nil
}

// scalar returns plain's string for v when v is a string, an int, int32 or int64 or a
// bool, the common parameter types, without boxing it into an interface as plain does; ok
// is false for any other type (a named type included), which plain reduces.
func scalar(v any) (s string, ok bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int64:
		return strconv.FormatInt(x, 10), true
	case int:
		return strconv.Itoa(x), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// plain reduces a parameter value to a string, a []any of plain values, or an object
// ([]member, sorted by name); nil means unset. Objects and other values with a JSON form
// are reduced through their JSON.
func plain(v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return x, nil
	case time.Time:
		return x.Format(time.RFC3339Nano), nil
	case []byte:
		if x == nil {
			return nil, nil
		}
		return base64.StdEncoding.EncodeToString(x), nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, nil
		}
		return plain(rv.Elem().Interface())
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return strconv.FormatBool(rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(rv.Uint(), 10), nil
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil, nil
		}
		if _, ok := v.(json.Marshaler); !ok {
			items := make([]any, 0, rv.Len())
			for i := range rv.Len() {
				item, err := plain(rv.Index(i).Interface())
				if err != nil {
					return nil, err
				}
				items = append(items, item)
			}
			return items, nil
		}
	case reflect.Map:
		if rv.IsNil() {
			return nil, nil
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	return plainJSON(x), nil
}

// plainJSON reduces a decoded JSON value as plain does.
func plainJSON(x any) any {
	switch x := x.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case []any:
		for i := range x {
			x[i] = plainJSON(x[i])
		}
		return x
	case map[string]any:
		members := make([]member, 0, len(x))
		for k, v := range x {
			members = append(members, member{name: k, value: plainJSON(v)})
		}
		slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.name, b.name) })
		return members
	}
	return nil
}

// isNil reports whether v is nil or a nil pointer, slice, map or interface.
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

// plainString writes a plain value as one string: arrays and objects comma-separated.
func plainString(x any) string {
	switch x := x.(type) {
	case string:
		return x
	case []any:
		return joinPlain(x, ",")
	case []member:
		return joinMembers(x, ",")
	}
	return ""
}

func joinPlain(items []any, sep string) string {
	var b strings.Builder
	for i, item := range items {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(plainString(item))
	}
	return b.String()
}

// joinMembers writes an object unexploded: "k1,v1,k2,v2".
func joinMembers(members []member, sep string) string {
	var b strings.Builder
	for i, m := range members {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(m.name)
		b.WriteString(sep)
		b.WriteString(plainString(m.value))
	}
	return b.String()
}

// joinPairs writes an object exploded: "k1=v1,k2=v2".
func joinPairs(members []member, eq, sep string) string {
	var b strings.Builder
	for i, m := range members {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(m.name)
		b.WriteString(eq)
		b.WriteString(plainString(m.value))
	}
	return b.String()
}

// addDeep adds x in deepObject style: "name[key]=value", nested objects and arrays as
// "name[key][sub]" and "name[key][0]".
func addDeep(values url.Values, name string, x any) {
	switch x := x.(type) {
	case string:
		values.Add(name, x)
	case []any:
		for i, item := range x {
			addDeep(values, name+"["+strconv.Itoa(i)+"]", item)
		}
	case []member:
		for _, m := range x {
			addDeep(values, name+"["+m.name+"]", m.value)
		}
	}
}
