package wire

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
)

// union reads the value at i into union v: its Raw is the value's JSON, and the variant
// set is the one its discriminator names, or the one that fits the JSON best (see
// UnmarshalUnion). It fails only when the variant a discriminator names cannot hold the
// value; a union chosen by the JSON's kind never does. Each union is read once at each
// offset, its failure kept as well as its value; a union that holds itself at the same
// offset (A a variant of B and B of A) is not read again within its own reading: there
// it fails, with errUnionCycle.
func (d *decoder) union(i int, v reflect.Value, p *plan) (int, error) {
	at := unionAt{i, p.t}
	if read, ok := d.unions[at]; ok {
		if !read.done {
			return d.end(i, true), fmt.Errorf("%w: %s at offset %d", errUnionCycle, p.t, i)
		}
		v.Set(read.v)
		return d.end(i, true), read.err
	}
	if d.unions == nil {
		d.unions = map[unionAt]unionRead{}
	}
	d.unions[at] = unionRead{}
	end, err := d.readUnion(i, v, p)
	read := reflect.New(p.t).Elem()
	read.Set(v)
	d.unions[at] = unionRead{v: read, err: err, done: true}
	return end, err
}

// errUnionCycle is the failure of a union read again at the offset where it is being read.
var errUnionCycle = errors.New("json: a union holds itself at the same place")

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
		if sum, _, ferr := fingerprint(v.Field(set.index).Elem(), set.plan, nil, nil); ferr == nil {
			field(v, p.sum).SetUint(sum)
		}
	}
	return end, stop(err) // what its UnmarshalJSON would return
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
		if takes(vp.plan, kind, integral) {
			fits = append(fits, candidate{v: vp})
		}
	}
	if len(fits) > 1 {
		switch {
		case kind == '{', kind == '[':
			for n := range fits {
				fits[n].score = d.fitScore(i, fits[n].v.plan)
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

// takes reports whether a value of plan p may be read from JSON that starts with kind;
// integral says a number has no fraction or exponent. A union takes what one of its
// variants takes.
func takes(p *plan, kind byte, integral bool) bool {
	return p.accepts&kindOf(kind, integral) != 0
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

// fitScore scores plan p for the object or array at i, where a union chooses among its
// variants: a union as the best of its leaves, each leaf scored once for the value
// however many unions above it share it (the scores at one offset are kept until a
// union elsewhere is chosen), so that the look ahead's work for a value is bounded by
// the schema's size whatever the nesting of its unions.
func (d *decoder) fitScore(i int, p *plan) int64 {
	p = p.unwrap()
	if p.kind == planUnion {
		best := int64(-1 << 62)
		kind := kindOf(d.data[i], false)
		for _, leaf := range p.leaves {
			if leaf.accepts&kind != 0 {
				best = max(best, d.fitScore(i, leaf))
			}
		}
		return best
	}
	if d.scores == nil || d.scoresAt != i {
		if d.scores == nil {
			d.scores = map[*plan]int64{}
		}
		clear(d.scores)
		d.scoresAt, d.scoreKeys = i, nil
	}
	if s, ok := d.scores[p]; ok {
		return s
	}
	var s int64
	if d.data[i] == '{' {
		if d.scoreKeys == nil {
			d.scoreKeys = d.keys(i)
		}
		s = objectScore(p, d.scoreKeys)
	} else {
		s = d.arrayScore(i, p)
	}
	d.scores[p] = s
	return s
}

// Scores rank the variants that take an object: a struct whose fields take all its
// members and that misses none of its required fields, then a map, then structs by the
// members their fields take less the members of another kind, and among those that take
// as many, by the fewer required fields they miss. The members come first: a struct that
// takes none of them is no better for requiring little (GitHub's starred-repository, two
// required fields, beside a partial repository, which requires 73). A union scores as its
// best leaf.
const (
	tierWhole = 2 << 32
	tierMap   = 1 << 32
)

// partialScore is the score of a struct that takes an object in part: taken members (less
// those of another kind) first, missing required fields second, below tierMap.
func partialScore(taken, missing int) int64 {
	const missingBits, maxTaken = 8, 1 << 20
	taken = min(max(taken, -maxTaken), maxTaken)
	return int64(taken)<<missingBits - int64(min(missing, 1<<missingBits-1))
}

// objectScore scores plan p for an object with members keys.
func objectScore(p *plan, keys []lookMember) int64 {
	p = p.unwrap()
	switch p.kind {
	case planMap:
		return tierMap
	case planUnion:
		best := int64(-1 << 62)
		for _, leaf := range p.leaves {
			if leaf.accepts&kindObject != 0 {
				best = max(best, objectScore(leaf, keys))
			}
		}
		return best
	case planStruct:
		return structScore(p, keys)
	}
	return 0
}

// structScore scores the struct plan p for an object with members keys.
func structScore(p *plan, keys []lookMember) int64 {
	var present fieldSet
	if len(p.fields) > 64 {
		present.many = make([]bool, len(p.fields))
	}
	known, other := 0, 0
	for _, k := range keys {
		f := p.lookup(k.name)
		switch {
		case f == nil && p.extra != nil:
			known++
		case f == nil:
		case k.kind == 'n' || takes(f.plan, k.kind, k.integral):
			known++
			present.add(f.pos)
		default:
			other++
			present.add(f.pos)
		}
	}
	missing := 0
	for _, f := range p.fields {
		if f.required() && !present.has(f.pos) {
			missing++
		}
	}
	if known == len(keys) && missing == 0 {
		return tierWhole + int64(known)
	}
	return partialScore(known-other, missing)
}

// fieldSet is a set of a struct's fields by position: a bit each for up to 64.
type fieldSet struct {
	few  uint64
	many []bool
}

func (s *fieldSet) add(pos int) {
	if s.many != nil {
		s.many[pos] = true
		return
	}
	s.few |= 1 << pos
}

func (s *fieldSet) has(pos int) bool {
	if s.many != nil {
		return s.many[pos]
	}
	return s.few&(1<<pos) != 0
}

// arrayScore scores the non-union plan p for the array at i: a list by how well its
// items take the elements, each element an object scored as objectScore does, a scalar
// 1 when the item takes it.
func (d *decoder) arrayScore(i int, p *plan) int64 {
	if p.kind != planSlice {
		return 0
	}
	var score int64
	d.elements(i, func(at int) (int, error) {
		end := d.end(at, true)
		kind := d.data[at]
		switch {
		case kind == 'n':
		case !takes(p.elem, kind, !bytes.ContainsAny(d.data[at:end], ".eE")):
			score -= tierWhole
		case kind == '{':
			score += elementScore(objectScore(p.elem, d.keys(at)))
		default:
			score++
		}
		return end, nil
	})
	return score
}

// elementScore turns the objectScore of an element into its share of its list's score,
// so that elements the item takes whole outweigh any number that it takes in part, and a
// partial score keeps its order, members first (see partialScore).
func elementScore(s int64) int64 {
	switch {
	case s >= tierWhole:
		return 1<<16 + min(s-tierWhole, 1<<15)
	case s >= tierMap:
		return 1 << 15
	}
	return min(max(s>>4, -1<<15), 1<<15-1)
}
