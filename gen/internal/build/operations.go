package build

import (
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// Operations lists every operation of the spec in a stable order (paths sorted, methods
// in load.Methods order) with its retry policy, derived once here. GoName and the rest
// are left for Build. It reports every malformed extension, operation-level x-retry on
// an operation that may not be retried, and duplicate operationIds.
func Operations(spec *load.Spec) ([]*model.Operation, error) {
	var errs source.ErrorList
	doc := spec.Doc
	docLevel := level(spec, model.FromDocument, doc.Extensions, doc.Origin, "#")
	docSettings := policy.Read(docLevel, "", &errs, &spec.Warnings)

	var ops []*model.Operation
	type place struct {
		op  string
		pos source.Pos
	}
	ids := map[string][]place{}
	for _, path := range source.SortedKeys(doc.Paths.Map()) {
		item := doc.Paths.Value(path)
		if item == nil {
			continue
		}
		pathLevel := level(spec, model.FromPath, item.Extensions, item.Origin, "#/paths/"+source.EscapePointer(path))
		pathSettings := policy.Read(pathLevel, "", &errs, &spec.Warnings)
		for _, m := range load.Methods(item) {
			op := item.GetOperation(m.Method)
			name := source.OpName(m.Method, path, op.OperationID)
			opLevel := level(spec, model.FromOperation, op.Extensions, op.Origin, pathLevel.Pointer+m.Pointer)
			pos := spec.Files.PosOf(op.Origin)
			if !pos.IsValid() {
				pos = spec.Files.PosOfPointer(opLevel.Pointer)
			}
			pol := policy.Resolve(policy.Operation{
				Method:        m.Method,
				Name:          name,
				Pos:           pos,
				KeyHeader:     declaredKeyParam(op.Parameters),
				PathKeyHeader: declaredKeyParam(item.Parameters),
			}, docSettings, pathSettings, policy.Read(opLevel, name, &errs, &spec.Warnings), &errs)
			ops = append(ops, &model.Operation{
				Method:      m.Method,
				Path:        path,
				OperationID: op.OperationID,
				Summary:     op.Summary,
				Description: op.Description,
				Deprecated:  op.Deprecated,
				Policy:      pol,
			})
			if op.OperationID != "" {
				ids[op.OperationID] = append(ids[op.OperationID], place{op: name, pos: pos})
			}
		}
	}
	for _, id := range source.SortedKeys(ids) {
		places := ids[id]
		if len(places) < 2 {
			continue
		}
		for i, p := range places {
			var others []string
			for j, q := range places {
				if j != i {
					others = append(others, q.op+" at "+q.pos.String())
				}
			}
			errs.Add(&source.Error{
				Pos: p.pos, Op: p.op,
				Msg: fmt.Sprintf("duplicate operationId %q, also used by %s", id, strings.Join(others, ", ")),
				Fix: "give each operation its own operationId",
			})
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return ops, nil
}

// level describes one object whose extensions the policy stage reads, with a way to
// locate them: by the origin kin-openapi recorded, else by JSON pointer.
func level(spec *load.Spec, src model.Source, ext map[string]any, origin *openapi3.Origin, pointer string) policy.Level {
	return policy.Level{
		Source:   src,
		Ext:      ext,
		Pointer:  pointer,
		Overlays: spec.Overlays,
		Locate: func(name string, inside ...string) source.Pos {
			if loc, ok := spec.Files.FieldLocation(origin, name); ok {
				return spec.Files.WithinLocation(loc, inside...)
			}
			ptr := pointer + "/" + source.EscapePointer(name)
			for _, p := range inside {
				ptr += "/" + source.EscapePointer(p)
			}
			return spec.Files.PosOfPointer(ptr)
		},
	}
}

// declaredKeyParam returns the name of a header parameter called Idempotency-Key (any
// case), or "".
func declaredKeyParam(params openapi3.Parameters) string {
	for _, p := range params {
		if p == nil || p.Value == nil {
			continue
		}
		if p.Value.In == openapi3.ParameterInHeader && strings.EqualFold(p.Value.Name, policy.DefaultIdempotencyKey) {
			return p.Value.Name
		}
	}
	return ""
}
