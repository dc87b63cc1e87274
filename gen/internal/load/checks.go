package load

import (
	"fmt"
	"iter"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
)

// The checks of the decoded document that kin-openapi's validation does not make: the
// version, the number of operations, the nesting of schemas and the size of enums.

// checkOperationCount rejects specs with more than MaxOperations operations.
func (s *Spec) checkOperationCount(errs *source.ErrorList) {
	n := 0
	for _, item := range s.Doc.Paths.Map() {
		if item != nil {
			n += len(item.Operations())
		}
	}
	if n > MaxOperations {
		errs.Add(&source.Error{
			Pos:     s.Files.PosOfPointer("#/paths"),
			Pointer: "#/paths",
			Msg:     fmt.Sprintf("limit exceeded: %d operations, more than %d", n, MaxOperations),
			Fix:     "split the description into several, one client each",
		})
	}
}

const versionFix = `start the document with openapi: "3.1.0" (or the 3.0 or 3.2 version it follows)`

type versionError struct{ version, field string }

func (e *versionError) Error() string {
	if e.version == "" {
		return "missing OpenAPI version: the document has no \"openapi\" field"
	}
	return fmt.Sprintf("unsupported OpenAPI version %s %q: retrygen reads OpenAPI 3.0, 3.1 and 3.2, and Swagger 2.0", e.field, e.version)
}

// checkVersion accepts OpenAPI 3.0, 3.1 and 3.2 ("3.1" or "3.1.x"); Swagger 2.0 was
// checked before conversion.
func (s *Spec) checkVersion(errs *source.ErrorList) {
	if s.Version == "2.0" {
		return
	}
	v := s.Doc.OpenAPI
	for _, minor := range []string{"3.0", "3.1", "3.2"} {
		if v == minor || strings.HasPrefix(v, minor+".") {
			return
		}
	}
	pos := s.Files.PosOfField(s.Doc.Origin, "openapi")
	if !pos.IsValid() {
		pos = s.Files.PosOfPointer("#/openapi")
	}
	if !pos.IsValid() {
		pos = source.Pos{File: s.Path, Line: 1, Col: 1} // an empty document: the field belongs at its start
	}
	errs.Add(&source.Error{Pos: pos, Msg: (&versionError{version: v, field: "openapi"}).Error(), Fix: versionFix})
}

// checkDepth rejects schemas nested inline deeper than max, and enums of more than
// MaxEnumValues values. It stops at the first schema nested too deep.
func (s *Spec) checkDepth(max int, errs *source.ErrorList) {
	c := &depthCheck{spec: s, max: max, errs: errs, seen: map[*openapi3.Schema]bool{}}
	for root := range s.schemaRoots() {
		if !c.walk(root, 0) {
			return
		}
	}
}

// depthCheck is the state of checkDepth's walk: the schemas seen, each once.
type depthCheck struct {
	spec *Spec
	max  int
	errs *source.ErrorList
	seen map[*openapi3.Schema]bool
}

// walk checks ref, at depth levels of inline nesting, and the schemas within it; a $ref
// starts again at 0. It reports false when a schema is nested too deep.
func (c *depthCheck) walk(ref *openapi3.SchemaRef, depth int) bool {
	if ref == nil || ref.Value == nil {
		return true
	}
	if ref.Ref != "" {
		depth = 0
	}
	sc := ref.Value
	if c.seen[sc] {
		return true
	}
	c.seen[sc] = true
	if len(sc.Enum) > MaxEnumValues {
		c.errs.Add(&source.Error{
			Pos: c.spec.Files.PosOf(sc.Origin),
			Msg: fmt.Sprintf("limit exceeded: enum of %d values, more than %d", len(sc.Enum), MaxEnumValues),
			Fix: "declare the values as a plain string or integer, and document them",
		})
	}
	if depth > c.max {
		c.errs.Add(&source.Error{
			Pos: c.spec.Files.PosOf(sc.Origin),
			Msg: fmt.Sprintf("schema nested more than %d levels deep", c.max),
			Fix: "move the inner schemas to components/schemas and refer to them with $ref",
		})
		return false
	}
	for _, child := range schemaChildren(sc) {
		if !c.walk(child, depth+1) {
			return false
		}
	}
	return true
}

// schemaRoots yields the schemas the document holds outside other schemas: the component
// schemas by name, the schemas of the component parameters by name, then, path by path,
// those of the path's parameters and of each operation's parameters, request body and
// responses.
func (s *Spec) schemaRoots() iter.Seq[*openapi3.SchemaRef] {
	return func(yield func(*openapi3.SchemaRef) bool) {
		content := func(c openapi3.Content) bool {
			for _, mt := range c {
				if mt != nil && mt.Schema != nil && !yield(mt.Schema) {
					return false
				}
			}
			return true
		}
		param := func(p *openapi3.ParameterRef) bool {
			if p == nil || p.Value == nil {
				return true
			}
			return (p.Value.Schema == nil || yield(p.Value.Schema)) && content(p.Value.Content)
		}
		if c := s.Doc.Components; c != nil {
			for _, name := range source.SortedKeys(c.Schemas) {
				if c.Schemas[name] != nil && !yield(c.Schemas[name]) {
					return
				}
			}
			for _, name := range source.SortedKeys(c.Parameters) {
				if !param(c.Parameters[name]) {
					return
				}
			}
		}
		for _, path := range s.Doc.Paths.InMatchingOrder() {
			item := s.Doc.Paths.Value(path)
			if item == nil {
				continue
			}
			for _, p := range item.Parameters {
				if !param(p) {
					return
				}
			}
			for _, m := range Methods(item) {
				op := item.GetOperation(m.Method)
				for _, p := range op.Parameters {
					if !param(p) {
						return
					}
				}
				if op.RequestBody != nil && op.RequestBody.Value != nil && !content(op.RequestBody.Value.Content) {
					return
				}
				if op.Responses != nil {
					for _, r := range op.Responses.Map() {
						if r != nil && r.Value != nil && !content(r.Value.Content) {
							return
						}
					}
				}
			}
		}
	}
}

// schemaChildren lists the schemas nested directly in sc.
func schemaChildren(sc *openapi3.Schema) []*openapi3.SchemaRef {
	var out []*openapi3.SchemaRef
	out = append(out, sc.OneOf...)
	out = append(out, sc.AnyOf...)
	out = append(out, sc.AllOf...)
	out = append(out, sc.Not, sc.Items)
	if sc.AdditionalProperties.Schema != nil {
		out = append(out, sc.AdditionalProperties.Schema)
	}
	for _, name := range source.SortedKeys(sc.Properties) {
		out = append(out, sc.Properties[name])
	}
	return out
}
