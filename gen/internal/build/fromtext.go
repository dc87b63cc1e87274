package build

import (
	"encoding/json"
	"strings"

	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/gen/model"
)

// nameTextConstructors gives a FromText to each variant of a discriminated union that a
// string alone makes: a struct whose only required member that neither the discriminator
// nor a constant fixes is a union with a string variant (an OpenAI user message, whose
// content is a text or a list of parts). Its name is the variant's discriminator value and
// the last word of the union's name ("user" in ChatCompletionRequestMessage: UserMessage).
// When a type or New<Union> holds that name, or another such variant would take it too,
// it is New<Union><Value> (NewToolCodeInterpreter), whatever the order of the unions; a
// variant whose names are both taken gets none rather than a numbered one. It runs after
// every type and New<Union> is named.
func (b *builder) nameTextConstructors() {
	type made struct {
		union       *model.Decl
		v           *model.Variant
		field       *model.Field
		text        *model.Variant
		short, long string
	}
	var all []made
	claims := map[string]int{}
	for _, d := range b.decls {
		if d.Kind != model.UnionDecl || d.Discriminator == "" {
			continue
		}
		for _, v := range d.Variants {
			field, text := textMember(d, v)
			if field == nil {
				continue
			}
			var value string
			if json.Unmarshal([]byte(v.Send), &value) != nil || names.Words(value) == nil {
				continue
			}
			word := names.GoName(value)
			m := made{d, v, field, text, textName(word, d.GoName), "New" + d.GoName + word}
			all = append(all, m)
			claims[m.short]++
		}
	}
	for _, m := range all {
		for _, cand := range []string{m.short, m.long} {
			if cand == m.short && claims[cand] > 1 || !names.IsValidIdent(cand) || b.pkg.Taken(cand) {
				continue
			}
			name := b.pkg.UniqueFor(cand, "constructor of "+m.union.GoName+" from a string")
			m.v.FromText = &model.FromText{GoName: name, Field: m.field, Text: m.text}
			break
		}
	}
}

// textName joins a discriminator value's Go name and the last word of a union's name,
// once: "User" and "ChatCompletionRequestMessage" give "UserMessage", and so do
// "UserMessage" and "ChatCompletionRequestMessage".
func textName(value, union string) string {
	words := names.Words(union)
	last := words[len(words)-1]
	if strings.HasSuffix(value, last) {
		return value
	}
	return value + last
}

// textMember returns the member of variant v of union u that a string fills, and the
// string variant of that member's union; nil when v is not such a variant.
func textMember(u *model.Decl, v *model.Variant) (*model.Field, *model.Variant) {
	s := throughAliases(v.Type)
	if s == nil || s.Kind != model.StructDecl {
		return nil, nil
	}
	var member *model.Field
	for _, f := range s.Fields {
		if !f.Required || f.ReadOnly || f.Additional || f.Const != nil || f.OneValue != nil || f.Name == u.Discriminator {
			continue
		}
		if member != nil {
			return nil, nil // two members to fill
		}
		member = f
	}
	if member == nil {
		return nil, nil
	}
	inner := throughAliases(member.Type)
	if inner == nil || inner.Kind != model.UnionDecl {
		return nil, nil
	}
	var text *model.Variant
	for _, iv := range inner.Variants {
		if iv.Type.Kind == model.KindBuiltin && iv.Type.Builtin == model.String {
			if text != nil {
				return nil, nil // two string variants: which one is meant cannot be told
			}
			text = iv
		}
	}
	if text == nil {
		return nil, nil
	}
	return member, text
}

// throughAliases returns the declaration t names, following aliases; nil when t names
// none.
func throughAliases(t *model.Type) *model.Decl {
	for range 16 { // an alias cycle is not followed far
		if t == nil || t.Kind != model.KindNamed {
			return nil
		}
		if t.Decl.Kind != model.AliasDecl {
			return t.Decl
		}
		t = t.Decl.Underlying
	}
	return nil
}
