package load

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// strict checks what kin-openapi would read leniently: the version fields, and a Swagger
// 2.0 document's structure. It reports whether the document is Swagger 2.0.
func (s *Spec) strict(root *yaml.Node, data []byte) (swagger2 bool, err error) {
	if e := s.checkVersionFields(root); e != nil {
		return false, source.ErrorList{e}
	}
	swagger2 = isSwagger2(root, data)
	if swagger2 && root != nil {
		if e := s.checkSwagger2(root); e != nil {
			return false, source.ErrorList{e}
		}
	}
	return swagger2, nil
}

// isSwagger2 reports whether the document is Swagger 2.0: its root mapping has a
// "swagger" key. Without a tree (the YAML parser refused the file), a "swagger:" line
// decides, and the loader reports the syntax error.
func isSwagger2(root *yaml.Node, data []byte) bool {
	if root != nil {
		return source.MappingValue(root, "swagger") != nil
	}
	return hasSwaggerLine(data)
}

// checkVersionFields refuses a root mapping with both a "swagger" and an "openapi" key,
// located at the later: read as Swagger 2.0, as isSwagger2 would have it, the OpenAPI 3
// parts of the document (content, requestBody, components) would be silently dropped.
func (s *Spec) checkVersionFields(root *yaml.Node) *source.Error {
	if root == nil || root.Kind != yaml.MappingNode {
		return nil
	}
	sw, oa := source.MappingKey(root, "swagger"), source.MappingKey(root, "openapi")
	if sw == nil || oa == nil {
		return nil
	}
	later := sw
	if oa.Line > sw.Line || oa.Line == sw.Line && oa.Column > sw.Column {
		later = oa
	}
	return &source.Error{Pos: source.Pos{File: s.Path, Line: later.Line, Col: later.Column},
		Msg: "malformed document: both \"swagger\" and \"openapi\" give the version; a document is either Swagger 2.0 or OpenAPI 3",
		Fix: "keep the field of the version the document follows and remove the other"}
}

// checkSwagger2 reads a Swagger 2.0 document as kin-openapi's JSON decoding does not:
// strictly. encoding/json lets a duplicate key override the first and matches field
// names whatever their case, so `pAtHs:` would be read as the paths and a second
// `x-idempotent` would silently replace the one a reader sees. Both are refused,
// located. root is the document's node tree.
func (s *Spec) checkSwagger2(root *yaml.Node) *source.Error {
	if e := s.checkDuplicateKeys(root, 0); e != nil {
		return e
	}
	return s.checkKeyCase(root, reflect.TypeFor[openapi2.T](), 0)
}

// checkDuplicateKeys refuses a key repeated in one mapping, as YAML does.
func (s *Spec) checkDuplicateKeys(n *yaml.Node, depth int) *source.Error {
	if k, first := repeatedKey(n, depth); k != nil {
		return &source.Error{Pos: s.nodePos(k),
			Msg: fmt.Sprintf("malformed document: mapping key %q already defined at line %d", k.Value, first.Line)}
	}
	return nil
}

// repeatedKey returns the first key of a mapping of the tree at n that repeats one
// before it in the same mapping, and that one; nil when none does.
func repeatedKey(n *yaml.Node, depth int) (repeated, first *yaml.Node) {
	if n == nil || depth > 10000 {
		return nil, nil
	}
	if n.Kind == yaml.MappingNode {
		seen := make(map[string]*yaml.Node, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			if first, ok := seen[k.Value]; ok {
				return k, first
			}
			seen[k.Value] = k
		}
	}
	for _, c := range n.Content {
		if k, first := repeatedKey(c, depth+1); k != nil {
			return k, first
		}
	}
	return nil, nil
}

// checkKeyCase refuses a mapping key of n that names a field of t only when compared
// without case.
func (s *Spec) checkKeyCase(n *yaml.Node, t reflect.Type, depth int) *source.Error {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || depth > 1000 {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 1; i < len(n.Content); i += 2 {
				if e := s.checkKeyCase(n.Content[i], t.Elem(), depth+1); e != nil {
					return e
				}
			}
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for _, c := range n.Content {
				if e := s.checkKeyCase(c, t.Elem(), depth+1); e != nil {
					return e
				}
			}
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		// A $ref or the value itself.
		if v, ok := t.FieldByName("Value"); ok {
			if _, isRef := t.FieldByName("Ref"); isRef {
				if source.MappingValue(n, "$ref") != nil {
					return nil
				}
				return s.checkKeyCase(n, v.Type, depth+1)
			}
		}
		fields := jsonFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if ft, ok := fields[k.Value]; ok {
				if e := s.checkKeyCase(n.Content[i+1], ft, depth+1); e != nil {
					return e
				}
				continue
			}
			if strings.HasPrefix(k.Value, "x-") {
				continue
			}
			for name := range fields {
				if strings.EqualFold(name, k.Value) {
					return &source.Error{Pos: s.nodePos(k),
						Msg: fmt.Sprintf("unknown field %q: field names are case-sensitive (did you mean %q?)", k.Value, name),
						Fix: fmt.Sprintf("write it as %s", name)}
				}
			}
		}
	}
	return nil
}

// jsonFields maps the JSON names of t's fields, embedded structs' included, to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "":
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					out[k] = v
				}
			}
		case name != "" && f.IsExported():
			out[name] = f.Type
		}
	}
	return out
}
