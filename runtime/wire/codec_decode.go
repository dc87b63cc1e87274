package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// Unmarshal reads the JSON data into v, a pointer to a generated union, object or
// Nullable: the UnmarshalJSON of such a type. Each union below keeps the JSON it was read
// from in its Raw, a part of one copy of data. The work and the memory are linear in the
// size of data, however deeply its unions nest.
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &json.InvalidUnmarshalError{Type: reflect.TypeOf(v)}
	}
	p := planOf(rv.Type().Elem())
	if p.kind == planLeaf {
		return fmt.Errorf("wire.Unmarshal: %s is not a generated union, object or Nullable", rv.Type().Elem())
	}
	return unmarshalInto(data, rv.Elem(), p)
}

// unmarshalInto reads data into v, which is addressable, by plan p.
func unmarshalInto(data []byte, v reflect.Value, p *plan) error {
	if !json.Valid(data) {
		var raw json.RawMessage
		return json.Unmarshal(data, &raw) // encoding/json's syntax error
	}
	d := decoder{data: data}
	_, err := d.decode(d.ws(0), v, p)
	if s, ok := err.(*stopError); ok {
		return s.err
	}
	return err
}

// decoder reads one JSON value, valid (json.Valid), into Go values.
type decoder struct {
	data []byte
	// own is a copy of data, made for the first union, whose Raw is a part of it.
	own []byte
	// ends holds the end of each array and object a look ahead skipped, by its start, so
	// that no part of data is skipped twice.
	ends map[int]int
	// unions holds each union read, by its offset and type: a union whose variant is
	// tried again takes the unions below it from here rather than reading them again,
	// so that no union is read twice however many variants above it are tried.
	unions map[unionAt]unionRead
	// scores holds the look ahead's scores of the value at scoresAt, by plan, and
	// scoreKeys its members (see fitScore).
	scores    map[*plan]int64
	scoresAt  int
	scoreKeys []lookMember
}

type unionAt struct {
	at int
	t  reflect.Type
}

// unionRead is a union read at one offset: its value and its failure, if any; done is
// false while it is being read.
type unionRead struct {
	v    reflect.Value
	err  error
	done bool
}

func (d *decoder) ws(i int) int {
	for i < len(d.data) {
		switch d.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// end returns the offset just past the value at i; with record, the ends of the arrays
// and objects it holds are kept for the next look ahead.
func (d *decoder) end(i int, record bool) int {
	switch d.data[i] {
	case '"':
		return d.stringEnd(i)
	case '{', '[':
		if e, ok := d.ends[i]; ok {
			return e
		}
		return d.skipContainer(i, record)
	}
	j := i
	for j < len(d.data) && isScalarByte(d.data[j]) {
		j++
	}
	return j
}

func isScalarByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '+' || c == '-'
}

func (d *decoder) stringEnd(i int) int {
	for j := i + 1; j < len(d.data); j++ {
		switch d.data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(d.data)
}

// skipContainer returns the end of the array or object at i, skipping those it holds
// whose ends are known.
func (d *decoder) skipContainer(i int, record bool) int {
	if record && d.ends == nil {
		d.ends = map[int]int{}
	}
	var starts []int
	depth := 0
	for j := i; j < len(d.data); j++ {
		switch d.data[j] {
		case '"':
			j = d.stringEnd(j) - 1
		case '{', '[':
			if e, ok := d.ends[j]; ok {
				j = e - 1
				continue
			}
			depth++
			if record {
				starts = append(starts, j)
			}
		case '}', ']':
			depth--
			if record {
				d.ends[starts[len(starts)-1]] = j + 1
				starts = starts[:len(starts)-1]
			}
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(d.data)
}

// name returns the member name (a JSON string) at i, and the offset of its value.
func (d *decoder) name(i int) ([]byte, int) {
	e := d.stringEnd(i)
	raw := d.data[i:e]
	var name []byte
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		name = raw[1 : len(raw)-1]
	} else { // escapes, or invalid UTF-8 that encoding/json reads as U+FFFD
		var s string
		_ = json.Unmarshal(raw, &s)
		name = []byte(s)
	}
	return name, d.ws(d.ws(e) + 1)
}

// members calls member for each member of the object at i with its name and the offset
// of its value; member returns the offset past the value. It returns the offset past
// the object and the first error member returned: like encoding/json, it reads the
// other members still, unless the error is one after which encoding/json stops (see
// stop); then it returns at once.
func (d *decoder) members(i int, member func(name []byte, at int) (int, error)) (int, error) {
	j := d.ws(i + 1)
	if d.data[j] == '}' {
		return j + 1, nil
	}
	var first error
	for {
		name, at := d.name(j)
		end, err := member(name, at)
		if err != nil && first == nil {
			first = err
		}
		if stops(err) {
			return end, err
		}
		j = d.ws(end)
		if d.data[j] != ',' {
			return j + 1, first
		}
		j = d.ws(j + 1)
	}
}

// elements calls elem for each element of the array at i, as members does.
func (d *decoder) elements(i int, elem func(at int) (int, error)) (int, error) {
	j := d.ws(i + 1)
	if d.data[j] == ']' {
		return j + 1, nil
	}
	var first error
	for {
		end, err := elem(j)
		if err != nil && first == nil {
			first = err
		}
		if stops(err) {
			return end, err
		}
		j = d.ws(end)
		if d.data[j] != ',' {
			return j + 1, first
		}
		j = d.ws(j + 1)
	}
}

// typeError is encoding/json's error for the value at i, which type t cannot hold.
func (d *decoder) typeError(i int, t reflect.Type) error {
	what := "number"
	switch d.data[i] {
	case '"':
		what = "string"
	case 't', 'f':
		what = "bool"
	case '[':
		what = "array"
	case '{':
		what = "object"
	}
	return &json.UnmarshalTypeError{Value: what, Type: t, Offset: int64(i)}
}

// decode reads the value at i into v by plan p and returns the offset past it.
func (d *decoder) decode(i int, v reflect.Value, p *plan) (int, error) {
	c := d.data[i]
	if c == 'n' {
		switch p.kind {
		case planPointer, planSlice, planMap:
			v.SetZero()
			return i + 4, nil
		case planNullable:
			field(v, p.value).SetZero()
			field(v, p.state).SetUint(1)
			return i + 4, nil
		case planStruct:
			return i + 4, nil
		case planUnion:
			return d.union(i, v, p)
		}
		return d.leaf(i, v, p)
	}
	switch p.kind {
	case planPointer:
		if v.IsNil() {
			v.Set(reflect.New(p.t.Elem()))
		}
		return d.decode(i, v.Elem(), p.elem)
	case planSlice:
		if c != '[' {
			return d.end(i, false), d.typeError(i, p.t)
		}
		s := reflect.New(p.t).Elem()
		s.Set(reflect.MakeSlice(p.t, 0, 0))
		end, err := d.elements(i, func(at int) (int, error) {
			n := s.Len()
			s.Grow(1)
			s.SetLen(n + 1)
			return d.decode(at, s.Index(n), p.elem)
		})
		v.Set(s)
		return end, err
	case planMap:
		if c != '{' {
			return d.end(i, false), d.typeError(i, p.t)
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(p.t))
		}
		return d.members(i, func(name []byte, at int) (int, error) {
			x := reflect.New(p.t.Elem()).Elem()
			end, err := d.decode(at, x, p.elem)
			v.SetMapIndex(reflect.ValueOf(string(name)), x)
			return end, err
		})
	case planStruct:
		if c != '{' {
			return d.end(i, false), d.typeError(i, p.t)
		}
		return d.object(i, v, p)
	case planUnion:
		return d.union(i, v, p)
	case planNullable:
		end, err := d.decode(i, field(v, p.value), p.elem)
		field(v, p.state).SetUint(2)
		return end, err
	}
	return d.leaf(i, v, p)
}

// object reads the object at i into struct v: each member into the field it names, the
// others into the additional properties, if any, else nowhere.
func (d *decoder) object(i int, v reflect.Value, p *plan) (int, error) {
	var extra reflect.Value
	if p.extra != nil {
		extra = field(v, p.extra.index)
		extra.SetZero()
	}
	return d.members(i, func(name []byte, at int) (int, error) {
		if f := p.lookup(name); f != nil {
			end, err := d.decode(at, field(v, f.index), f.plan)
			if err != nil {
				err = fmt.Errorf("field %q: %w", f.name, err)
			}
			return end, err
		}
		if p.extra == nil {
			return d.end(at, false), nil
		}
		if extra.IsNil() {
			extra.Set(reflect.MakeMap(p.extra.plan.t))
		}
		x := reflect.New(p.extra.plan.t.Elem()).Elem()
		end, err := d.decode(at, x, p.extra.plan.elem)
		extra.SetMapIndex(reflect.ValueOf(string(name)), x)
		if err != nil {
			err = fmt.Errorf("property %q: %w", name, err)
		}
		return end, err
	})
}

// leaf reads the value at i into v as encoding/json does, the plain cases directly.
func (d *decoder) leaf(i int, v reflect.Value, p *plan) (int, error) {
	end := d.end(i, false)
	text := d.data[i:end]
	if !p.unmarshals {
		switch c := text[0]; v.Kind() {
		case reflect.String:
			if c == '"' && bytes.IndexByte(text, '\\') < 0 && utf8.Valid(text) {
				v.SetString(string(text[1 : len(text)-1]))
				return end, nil
			}
		case reflect.Bool:
			if c == 't' || c == 'f' {
				v.SetBool(c == 't')
				return end, nil
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if n, err := strconv.ParseInt(string(text), 10, 64); err == nil && !v.OverflowInt(n) {
				v.SetInt(n)
				return end, nil
			}
		case reflect.Float32, reflect.Float64:
			if isNumberStart(c) {
				if f, err := strconv.ParseFloat(string(text), v.Type().Bits()); err == nil {
					v.SetFloat(f)
					return end, nil
				}
			}
		}
	}
	err := json.Unmarshal(text, v.Addr().Interface())
	var mismatch *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &mismatch) {
		err = stop(err) // a type's own UnmarshalJSON or UnmarshalText failed
	}
	return end, err
}

// stopError is an error after which encoding/json reads no further: one that an
// UnmarshalJSON or UnmarshalText returned (a generated union's included), where it keeps
// reading after a value of the wrong kind.
type stopError struct{ err error }

func (e *stopError) Error() string { return e.err.Error() }
func (e *stopError) Unwrap() error { return e.err }

// stop marks err as one after which the decoder reads no further.
func stop(err error) error {
	if err == nil || stops(err) {
		return err
	}
	return &stopError{err}
}

// stops reports an error marked by stop.
func stops(err error) bool {
	var s *stopError
	return err != nil && errors.As(err, &s)
}

// rawAt returns the JSON from i to end, as a union keeps it: a part of one copy of the
// data, shared by every union read from it.
func (d *decoder) rawAt(i, end int) json.RawMessage {
	if d.own == nil {
		d.own = bytes.Clone(d.data)
	}
	return d.own[i:end:end]
}
