package load

import (
	"context"
	"reflect"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
)

// validateOnce finds what doc.Validate(ctx, opts...) finds, as a flat list, validating
// each component schema once.
//
// doc.Validate validates a schema afresh wherever it is reached: a component schema once
// for itself, again for every component and every operation that leads to it, each time
// with everything it refers to. On large specs that is most of the cost. A schema's
// validation fails on its first error, without wrapping what its children report other
// than in combinators, so once a component schema's own error is known, a stub can stand
// in for it: an empty schema where it is valid, else a schema whose one (marked) error is
// replaced, in what is found, by the component's. Here:
//
//  1. The component schemas are validated as Components.Validate does, in levels: first
//     those that lead to no other component, then those that lead only to the ones
//     done, and so on, each level on every core. Components that lead to each other are
//     validated in one level: first each alone, the others stubbed as valid; where that
//     finds nothing they are all valid, else they are validated without stubs between
//     them, as doc.Validate does, when that is small enough (stubGroups). Once a level is
//     done its schemas are stubbed.
//  2. The rest of the document, paths included, with every component schema stubbed.
//
// Examples are never validated against their schemas (the stubs would stand in for
// them): the options must include openapi3.DisableExamplesValidation, as Load's do.
// The document is restored before validateOnce returns; nothing else may read it
// meanwhile.
func validateOnce(doc *openapi3.T, opts ...openapi3.ValidationOption) []error {
	var names []string
	rest := *doc
	v := &onceValidator{
		ctx:        context.Background(),
		schemaOpts: schemaOptions(doc, opts),
		marks:      map[*openapi3.Origin]error{},
		saved:      map[*openapi3.Schema]openapi3.Schema{},
	}
	if doc.Components != nil {
		names = source.SortedKeys(doc.Components.Schemas)
		v.schemas = doc.Components.Schemas
		c := *doc.Components
		c.Schemas = nil
		rest.Components = &c
	}
	defer v.restore()

	var found []error
	levels, namesOf, groupOf, sizeOf := componentLevels(doc, names)
	for _, level := range levels {
		found = append(found, v.validateLevel(level, namesOf, groupOf, sizeOf)...)
	}
	found = append(found, v.validateMissing(names)...)

	seen := map[string]bool{}
	for _, err := range found {
		seen[err.Error()] = true
	}
	for _, err := range flatten(rest.Validate(v.ctx, opts...)) {
		err = unstub(err, v.marks)
		if msg := err.Error(); !seen[msg] {
			seen[msg] = true
			found = append(found, err)
		}
	}
	return found
}

// onceValidator is what the steps of validateOnce share.
type onceValidator struct {
	ctx        context.Context
	schemas    openapi3.Schemas // the document's component schemas, by name
	schemaOpts []openapi3.ValidationOption
	marks      map[*openapi3.Origin]error           // the error each stub's mark stands for
	saved      map[*openapi3.Schema]openapi3.Schema // each stubbed schema, as it was
}

// schemaOptions adds to opts what doc.Validate adds for the schemas it validates, as
// validating one directly must.
func schemaOptions(doc *openapi3.T, opts []openapi3.ValidationOption) []openapi3.ValidationOption {
	schemaOpts := append([]openapi3.ValidationOption(nil), opts...)
	if doc.IsOpenAPI31OrLater() {
		schemaOpts = append(schemaOpts, openapi3.IsOpenAPI31OrLater())
	}
	if doc.IsOpenAPI32OrLater() {
		schemaOpts = append(schemaOpts, openapi3.IsOpenAPI32OrLater())
	}
	return schemaOpts
}

// validateLevel validates the component schemas of level on every core, then stubs them,
// and returns what it found, in the order of level. groupOf numbers the groups of
// components that lead to each other, sizeOf counts the schemas of each component.
func (v *onceValidator) validateLevel(level []*openapi3.Schema, namesOf map[*openapi3.Schema][]string, groupOf, sizeOf map[*openapi3.Schema]int) []error {
	v.stubGroups(level, groupOf, sizeOf)
	results := make([][]error, len(level))
	own := make([]error, len(level))
	parallel(len(level), func(i int) {
		results[i], own[i] = v.validateComponent(level[i], namesOf[level[i]])
	})
	var found []error
	for i, sc := range level {
		found = append(found, results[i]...)
		v.stub(sc, own[i])
	}
	return found
}

// validateComponent validates the component schema sc under each of its names, as
// Components.Validate does. When that finds something it also returns sc's own error,
// without its names and $refs, for the stub: the finding may come from a name or a $ref
// rather than the schema.
func (v *onceValidator) validateComponent(sc *openapi3.Schema, names []string) (found []error, own error) {
	needOwn := false
	for _, name := range names {
		if err := openapi3.ValidateIdentifier(name); err != nil {
			found = append(found, componentError(name, unstub(err, v.marks)))
			needOwn = true
			continue
		}
		errs := flatten(v.schemas[name].Validate(v.ctx, v.schemaOpts...))
		for _, err := range errs {
			found = append(found, componentError(name, unstub(err, v.marks)))
		}
		needOwn = needOwn || len(errs) > 0
	}
	if needOwn {
		if err := sc.Validate(v.ctx, v.schemaOpts...); err != nil {
			own = unstub(err, v.marks)
		}
	}
	return found, own
}

// maxGroupWalk bounds the schemas validating a group of components that lead to each
// other, as doc.Validate does, may walk: its members times its schemas.
const maxGroupWalk = 1 << 20

// stubGroups stubs the groups of level's components that lead to each other in which
// nothing is found, and those too large to be validated as doc.Validate does.
//
// Validated from one member, such a group is walked whole, so validating each member
// as doc.Validate does walks the group once per member. Instead each member is
// validated on its own, a copy standing in for it, with every member of its group
// stubbed as valid: that walks each schema of the group once, and checks every schema
// any member's walk would reach. Where nothing is found, every member is valid and
// stays stubbed. Where something is found, the group is put back, to be validated as
// doc.Validate does, unless that would walk more than maxGroupWalk schemas: then each
// member is stubbed with what was found in it alone, and reports only that.
func (v *onceValidator) stubGroups(level []*openapi3.Schema, groupOf, sizeOf map[*openapi3.Schema]int) {
	members, schemas := map[int]int{}, map[int]int{}
	for _, sc := range level {
		members[groupOf[sc]]++
		schemas[groupOf[sc]] += sizeOf[sc]
	}
	var grouped []*openapi3.Schema
	for _, sc := range level {
		if members[groupOf[sc]] > 1 {
			grouped = append(grouped, sc)
		}
	}
	originals := make([]openapi3.Schema, len(grouped))
	for i, sc := range grouped {
		originals[i] = *sc
		*sc = openapi3.Schema{}
	}
	own := make([]error, len(grouped))
	parallel(len(grouped), func(i int) {
		c := originals[i]
		if err := c.Validate(v.ctx, v.schemaOpts...); err != nil {
			own[i] = unstub(err, v.marks)
		}
	})
	found := map[int]bool{}
	for i, sc := range grouped {
		*sc = originals[i]
		found[groupOf[sc]] = found[groupOf[sc]] || own[i] != nil
	}
	for i, sc := range grouped {
		if g := groupOf[sc]; !found[g] || members[g]*schemas[g] > maxGroupWalk {
			v.stub(sc, own[i])
		}
	}
}

// stub saves sc, unless a stub already stands in for it, and replaces it by a schema that
// stands in for it: an empty one when own, its own error, is nil, else one whose one
// error is marked to be replaced by own.
func (v *onceValidator) stub(sc *openapi3.Schema, own error) {
	if _, stubbed := v.saved[sc]; !stubbed {
		v.saved[sc] = *sc
	}
	if own == nil {
		*sc = openapi3.Schema{}
		return
	}
	mark := &openapi3.Origin{}
	v.marks[mark] = own
	*sc = openapi3.Schema{Type: &openapi3.Types{"stub"}, Origin: mark}
}

// restore puts back every schema stub replaced.
func (v *onceValidator) restore() {
	for sc, saved := range v.saved {
		*sc = saved
	}
}

// validateMissing validates the names of names whose schema is missing, as
// Components.Validate does.
func (v *onceValidator) validateMissing(names []string) []error {
	var found []error
	for _, name := range names {
		ref := v.schemas[name]
		if ref != nil && ref.Value != nil {
			continue
		}
		if err := openapi3.ValidateIdentifier(name); err != nil {
			found = append(found, componentError(name, err))
			continue
		}
		for _, err := range flatten(ref.Validate(v.ctx, v.schemaOpts...)) {
			found = append(found, componentError(name, err))
		}
	}
	return found
}

// componentError wraps err, found in the component schema name, as
// Components.Validate does.
func componentError(name string, err error) error {
	return &openapi3.SectionValidationError{Section: "components",
		Cause: &openapi3.ComponentValidationError{Section: "schema", Name: name, Cause: err}}
}

// parallel calls job(0) to job(n-1) on every core and returns when all have returned.
func parallel(n int, job func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(goruntime.GOMAXPROCS(0), n)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				job(i)
			}
		})
	}
	wg.Wait()
}

// componentLevels orders the distinct component schemas of names by the components they
// lead to: level 0 leads to no other, each next level only to those before it and to
// the components of its own level that lead back to it. It also returns the names of
// each schema, the number of its group (the components that lead to each other), and
// how many schemas it holds (componentEdges).
func componentLevels(doc *openapi3.T, names []string) ([][]*openapi3.Schema, map[*openapi3.Schema][]string, map[*openapi3.Schema]int, map[*openapi3.Schema]int) {
	namesOf := map[*openapi3.Schema][]string{}
	var nodes []*openapi3.Schema
	for _, name := range names {
		if ref := doc.Components.Schemas[name]; ref != nil && ref.Value != nil {
			if _, ok := namesOf[ref.Value]; !ok {
				nodes = append(nodes, ref.Value)
			}
			namesOf[ref.Value] = append(namesOf[ref.Value], name)
		}
	}
	edges, sizeOf := componentEdges(nodes, namesOf)
	levelOf, groupOf := cycleLevels(nodes, edges)
	var levels [][]*openapi3.Schema
	for _, v := range nodes {
		l := levelOf[v]
		for len(levels) <= l {
			levels = append(levels, nil)
		}
		levels[l] = append(levels[l], v)
	}
	return levels, namesOf, groupOf, sizeOf
}

// componentEdges lists the components each of nodes leads to without passing through
// another, and counts the schemas each holds, itself and the components it leads to
// included; namesOf holds every component.
func componentEdges(nodes []*openapi3.Schema, namesOf map[*openapi3.Schema][]string) (map[*openapi3.Schema][]*openapi3.Schema, map[*openapi3.Schema]int) {
	edges := make(map[*openapi3.Schema][]*openapi3.Schema, len(nodes))
	sizeOf := make(map[*openapi3.Schema]int, len(nodes))
	for _, sc := range nodes {
		seen := map[*openapi3.Schema]bool{sc: true}
		var walk func(*openapi3.Schema)
		walk = func(s *openapi3.Schema) {
			for _, c := range schemasIn(reflect.ValueOf(s).Elem()) {
				if seen[c] {
					continue
				}
				seen[c] = true
				if _, isComponent := namesOf[c]; isComponent {
					edges[sc] = append(edges[sc], c)
				} else {
					walk(c)
				}
			}
		}
		walk(sc)
		sizeOf[sc] = len(seen)
	}
	return edges, sizeOf
}

// cycleLevels gives each of nodes the level of its strongly connected component in the
// graph of edges: one more than the highest level it leads to outside itself, 0 when it
// leads nowhere else; and the component's number. Tarjan's algorithm finds the
// components leaves first.
func cycleLevels(nodes []*openapi3.Schema, edges map[*openapi3.Schema][]*openapi3.Schema) (map[*openapi3.Schema]int, map[*openapi3.Schema]int) {
	index := map[*openapi3.Schema]int{}
	low := map[*openapi3.Schema]int{}
	onStack := map[*openapi3.Schema]bool{}
	sccOf := map[*openapi3.Schema]int{}
	var stack []*openapi3.Schema
	var sccLevel []int
	var connect func(*openapi3.Schema)
	connect = func(v *openapi3.Schema) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range edges[v] {
			if _, ok := index[w]; !ok {
				connect(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		id := len(sccLevel)
		var members []*openapi3.Schema
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			sccOf[w] = id
			members = append(members, w)
			if w == v {
				break
			}
		}
		level := 0
		for _, m := range members {
			for _, w := range edges[m] {
				if sccOf[w] != id {
					level = max(level, sccLevel[sccOf[w]]+1)
				}
			}
		}
		sccLevel = append(sccLevel, level)
	}
	for _, v := range nodes {
		if _, ok := index[v]; !ok {
			connect(v)
		}
	}
	levelOf := make(map[*openapi3.Schema]int, len(nodes))
	for _, v := range nodes {
		levelOf[v] = sccLevel[sccOf[v]]
	}
	return levelOf, sccOf
}

var (
	schemaType    = reflect.TypeFor[openapi3.Schema]()
	schemaRefType = reflect.TypeFor[openapi3.SchemaRef]()
	holdsSchemas  sync.Map // reflect.Type → bool
)

// schemasIn lists the schemas v holds directly: the values of its SchemaRefs, in its
// fields, slices and maps, not looking into those schemas.
func schemasIn(v reflect.Value) []*openapi3.Schema {
	var out []*openapi3.Schema
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		if !mayHoldSchemas(v.Type()) {
			return
		}
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				return
			}
			switch v.Type().Elem() {
			case schemaType:
				out = append(out, v.Interface().(*openapi3.Schema))
			case schemaRefType:
				if sc := v.Interface().(*openapi3.SchemaRef).Value; sc != nil {
					out = append(out, sc)
				}
			default:
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				walk(it.Value())
			}
		}
	}
	t := v.Type()
	for i := range v.NumField() {
		if f := t.Field(i); f.IsExported() && f.Type != reflect.TypeFor[*openapi3.Origin]() {
			walk(v.Field(i))
		}
	}
	return out
}

// mayHoldSchemas reports whether a value of type t can hold a *Schema or *SchemaRef.
func mayHoldSchemas(t reflect.Type) bool {
	if b, ok := holdsSchemas.Load(t); ok {
		return b.(bool)
	}
	holdsSchemas.Store(t, false) // while deciding: a type that holds itself holds nothing more
	var b bool
	switch t.Kind() {
	case reflect.Pointer:
		b = t.Elem() == schemaType || t.Elem() == schemaRefType || mayHoldSchemas(t.Elem())
	case reflect.Slice, reflect.Array:
		b = mayHoldSchemas(t.Elem())
	case reflect.Map:
		b = mayHoldSchemas(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && mayHoldSchemas(f.Type) {
				b = true
				break
			}
		}
	}
	holdsSchemas.Store(t, b)
	return b
}

// flatten lists the findings of a Validate call.
func flatten(err error) []error {
	if err == nil {
		return nil
	}
	if me, ok := err.(openapi3.MultiError); ok {
		out := make([]error, 0, len(me))
		for _, e := range me {
			out = append(out, flatten(e)...)
		}
		return out
	}
	return []error{err}
}

// unstub replaces the stub error at the end of err's chain, if it is one, by the error of
// the component schema it stands for: wrappers with a Cause field are copied with the new
// cause, others have the text replaced.
func unstub(err error, marks map[*openapi3.Origin]error) error {
	leaf := err
	for {
		u, ok := leaf.(interface{ Unwrap() error })
		if !ok || u.Unwrap() == nil {
			break
		}
		leaf = u.Unwrap()
	}
	te, ok := leaf.(*openapi3.SchemaTypeError)
	if !ok || te.Origin == nil {
		return err
	}
	real, ok := marks[te.Origin]
	if !ok {
		return err
	}
	return splice(err, leaf, real)
}

// splice rebuilds the chain err with leaf, its end, replaced by real.
func splice(err, leaf, real error) error {
	if err == leaf {
		return real
	}
	inner := err.(interface{ Unwrap() error }).Unwrap()
	rebuilt := splice(inner, leaf, real)
	v := reflect.ValueOf(err)
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		if f := v.Elem().FieldByName("Cause"); f.IsValid() && f.Type() == errorType && sameError(f.Interface(), inner) {
			cp := reflect.New(v.Elem().Type())
			cp.Elem().Set(v.Elem())
			cp.Elem().FieldByName("Cause").Set(reflect.ValueOf(&rebuilt).Elem())
			return cp.Interface().(error)
		}
	}
	return &splicedError{msg: strings.Replace(err.Error(), leaf.Error(), real.Error(), 1), wrapped: rebuilt}
}

var errorType = reflect.TypeFor[error]()

// sameError reports whether a field's value is the error inner, without comparing values
// of types that cannot be compared.
func sameError(field any, inner error) bool {
	a, b := reflect.ValueOf(field), reflect.ValueOf(inner)
	return a.IsValid() && b.IsValid() && a.Type() == b.Type() && a.Comparable() && a.Equal(b)
}

// splicedError is a wrapper splice could not copy: its text, with the stub's replaced,
// and the rebuilt chain beneath it.
type splicedError struct {
	msg     string
	wrapped error
}

func (e *splicedError) Error() string { return e.msg }
func (e *splicedError) Unwrap() error { return e.wrapped }
