package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Marshal writes v, a pointer to a generated union, object or Nullable, as JSON: the
// MarshalJSON of such a type. A union read from JSON and sent back unchanged, the unions
// it holds included, is written as it was read, members its variant does not declare
// included; a union whose variant, or any union below it, changed is written as it now
// is. The work is linear in the size of the value and of the JSON it was read from.
func Marshal(v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return nil, fmt.Errorf("wire.Marshal: want a non-nil pointer, got %T", v)
	}
	p := planOf(rv.Type().Elem())
	if p.kind == planLeaf {
		return nil, fmt.Errorf("wire.Marshal: %s is not a generated union, object or Nullable", rv.Type().Elem())
	}
	e := encoder{changed: map[unionKey]bool{}, path: &path{}}
	if err := e.encode(rv.Elem(), p); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// marshalValue writes value, of any type, with the codec.
func marshalValue(value any) ([]byte, error) {
	rv := reflect.ValueOf(value)
	if !rv.IsValid() {
		return []byte("null"), nil
	}
	addressable := reflect.New(rv.Type()).Elem()
	addressable.Set(rv)
	e := encoder{changed: map[unionKey]bool{}, path: &path{}}
	if err := e.encode(addressable, planOf(rv.Type())); err != nil {
		return nil, err
	}
	return e.buf, nil
}

// encoder writes one value's JSON into buf.
type encoder struct {
	buf []byte
	// shallow writes a union as a mark of the JSON it was read from, rather than the
	// union: the fingerprint of what a variant holds, its own part only, and every field
	// as it is, read-only ones and zero values included.
	shallow bool
	// changed remembers, for each union read from JSON, whether it or any union below it
	// changed since, so that each is looked at once.
	changed map[unionKey]bool
	// path is shared with the fingerprints taken on the way.
	path *path
}

// path is what an encoder, and the fingerprints it takes, are in the middle of writing:
// how deep, and past cycleDepth the pointers, maps, slices and structs on the way, so
// that a value that holds itself fails as with encoding/json rather than recursing
// without end.
type path struct {
	depth int
	on    map[ref]bool
}

// ref is a value that a cycle goes through: where it lies, its type, and a slice's length.
type ref struct {
	at  uintptr
	t   reflect.Type
	len int
}

// cycleDepth is how deep a value is written before the values on the way are checked
// for a cycle, as encoding/json starts to check after 1,000 pointers.
const cycleDepth = 1000

// unionKey tells one union value from another: the variant set and the JSON read, which
// copies of the union share.
type unionKey struct {
	variant, raw uintptr
	rawLen       int
}

// encode writes v by plan p.
func (e *encoder) encode(v reflect.Value, p *plan) error {
	e.path.depth++
	var err error
	if e.path.depth > cycleDepth {
		err = e.encodeOnPath(v, p)
	} else {
		err = e.write(v, p)
	}
	e.path.depth--
	return err
}

// encodeOnPath writes v, deep in the value, unless it is already being written: the
// value holds itself.
func (e *encoder) encodeOnPath(v reflect.Value, p *plan) error {
	r, ok := refOf(v)
	if !ok {
		return e.write(v, p)
	}
	if e.path.on[r] {
		return &json.UnsupportedValueError{Value: v, Str: "encountered a cycle via " + v.Type().String()}
	}
	if e.path.on == nil {
		e.path.on = map[ref]bool{}
	}
	e.path.on[r] = true
	err := e.write(v, p)
	delete(e.path.on, r)
	return err
}

// refOf returns the ref of v when a cycle may go through it.
func refOf(v reflect.Value) (ref, bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Map:
		return ref{at: v.Pointer(), t: v.Type()}, !v.IsNil()
	case reflect.Slice:
		return ref{at: v.Pointer(), t: v.Type(), len: v.Len()}, !v.IsNil()
	case reflect.Struct:
		if v.CanAddr() {
			return ref{at: v.Addr().Pointer(), t: v.Type()}, true
		}
	}
	return ref{}, false
}

// write writes v by plan p; the values it holds go through encode.
func (e *encoder) write(v reflect.Value, p *plan) error {
	switch p.kind {
	case planPointer:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.encode(v.Elem(), p.elem)
	case planSlice:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		e.buf = append(e.buf, '[')
		for i := range v.Len() {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if err := e.encode(v.Index(i), p.elem); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, ']')
		return nil
	case planMap:
		if v.IsNil() {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		e.buf = append(e.buf, '{')
		for i, k := range sortedKeys(v) {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.appendString(k.String())
			e.buf = append(e.buf, ':')
			if err := e.encode(mapValue(v, k), p.elem); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, '}')
		return nil
	case planStruct:
		return e.object(v, p, nil)
	case planUnion:
		return e.union(v, p)
	case planNullable:
		if field(v, p.state).Uint() != 2 {
			e.buf = append(e.buf, "null"...)
			return nil
		}
		return e.encode(field(v, p.value), p.elem)
	}
	return e.leaf(v, p)
}

// mapValue returns the value of map m at key k, addressable, so that the unexported
// fields of a generated Nullable in it can be read.
func mapValue(m, k reflect.Value) reflect.Value {
	x := reflect.New(m.Type().Elem()).Elem()
	x.Set(m.MapIndex(k))
	return x
}

// sortedKeys returns the keys of map v, of a string kind, in the order encoding/json
// writes them. Keys that are not valid UTF-8 are written with U+FFFD in place of each
// invalid byte, which can make two of them one name: of those, the last in that order
// is kept, the one a reader that keeps the last of equal names would take of
// encoding/json's output, so that no name is written twice.
func sortedKeys(v reflect.Value) []reflect.Value {
	keys := v.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	if !slices.ContainsFunc(keys, func(k reflect.Value) bool { return !utf8.ValidString(k.String()) }) {
		return keys
	}
	last := map[string]string{}
	for _, k := range keys {
		last[wireName(k.String())] = k.String()
	}
	return slices.DeleteFunc(keys, func(k reflect.Value) bool { return last[wireName(k.String())] != k.String() })
}

// wireName returns s as encoding/json writes it in a string: each byte of invalid UTF-8
// as U+FFFD.
func wireName(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r) // each invalid byte comes as utf8.RuneError
	}
	return b.String()
}

// leaf writes a value encoding/json writes, by its rules, the plain kinds directly.
func (e *encoder) leaf(v reflect.Value, p *plan) error {
	if !p.marshals {
		switch v.Kind() {
		case reflect.Interface:
			// What an any holds is written by this encoder, not handed to encoding/json,
			// so that a value that holds itself through an any is found on the path, as
			// any other cycle, rather than restarted by each MarshalJSON it meets.
			if v.IsNil() {
				e.buf = append(e.buf, "null"...)
				return nil
			}
			inner := v.Elem()
			held := reflect.New(inner.Type()).Elem()
			held.Set(inner)
			return e.encode(held, planOf(inner.Type()))
		case reflect.String:
			e.appendString(v.String())
			return nil
		case reflect.Bool:
			e.buf = strconv.AppendBool(e.buf, v.Bool())
			return nil
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
			return nil
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
			return nil
		}
	}
	x := v.Interface()
	if v.CanAddr() && p.marshals && !v.Type().Implements(marshalerT) && !v.Type().Implements(textMarshalT) {
		x = v.Addr().Interface() // methods on the pointer, which encoding/json calls on addressable values
	}
	data, err := json.Marshal(x)
	if err != nil {
		return err
	}
	e.buf = append(e.buf, data...)
	return nil
}

// appendString writes s as a JSON string as encoding/json does; one it would escape
// (HTML characters, control characters, invalid UTF-8, U+2028, U+2029) goes through it.
func (e *encoder) appendString(s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			data, _ := json.Marshal(s)
			e.buf = append(e.buf, data...)
			return
		}
	}
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, s...)
	e.buf = append(e.buf, '"')
}

// discriminator is what an object written as a union's variant writes for the union's
// discriminator property: the value it holds when that is one of values, else the first.
type discriminator struct {
	name   string
	values [][]byte
}

// object writes struct v by its plan: in shallow mode every field as it is, else without
// its read-only fields, with the fill of zero ones and the constants, and with disc, when
// given, as the discriminator.
func (e *encoder) object(v reflect.Value, p *plan, disc *discriminator) error {
	e.buf = append(e.buf, '{')
	n := 0
	member := func(name string) {
		if n > 0 {
			e.buf = append(e.buf, ',')
		}
		n++
		e.appendString(name)
		e.buf = append(e.buf, ':')
	}
	if disc != nil {
		if f := p.byName[disc.name]; f == nil || f.readOnly {
			member(disc.name)
			e.buf = append(e.buf, disc.values[0]...)
		}
	}
	for _, f := range p.fields {
		fv := field(v, f.index)
		if !e.shallow {
			switch {
			case f.readOnly:
				continue
			case disc != nil && f.name == disc.name:
				member(f.name)
				if err := e.discriminatorValue(fv, f.plan, disc); err != nil {
					return err
				}
				continue
			case f.constant != nil:
				member(f.name)
				e.buf = append(e.buf, f.constant...)
				continue
			case f.fill != nil && isZero(fv, f.plan):
				member(f.name)
				e.buf = append(e.buf, f.fill...)
				continue
			}
		}
		if f.omitZero && isZero(fv, f.plan) || f.omitEmpty && isEmpty(fv) {
			continue
		}
		member(f.name)
		if err := e.encode(fv, f.plan); err != nil {
			return fmt.Errorf("field %q: %w", f.name, err)
		}
	}
	if p.extra != nil {
		extra := field(v, p.extra.index)
		if extra.Len() > 0 {
			for _, k := range sortedKeys(extra) {
				name := k.String()
				if p.byName[wireName(name)] != nil || disc != nil && wireName(name) == disc.name {
					continue
				}
				member(name)
				if err := e.encode(mapValue(extra, k), p.extra.plan.elem); err != nil {
					return fmt.Errorf("property %q: %w", name, err)
				}
			}
		}
	}
	e.buf = append(e.buf, '}')
	return nil
}

// discriminatorValue writes the discriminator field fv: its value when that is one of
// the values that select the variant, else the first of them.
func (e *encoder) discriminatorValue(fv reflect.Value, p *plan, disc *discriminator) error {
	start := len(e.buf)
	if err := e.encode(fv, p); err != nil {
		return err
	}
	held := e.buf[start:]
	for _, v := range disc.values {
		if sameJSON(held, v) {
			return nil
		}
	}
	e.buf = append(e.buf[:start], disc.values[0]...)
	return nil
}

// sameJSON reports whether the JSON scalars a and b are the same value: strings that
// read the same, numbers of equal value, equal literals.
func sameJSON(a, b []byte) bool {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	switch {
	case a[0] == '"' && b[0] == '"':
		var sa, sb string
		return json.Unmarshal(a, &sa) == nil && json.Unmarshal(b, &sb) == nil && sa == sb
	case isNumberStart(a[0]) && isNumberStart(b[0]):
		fa, errA := strconv.ParseFloat(string(a), 64)
		fb, errB := strconv.ParseFloat(string(b), 64)
		return errA == nil && errB == nil && fa == fb
	}
	return bytes.Equal(a, b)
}

func isNumberStart(c byte) bool { return c == '-' || c >= '0' && c <= '9' }

// isZero reports whether fv is zero as `omitzero` sees it: by its IsZero method when it
// has one.
func isZero(fv reflect.Value, p *plan) bool {
	if p.kind == planNullable {
		return field(fv, p.state).Uint() == 0
	}
	switch {
	case fv.Kind() == reflect.Pointer && fv.IsNil():
		return true
	case fv.Type().Implements(zeroerType):
		return fv.Interface().(zeroer).IsZero()
	case fv.CanAddr() && reflect.PointerTo(fv.Type()).Implements(zeroerType):
		return fv.Addr().Interface().(zeroer).IsZero()
	}
	return fv.IsZero()
}

// isEmpty reports whether fv is empty as `omitempty` sees it.
func isEmpty(fv reflect.Value) bool {
	switch fv.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return fv.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return fv.IsZero()
	}
	return false
}

// union writes union v: the JSON it was read from when neither it nor a union below it
// changed since, else the variant that is set (with the discriminator that selects it).
func (e *encoder) union(v reflect.Value, p *plan) error {
	raw := rawOf(v, p)
	if e.shallow {
		// The mark of a union in its parent's fingerprint: where its JSON lies.
		e.buf = append(e.buf, 0)
		e.buf = strconv.AppendUint(e.buf, uint64(rawPointer(raw)), 16)
		e.buf = append(e.buf, ':')
		e.buf = strconv.AppendInt(e.buf, int64(len(raw)), 10)
		if raw != nil {
			return e.visit(v, p)
		}
		return e.heldMark(v, p)
	}
	set, err := setVariant(v, p)
	if err != nil {
		return err
	}
	if set == nil {
		if raw == nil {
			return ErrNoVariant
		}
		e.buf = append(e.buf, raw...)
		return nil
	}
	if raw != nil {
		changed, err := e.unionChanged(v, p, set)
		if err != nil {
			return err
		}
		if !changed {
			e.buf = append(e.buf, raw...)
			return nil
		}
	}
	return e.variant(field(v, set.index).Elem(), set, p)
}

// heldMark writes, in a fingerprint, what union v holds, not having been read from JSON:
// which variant is set and its own part, so that a union set after its parent was read
// (where the JSON had none) changes the parent's fingerprint.
func (e *encoder) heldMark(v reflect.Value, p *plan) error {
	set, err := setVariant(v, p)
	if err != nil || set == nil {
		return err
	}
	e.buf = append(e.buf, 1)
	e.buf = strconv.AppendInt(e.buf, int64(set.index), 10)
	e.buf = append(e.buf, ':')
	return e.encode(field(v, set.index).Elem(), set.plan)
}

// variant writes the variant x of union p, with the discriminator that selects it.
func (e *encoder) variant(x reflect.Value, set *variantPlan, p *plan) error {
	if p.discriminator == "" || len(set.values) == 0 {
		return e.encode(x, set.plan)
	}
	disc := &discriminator{name: p.discriminator, values: set.values}
	if set.plan.kind == planStruct {
		return e.object(x, set.plan, disc)
	}
	// A variant that writes itself: its members, the discriminator put right.
	start := len(e.buf)
	if err := e.encode(x, set.plan); err != nil {
		return err
	}
	data, err := withDiscriminator(e.buf[start:], disc)
	if err != nil {
		return err
	}
	e.buf = append(e.buf[:start], data...)
	return nil
}

// withDiscriminator returns the JSON object data with the discriminator disc.
func withDiscriminator(data []byte, disc *discriminator) ([]byte, error) {
	members, err := objectMembers(data)
	if err != nil {
		return nil, err
	}
	for i, m := range members {
		if m.name != disc.name {
			continue
		}
		for _, v := range disc.values {
			if sameJSON(m.value, v) {
				return writeObject(members)
			}
		}
		members[i].value = disc.values[0]
		return writeObject(members)
	}
	return writeObject(append([]rawMember{{name: disc.name, value: disc.values[0]}}, members...))
}

// setVariant returns the variant of union v that is set, nil when none is; more than one
// is ErrManyVariants.
func setVariant(v reflect.Value, p *plan) (*variantPlan, error) {
	var set *variantPlan
	n := 0
	for _, vp := range p.variants {
		if !v.Field(vp.index).IsNil() {
			set = vp
			n++
		}
	}
	if n > 1 {
		return nil, fmt.Errorf("%w: %d of %d", ErrManyVariants, n, len(p.variants))
	}
	return set, nil
}

func rawOf(v reflect.Value, p *plan) json.RawMessage {
	if p.raw < 0 {
		return nil
	}
	return v.Field(p.raw).Bytes()
}

func rawPointer(raw []byte) uintptr {
	if len(raw) == 0 {
		return 0
	}
	return reflect.ValueOf(raw).Pointer()
}

// unionChanged reports whether union v, read from JSON, or a union below it changed
// since: whether its variant set's fingerprint is no longer the one taken when it was
// read. Each union is looked at once per Marshal.
func (e *encoder) unionChanged(v reflect.Value, p *plan, set *variantPlan) (bool, error) {
	raw := rawOf(v, p)
	key := unionKey{variant: v.Field(set.index).Pointer(), raw: rawPointer(raw), rawLen: len(raw)}
	if changed, ok := e.changed[key]; ok {
		return changed, nil
	}
	if p.sum < 0 {
		e.changed[key] = true
		return true, nil
	}
	sum, nested, err := fingerprint(field(v, set.index).Elem(), set.plan, e.changed, e.path)
	if err != nil {
		return false, err
	}
	changed := nested || sum != field(v, p.sum).Uint()
	e.changed[key] = changed
	return changed, nil
}

// visit looks at union v below the value being fingerprinted, so that a change in it
// shows in every union above.
func (e *encoder) visit(v reflect.Value, p *plan) error {
	if e.changed == nil {
		return nil // a fingerprint taken as the JSON is read: nothing below changed
	}
	set, err := setVariant(v, p)
	if err != nil || set == nil {
		return err
	}
	changed, err := e.unionChanged(v, p, set)
	if changed && err == nil {
		err = errChanged
	}
	return err
}

// errChanged ends a fingerprint when a union below has changed: the one above has too.
var errChanged = errors.New("a union below changed")

var fingerprintSeed = maphash.MakeSeed()

// fingerprint returns the hash of what x, the variant of a union, holds, its own part
// only: the unions it holds count by where their JSON lies. With changed (at Marshal),
// each union below is looked at too, and nested reports that one of them changed; on is
// the path of the encoder that takes it, if any.
func fingerprint(x reflect.Value, p *plan, changed map[unionKey]bool, on *path) (sum uint64, nested bool, err error) {
	if on == nil {
		on = &path{}
	}
	e := encoder{shallow: true, changed: changed, path: on}
	err = e.encode(x, p)
	if errors.Is(err, errChanged) {
		return 0, true, nil
	}
	return maphash.Bytes(fingerprintSeed, e.buf), false, err
}
