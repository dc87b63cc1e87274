package build

import (
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/model"
)

// OpenAPI 3.1 has a way to give each value of an enum a name and a description: a oneOf
// (or anyOf) of constants,
//
//	ChannelTypes: {type: integer, oneOf: [{title: GUILD_TEXT, const: 0}, {title: DM, const: 1}]}
//
// which is an enum, not a union: a named type with a constant per member, the constant
// named from the member's title and documented by its description. A member that is the
// plain type and no more ({type: string}) makes the enum open, as openai.yaml writes the
// models it knows beside any string.

// enumMember is one value of an enum written as alternatives.
type enumMember struct {
	value any    // the spec's value, before conversion to the base type
	title string // the member's title, which names the constant; "" for none
	doc   string // the member's description
}

// constEnum reads alternatives vs of s as an enum: every member a const or an enum of
// values of one scalar type, or that type with nothing more (an open enum). It reports
// false for anything else, such as members of several types or an object.
func constEnum(s *openapi3.Schema, vs []*openapi3.SchemaRef) (shape, bool) {
	parentType := ""
	if types := nonNullTypes(s); len(types) > 1 {
		return shape{}, false
	} else if len(types) == 1 {
		parentType = types[0]
	}
	var base model.Builtin
	agree := func(b model.Builtin) bool {
		if base == "" {
			base = b
		}
		return b == base && hasConstants(b)
	}
	var members []enumMember
	open := false
	for _, v := range vs {
		m := v.Value
		if !scalarOnly(m) {
			return shape{}, false
		}
		typ, format := parentType, s.Format
		if types := nonNullTypes(m); len(types) > 1 {
			return shape{}, false
		} else if len(types) == 1 {
			typ = types[0]
		}
		if m.Format != "" {
			format = m.Format
		}
		values := memberValues(m)
		if len(values) == 0 {
			// The type and no value: any value of it is allowed.
			if typ == "" || !agree(scalar(typ, format)) {
				return shape{}, false
			}
			open = true
			continue
		}
		for _, val := range values {
			t := typ
			if t == "" {
				t = constType(val)
			}
			if !agree(scalar(t, format)) {
				return shape{}, false
			}
			em := enumMember{value: val}
			if len(values) == 1 {
				// The title and description of a member of many values are the group's.
				em.title, em.doc = m.Title, m.Description
			}
			members = append(members, em)
		}
	}
	sh := shape{kind: shapeEnum, builtin: base, open: open}
	seen := map[any]bool{}
	for _, em := range members {
		if c, ok := enumConstant(base, em.value); ok && !seen[c] {
			seen[c] = true
			em.value = c
			sh.values = append(sh.values, c)
			sh.members = append(sh.members, em)
		}
	}
	if len(sh.values) == 0 {
		return shape{}, false
	}
	return sh, true
}

// scalarOnly reports a schema that says nothing of objects, arrays or alternatives: one
// that a member of an enum can be.
func scalarOnly(s *openapi3.Schema) bool {
	return len(s.Properties) == 0 && s.Items == nil && s.AdditionalProperties.Schema == nil &&
		len(s.AllOf) == 0 && len(s.OneOf) == 0 && len(s.AnyOf) == 0 && s.Not == nil
}

// memberValues returns the values a member of an enum allows: its const, else its enum's
// values other than null.
func memberValues(m *openapi3.Schema) []any {
	if m.Const != nil {
		return []any{m.Const}
	}
	var out []any
	for _, v := range m.Enum {
		if v != nil {
			out = append(out, v)
		}
	}
	return out
}

// rawEnumValues returns every value the spec lists for the enum s: its enum's, or its
// alternatives' when it is written as a oneOf or anyOf of constants.
func rawEnumValues(s *openapi3.Schema) []any {
	if len(s.Enum) > 0 {
		return s.Enum
	}
	var out []any
	for _, v := range alternatives(s) {
		out = append(out, memberValues(v.Value)...)
	}
	return out
}
