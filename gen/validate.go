package gen

import (
	"context"
	"reflect"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/getkin/kin-openapi/openapi3"
)

// validateOnce finds what doc.Validate(ctx, opts...) finds, as a flat list, validating
// each component schema once.
//
// doc.Validate validates a schema afresh wherever it is reached: a component schema once
// for itself and again for every operation whose parameters, bodies or responses lead to
// it, with everything it refers to. On large specs that is most of the cost. Here the
// document is validated in two passes:
//
//  1. Everything but the paths and webhooks, as doc.Validate does it. This validates
//     each component schema, and so says which are valid.
//  2. The paths and webhooks, with the content of every component schema swapped for a
//     stub: an empty schema where the component is valid, else a schema whose one
//     (marked) error stands for the component's own error. A schema's validation fails
//     on its first error, without wrapping what its children report other than in
//     combinators, so the error a path reports with the stub, once the stub's error is
//     replaced by the component's, is the one it reports without.
//
// Examples are never validated against their schemas (the stubs would stand in for
// them): the options must include openapi3.DisableExamplesValidation, as Load's do.
// The document is restored before validateOnce returns; nothing else may read it
// meanwhile.
func validateOnce(doc *openapi3.T, opts ...openapi3.ValidationOption) []error {
	ctx := context.Background()
	// doc.Validate adds these for the schemas it validates; validating one directly must too.
	schemaOpts := append([]openapi3.ValidationOption(nil), opts...)
	if doc.IsOpenAPI31OrLater() {
		schemaOpts = append(schemaOpts, openapi3.IsOpenAPI31OrLater())
	}
	if doc.IsOpenAPI32OrLater() {
		schemaOpts = append(schemaOpts, openapi3.IsOpenAPI32OrLater())
	}

	// Pass 1: the document without its paths and webhooks, its component schemas
	// validated here as Components.Validate does it, on every core, with the rest.
	rest := *doc
	if doc.Paths != nil {
		empty := openapi3.NewPaths()
		empty.Origin, empty.Extensions = doc.Paths.Origin, doc.Paths.Extensions
		rest.Paths = empty
	}
	if doc.Webhooks != nil {
		rest.Webhooks = map[string]*openapi3.PathItem{}
	}
	var names []string
	if doc.Components != nil {
		names = sortedKeys(doc.Components.Schemas)
		c := *doc.Components
		c.Schemas = nil
		rest.Components = &c
	}
	// Job 0 is the rest of the document, job i the component schema names[i-1].
	results := make([][]error, 1+len(names))
	own := make([]error, len(names)) // the schema's own error, without its name and $ref
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(goruntime.GOMAXPROCS(0), len(results))) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(results); i = int(next.Add(1)) - 1 {
				if i == 0 {
					results[0] = flatten(rest.Validate(ctx, opts...))
					continue
				}
				name, ref := names[i-1], doc.Components.Schemas[names[i-1]]
				wrap := func(err error) error {
					return &openapi3.SectionValidationError{Section: "components",
						Cause: &openapi3.ComponentValidationError{Section: "schema", Name: name, Cause: err}}
				}
				if err := openapi3.ValidateIdentifier(name); err != nil {
					results[i] = []error{wrap(err)}
				} else {
					for _, err := range flatten(ref.Validate(ctx, schemaOpts...)) {
						results[i] = append(results[i], wrap(err))
					}
				}
				if len(results[i]) > 0 && ref != nil && ref.Value != nil {
					// The finding may come from the name or the $ref rather than the schema.
					own[i-1] = ref.Value.Validate(ctx, schemaOpts...)
				}
			}
		})
	}
	wg.Wait()
	var found []error
	for _, r := range results {
		found = append(found, r...)
	}
	if len(names) == 0 && (doc.Paths == nil || doc.Paths.Len() == 0) && len(doc.Webhooks) == 0 {
		return found
	}

	// The error of each component schema, validated afresh.
	errOf := make(map[*openapi3.Schema]error, len(names))
	for i, name := range names {
		if ref := doc.Components.Schemas[name]; ref != nil && ref.Value != nil {
			errOf[ref.Value] = own[i]
		}
	}

	// Pass 2: the paths and webhooks, component schemas stubbed.
	marks := map[*openapi3.Origin]error{}
	saved := make(map[*openapi3.Schema]openapi3.Schema, len(errOf))
	for sc, err := range errOf {
		saved[sc] = *sc
		if err == nil {
			*sc = openapi3.Schema{}
			continue
		}
		mark := &openapi3.Origin{}
		marks[mark] = err
		*sc = openapi3.Schema{Type: &openapi3.Types{"stub"}, Origin: mark}
	}
	defer func() {
		for sc, v := range saved {
			*sc = v
		}
	}()
	paths := *doc
	if doc.Components != nil {
		// Only what validating the paths reads: the security schemes their requirements name.
		paths.Components = &openapi3.Components{SecuritySchemes: doc.Components.SecuritySchemes}
	}
	seen := map[string]bool{}
	for _, err := range found {
		seen[err.Error()] = true
	}
	for _, err := range flatten(paths.Validate(ctx, opts...)) {
		if section, _ := err.(*openapi3.SectionValidationError); section != nil && section.Section == "components" {
			continue // pass 1 validated the components
		}
		err = unstub(err, marks)
		if msg := err.Error(); !seen[msg] {
			seen[msg] = true
			found = append(found, err)
		}
	}
	return found
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
