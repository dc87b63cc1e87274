package load

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

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

// utf32 says which UTF-32 text data looks like, by its byte order mark or by the zero
// bytes around its first character, or "".
func utf32(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE, 0, 0}):
		return "UTF-32 little-endian text (it starts with that byte order mark)"
	case bytes.HasPrefix(data, []byte{0, 0, 0xFE, 0xFF}):
		return "UTF-32 big-endian text (it starts with that byte order mark)"
	case len(data) >= 4 && data[0] != 0 && data[1] == 0 && data[2] == 0 && data[3] == 0:
		return "UTF-32 little-endian text (each character is followed by three zero bytes)"
	case len(data) >= 4 && data[0] == 0 && data[1] == 0 && data[2] == 0 && data[3] != 0:
		return "UTF-32 big-endian text (each character is preceded by three zero bytes)"
	}
	return ""
}
