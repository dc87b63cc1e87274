package wire

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode"
	"unsafe"
)

// The codec reads and writes the JSON of generated types in one pass over the value and
// one over the JSON, however deeply unions nest in each other: encoding/json, which calls
// a MarshalJSON or UnmarshalJSON for each nested union, copies and scans the JSON below
// each of them again, so that its work grows with the square of the nesting (and the
// check of an unchanged union with its power). Generated types tell the codec what their
// methods would do in struct tags, so that it takes them inline:
//
//	type Shape struct {
//		_      noCompare `wire:"union" discriminator:"kind"`
//		Circle *Circle   `discriminator:"[\"circle\"]"`
//		Group  *Group    `discriminator:"[\"group\"]"`
//		Raw    json.RawMessage
//		sum    uint64
//	}
//
//	type Circle struct {
//		_    noCompare `wire:"object"`
//		ID   string     `json:"id" wire:"readonly"`
//		Kind CircleKind `json:"kind" fill:"\"circle\""`
//		Tags []string   `json:"tags" fill:"[]"`
//		Unit string     `json:"unit" const:"\"cm\""`
//		More map[string]any `json:"-" wire:"additional"`
//	}
//
// The first field, `_`, says which rules the type follows: "union" (a oneOf or anyOf;
// the discriminator tag names the property that selects a variant, and each variant's
// tag lists the JSON values that select it, the first written), "object" (a struct
// whose fields' tags say what is sent: readonly ones never, fill's JSON in place of a
// zero value, const's always, and the additional field's members beside the declared
// ones) and "nullable" (a generated Nullable, its value and state unexported). Its
// methods call Marshal and Unmarshal, which the codec never calls back. Any other type
// with JSON methods of its own (time.Time, Date), and any leaf, goes through
// encoding/json.

// planKind says how the codec handles a type.
type planKind uint8

const (
	planLeaf     planKind = iota // through encoding/json
	planPointer                  // *T
	planSlice                    // []T but []byte
	planMap                      // map[string]T
	planStruct                   // a struct by its json tags, and an "object" by its wire tags
	planUnion                    // a generated union
	planNullable                 // a generated Nullable
)

// plan is what the codec knows of one type.
type plan struct {
	kind planKind
	t    reflect.Type
	elem *plan // planPointer, planSlice, planMap

	// planLeaf: which encoding/json calls, for the fast paths of plain kinds.
	marshals, unmarshals bool

	// planStruct
	fields []*fieldPlan
	byName map[string]*fieldPlan // by wire name
	byFold map[string]*fieldPlan // by folded wire name, as encoding/json falls back to
	extra  *fieldPlan            // the additional properties, a map

	// planUnion
	variants      []*variantPlan
	raw, sum      int    // the fields Raw and sum
	discriminator string // "" for a union chosen by the JSON's kind
	// leaves are the plans a union's variants come down to through the unions among
	// them (and pointers and Nullables), each once: what a look ahead scores.
	leaves []*plan

	// accepts is the kinds of JSON a value of this type may be read from; a union's, those
	// of its leaves.
	accepts kindSet

	// planNullable
	value, state int
}

// fieldPlan is one field of a struct.
type fieldPlan struct {
	index     int    // in the struct
	pos       int    // in the plan's fields
	name      string // the wire name
	plan      *plan
	omitZero  bool
	omitEmpty bool
	readOnly  bool
	fill      []byte // written in place of a zero value
	constant  []byte // written whatever the field holds
}

// required reports a field that a JSON object of its struct is expected to hold.
func (f *fieldPlan) required() bool { return !f.omitZero && !f.omitEmpty }

// variantPlan is one variant of a union.
type variantPlan struct {
	index  int
	plan   *plan    // of the variant's type (the field's is a pointer to it)
	values [][]byte // the discriminator's JSON values that select it, the first written
}

var (
	plans        sync.Map // reflect.Type → *plan
	marshalerT   = reflect.TypeFor[json.Marshaler]()
	textMarshalT = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageT  = reflect.TypeFor[json.RawMessage]()
	numberT      = reflect.TypeFor[json.Number]()
)

// planOf returns the plan of t, built once.
func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	building := map[reflect.Type]*plan{}
	p := build(t, building)
	for _, p := range building {
		if p.kind == planUnion {
			p.leaves = leavesOf(p)
		}
	}
	for _, p := range building {
		p.accepts = acceptsOf(p)
	}
	for t, p := range building {
		plans.LoadOrStore(t, p)
	}
	return p
}

// build makes the plan of t, and of the types it holds, into building; a type that
// holds itself finds its plan there.
func build(t reflect.Type, building map[reflect.Type]*plan) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &plan{t: t}
	building[t] = p
	pt := reflect.PointerTo(t)
	p.marshals = t.Implements(marshalerT) || t.Implements(textMarshalT) || pt.Implements(marshalerT) || pt.Implements(textMarshalT)
	p.unmarshals = pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler)
	if t == numberT {
		// Written as the number it holds, and read from a valid number only: encoding/json's
		// own rules.
		p.marshals, p.unmarshals = true, true
	}
	if t.Kind() == reflect.Struct {
		if marker, ok := structMarker(t); ok {
			buildMarked(p, marker, building)
			return p
		}
	}
	if t.Kind() == reflect.Pointer && t.Elem().Kind() != reflect.Pointer {
		// Its methods, if any, are its element's: null for nil, else the element.
		p.kind = planPointer
		p.elem = build(t.Elem(), building)
		return p
	}
	if p.marshals || p.unmarshals {
		return p // its own methods, through encoding/json
	}
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			p.kind = planSlice
			p.elem = build(t.Elem(), building)
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String && t.Key().PkgPath() == "" {
			p.kind = planMap
			p.elem = build(t.Elem(), building)
		}
	case reflect.Struct:
		if !buildStruct(p, building) {
			*p = plan{t: t} // a struct this codec does not read: encoding/json does
		}
	}
	return p
}

// structMarker returns the rules the first field `_` of a generated struct names.
func structMarker(t reflect.Type) (string, bool) {
	if t.NumField() == 0 || t.Field(0).Name != "_" {
		return "", false
	}
	return t.Field(0).Tag.Lookup("wire")
}

// buildMarked makes the plan of a generated union, object or Nullable.
func buildMarked(p *plan, marker string, building map[reflect.Type]*plan) {
	t := p.t
	switch marker {
	case "union":
		p.kind = planUnion
		p.discriminator = t.Field(0).Tag.Get("discriminator")
		p.raw, p.sum = -1, -1
		for i := 1; i < t.NumField(); i++ {
			f := t.Field(i)
			switch {
			case f.Name == "Raw" && f.Type == rawMessageT:
				p.raw = i
			case f.Name == "sum" && f.Type.Kind() == reflect.Uint64:
				p.sum = i
			case f.IsExported() && f.Type.Kind() == reflect.Pointer:
				v := &variantPlan{index: i, plan: build(f.Type.Elem(), building)}
				var values []json.RawMessage
				if tag := f.Tag.Get("discriminator"); tag != "" && json.Unmarshal([]byte(tag), &values) == nil {
					for _, val := range values {
						v.values = append(v.values, val)
					}
				}
				p.variants = append(p.variants, v)
			}
		}
	case "nullable":
		p.kind = planNullable
		vf, _ := t.FieldByName("value")
		sf, _ := t.FieldByName("state")
		p.value, p.state = vf.Index[0], sf.Index[0]
		p.elem = build(vf.Type, building)
	default: // "object"
		p.kind = planStruct
		buildStruct(p, building)
	}
}

// buildStruct fills the fields of a struct's plan from its tags, and reports false for
// a struct it cannot read as encoding/json would (an embedded field, a `,string` option).
func buildStruct(p *plan, building map[reflect.Type]*plan) bool {
	t := p.t
	p.kind = planStruct
	p.byName = map[string]*fieldPlan{}
	p.byFold = map[string]*fieldPlan{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return false
		}
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if f.Tag.Get("wire") == "additional" {
			if fp := (&fieldPlan{index: i, plan: build(f.Type, building)}); fp.plan.kind == planMap {
				p.extra = fp
			}
			continue
		}
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		fp := &fieldPlan{index: i, name: name, readOnly: f.Tag.Get("wire") == "readonly"}
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "omitzero":
				fp.omitZero = true
			case "omitempty":
				fp.omitEmpty = true
			case "string":
				return false
			}
		}
		if v, ok := f.Tag.Lookup("fill"); ok {
			fp.fill = []byte(v)
		}
		if v, ok := f.Tag.Lookup("const"); ok {
			fp.constant = []byte(v)
		}
		fp.plan = build(f.Type, building)
		fp.pos = len(p.fields)
		if _, dup := p.byName[name]; dup {
			return false // encoding/json's rules for equal names are its own
		}
		p.fields = append(p.fields, fp)
		p.byName[name] = fp
		if _, ok := p.byFold[fold(name)]; !ok {
			p.byFold[fold(name)] = fp
		}
	}
	return true
}

// field returns the field of struct v for the plan's index i, settable even when it is
// unexported: a generated Nullable's value and state, a union's sum.
func field(v reflect.Value, i int) reflect.Value {
	f := v.Field(i)
	if f.CanSet() || !v.CanAddr() {
		return f
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// fold returns name as encoding/json compares names that differ in case only.
func fold(name string) string {
	return strings.Map(func(r rune) rune { return unicode.ToUpper(unicode.ToLower(r)) }, name)
}

// lookup returns the field of a struct that the member name sets: the one of that name,
// else one whose name differs in case only, as encoding/json matches them.
func (p *plan) lookup(name []byte) *fieldPlan {
	if f := p.byName[string(name)]; f != nil {
		return f
	}
	return p.byFold[fold(string(name))]
}

// kindSet is a set of the kinds of JSON values, null aside.
type kindSet uint8

const (
	kindString kindSet = 1 << iota
	kindBool
	kindArray
	kindObject
	kindInteger // a number without fraction or exponent
	kindNumber  // any other number
	kindAny     = kindString | kindBool | kindArray | kindObject | kindInteger | kindNumber
)

// kindOf returns the kind of the JSON value that starts with c; integral says a number
// has no fraction or exponent.
func kindOf(c byte, integral bool) kindSet {
	switch c {
	case '"':
		return kindString
	case 't', 'f':
		return kindBool
	case '[':
		return kindArray
	case '{':
		return kindObject
	}
	if integral {
		return kindInteger
	}
	return kindNumber
}

// unwrap returns the plan below pointers and Nullables.
func (p *plan) unwrap() *plan {
	for p.kind == planPointer || p.kind == planNullable {
		p = p.elem
	}
	return p
}

// leavesOf returns the leaves of union p: what its variants come down to below pointers,
// Nullables and unions, in the order of the variants, each once, however the unions
// hold each other.
func leavesOf(p *plan) []*plan {
	var leaves []*plan
	seen := map[*plan]bool{}
	var walk func(*plan)
	walk = func(p *plan) {
		p = p.unwrap()
		if seen[p] {
			return
		}
		seen[p] = true
		if p.kind != planUnion {
			leaves = append(leaves, p)
			return
		}
		for _, vp := range p.variants {
			walk(vp.plan)
		}
	}
	walk(p)
	return leaves
}

// acceptsOf returns the kinds of JSON a value of plan p may be read from.
func acceptsOf(p *plan) kindSet {
	p = p.unwrap()
	switch p.kind {
	case planSlice:
		return kindArray
	case planMap, planStruct:
		return kindObject
	case planUnion:
		var kinds kindSet
		for _, leaf := range p.leaves {
			kinds |= acceptsOf(leaf)
		}
		return kinds
	}
	t := p.t
	switch {
	case t.Kind() == reflect.Interface, reflect.PointerTo(t).Implements(jsonUnmarshaler):
		return kindAny // free-form, or it decides for itself
	case t == numberT:
		return kindString | kindInteger | kindNumber
	}
	var kinds kindSet
	if t.Kind() == reflect.String || reflect.PointerTo(t).Implements(textUnmarshaler) {
		kinds |= kindString
	}
	switch t.Kind() {
	case reflect.Bool:
		kinds |= kindBool
	case reflect.Slice, reflect.Array:
		kinds |= kindArray
	case reflect.Struct, reflect.Map:
		kinds |= kindObject
	case reflect.Float32, reflect.Float64:
		kinds |= kindInteger | kindNumber
	}
	if isInt(t) == 1 {
		kinds |= kindInteger
	}
	return kinds
}
