package wire

import (
	"bytes"
	"reflect"
	"slices"
)

// union reads the value at i into union v: its Raw is the value's JSON, and the variant
// set is the one its discriminator names, or the one that fits the JSON best (see
// UnmarshalUnion). It fails only when the variant a discriminator names cannot hold the
// value; a union chosen by the JSON's kind never does.
func (d *decoder) union(i int, v reflect.Value, p *plan) (int, error) {
	if read, ok := d.unions[unionAt{i, p.t}]; ok {
		v.Set(read)
		return d.end(i, true), nil
	}
	end, err := d.readUnion(i, v, p)
	if d.unions == nil {
		d.unions = map[unionAt]reflect.Value{}
	}
	read := reflect.New(p.t).Elem()
	read.Set(v)
	d.unions[unionAt{i, p.t}] = read
	return end, err
}

// readUnion reads the union at i into v, the first time.
func (d *decoder) readUnion(i int, v reflect.Value, p *plan) (int, error) {
	for _, vp := range p.variants {
		v.Field(vp.index).SetZero()
	}
	if p.sum >= 0 {
		field(v, p.sum).SetUint(0)
	}
	end := d.end(i, true)
	if p.raw >= 0 {
		v.Field(p.raw).SetBytes(d.rawAt(i, end))
	}
	if d.data[i] == 'n' {
		return end, nil
	}
	var set *variantPlan
	var err error
	if p.discriminator != "" {
		set, err = d.discriminated(i, v, p)
	} else {
		set = d.byKind(i, end, v, p)
	}
	if set != nil && p.sum >= 0 {
		if sum, _, ferr := fingerprint(v.Field(set.index).Elem(), set.plan, nil); ferr == nil {
			field(v, p.sum).SetUint(sum)
		}
	}
	return end, err
}

// discriminated sets the variant of union v that the discriminator of the object at i
// names; none when it names none.
func (d *decoder) discriminated(i int, v reflect.Value, p *plan) (*variantPlan, error) {
	if d.data[i] != '{' {
		return nil, nil
	}
	var value []byte
	d.members(i, func(name []byte, at int) (int, error) {
		end := d.end(at, true)
		if value == nil && string(name) == p.discriminator {
			value = d.data[at:end]
		}
		return end, nil
	})
	if value == nil {
		return nil, nil
	}
	for _, vp := range p.variants {
		for _, want := range vp.values {
			if sameJSON(value, want) {
				x := reflect.New(vp.plan.t)
				_, err := d.decode(i, x.Elem(), vp.plan)
				v.Field(vp.index).Set(x)
				return vp, err
			}
		}
	}
	return nil, nil
}

// byKind sets the variant of union v that fits the value at i best and decodes it, and
// returns it; nil when none does. When the best does not decode, the next is tried: the
// unions below are not read again (see decoder.unions).
func (d *decoder) byKind(i, end int, v reflect.Value, p *plan) *variantPlan {
	kind := d.data[i]
	integral := kind != '"' && !bytes.ContainsAny(d.data[i:end], ".eE")
	type candidate struct {
		v     *variantPlan
		score int64
	}
	var fits []candidate
	for _, vp := range p.variants {
		if takes(vp.plan, kind, integral, 0) {
			fits = append(fits, candidate{v: vp})
		}
	}
	if len(fits) > 1 {
		switch {
		case kind == '{':
			keys := d.keys(i)
			for n := range fits {
				fits[n].score = objectScore(fits[n].v.plan, keys, 0)
			}
		case kind == '[':
			for n := range fits {
				fits[n].score = d.arrayScore(i, fits[n].v.plan, 0)
			}
		case integral:
			for n := range fits {
				fits[n].score = int64(isInt(leafType(fits[n].v.plan)))
			}
		}
		slices.SortStableFunc(fits, func(a, b candidate) int {
			switch {
			case a.score > b.score:
				return -1
			case a.score < b.score:
				return 1
			}
			return 0
		})
	}
	for _, c := range fits {
		x := reflect.New(c.v.plan.t)
		if _, err := d.decode(i, x.Elem(), c.v.plan); err != nil || !holdsVariant(x.Elem(), c.v.plan) {
			continue
		}
		v.Field(c.v.index).Set(x)
		return c.v
	}
	return nil
}

// holdsVariant reports whether x, read as a variant, holds a value: a union below that
// took none of its variants does not.
func holdsVariant(x reflect.Value, p *plan) bool {
	if p.kind != planUnion {
		return true
	}
	set, err := setVariant(x, p)
	return err == nil && set != nil
}

// leafType is the type p reads, through pointers and Nullable.
func leafType(p *plan) reflect.Type {
	for p.kind == planPointer || p.kind == planNullable {
		p = p.elem
	}
	return p.t
}

// maxUnionDepth bounds how far a look ahead follows unions whose variants are unions.
const maxUnionDepth = 4

// takes reports whether a value of plan p may be read from JSON that starts with kind;
// integral says a number has no fraction or exponent. A union takes what one of its
// variants takes.
func takes(p *plan, kind byte, integral bool, depth int) bool {
	switch p.kind {
	case planPointer, planNullable:
		return takes(p.elem, kind, integral, depth)
	case planSlice:
		return kind == '['
	case planMap, planStruct:
		return kind == '{'
	case planUnion:
		if depth >= maxUnionDepth {
			return false
		}
		for _, vp := range p.variants {
			if takes(vp.plan, kind, integral, depth+1) {
				return true
			}
		}
		return false
	}
	t := p.t
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

// lookMember is a member of an object as a look ahead sees it: its name and the kind of
// its value.
type lookMember struct {
	name     []byte
	kind     byte
	integral bool
}

// keys returns the members of the object at i.
func (d *decoder) keys(i int) []lookMember {
	var keys []lookMember
	d.members(i, func(name []byte, at int) (int, error) {
		end := d.end(at, true)
		kind := d.data[at]
		keys = append(keys, lookMember{name: name, kind: kind, integral: kind != '"' && !bytes.ContainsAny(d.data[at:end], ".eE")})
		return end, nil
	})
	return keys
}

// Scores rank the variants that take an object: a struct whose fields take all its
// members and that misses none of its required fields, then a map, then structs by the
// members their fields take less the members of another kind and the required fields
// they miss. A union scores as its best variant.
const (
	tierWhole = 2 << 32
	tierMap   = 1 << 32
)

// objectScore scores plan p for an object with members keys.
func objectScore(p *plan, keys []lookMember, depth int) int64 {
	switch p.kind {
	case planPointer, planNullable:
		return objectScore(p.elem, keys, depth)
	case planMap:
		return tierMap
	case planUnion:
		best := int64(-1 << 62)
		if depth < maxUnionDepth {
			for _, vp := range p.variants {
				if takes(vp.plan, '{', false, depth+1) {
					best = max(best, objectScore(vp.plan, keys, depth+1))
				}
			}
		}
		return best
	case planStruct:
		present := make([]bool, len(p.fields))
		known, other := 0, 0
		for _, k := range keys {
			f := p.lookup(k.name)
			switch {
			case f == nil && p.extra != nil:
				known++
			case f == nil:
			case k.kind == 'n' || takes(f.plan, k.kind, k.integral, maxUnionDepth-1):
				known++
				present[f.pos] = true
			default:
				other++
				present[f.pos] = true
			}
		}
		missing := 0
		for _, f := range p.fields {
			if f.required() && !present[f.pos] {
				missing++
			}
		}
		if known == len(keys) && missing == 0 {
			return tierWhole + int64(known)
		}
		return int64(known - other - missing)
	}
	return 0
}

// arrayScore scores plan p for the array at i: a list by how well its items take the
// elements, each element an object scored as objectScore does, a scalar 1 when the item
// takes it; a union as its best variant.
func (d *decoder) arrayScore(i int, p *plan, depth int) int64 {
	switch p.kind {
	case planPointer, planNullable:
		return d.arrayScore(i, p.elem, depth)
	case planUnion:
		best := int64(-1 << 62)
		if depth < maxUnionDepth {
			for _, vp := range p.variants {
				if takes(vp.plan, '[', false, depth+1) {
					best = max(best, d.arrayScore(i, vp.plan, depth+1))
				}
			}
		}
		return best
	case planSlice:
		var score int64
		d.elements(i, func(at int) (int, error) {
			end := d.end(at, true)
			kind := d.data[at]
			switch {
			case kind == 'n':
			case !takes(p.elem, kind, !bytes.ContainsAny(d.data[at:end], ".eE"), depth+1):
				score -= tierWhole
			case kind == '{':
				score += elementScore(objectScore(p.elem, d.keys(at), depth+1))
			default:
				score++
			}
			return end, nil
		})
		return score
	}
	return 0
}

// elementScore turns the objectScore of an element into its share of its list's score,
// so that elements the item takes whole outweigh any number that it takes in part.
func elementScore(s int64) int64 {
	switch {
	case s >= tierWhole:
		return 1<<16 + min(s-tierWhole, 1<<15)
	case s >= tierMap:
		return 1 << 15
	}
	return max(s, -1<<15)
}
