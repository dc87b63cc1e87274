package build

import (
	"fmt"
	"regexp"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/model"
)

// bodyKeys finds, for each method of op whose idempotency key is a body property
// (x-idempotency-key: {in: body, name: ...}), the field of its form or JSON body that
// carries it. A body without that property, or with one that is not a string, is an
// error: the operation would count as retry-safe and send no key.
func (b *builder) bodyKeys(op *model.Operation, kop *openapi3.Operation) {
	p := op.Policy
	if !p.KeyInBody {
		return
	}
	for _, m := range op.Methods() {
		f, why := keyField(m.Body, p.IdempotencyKey)
		if f != nil {
			if why = uuidFits(keySchema(kop, m.Body.ContentType, p.IdempotencyKey)); why == "" {
				m.BodyKey = f
				continue
			}
		}
		var origin *openapi3.Origin
		if kop != nil {
			origin = kop.Origin
		}
		e := b.located(m, origin, "x-idempotency-key (from the %s) names the body property %q, but %s", p.Sources[policy.KeyField], p.IdempotencyKey, why)
		e.Fix = "name a string property of the operation's form or JSON request body, or write x-idempotency-key: false on the operation"
		b.errs.Add(e)
	}
}

// keyField returns the string field of body, a form or JSON body, whose wire name is
// name; nil and why not otherwise.
func keyField(body *model.Body, name string) (*model.Field, string) {
	if body == nil {
		return nil, "the operation has no request body"
	}
	if body.Encoding != model.JSONBody && body.Encoding != model.FormBody {
		return nil, "its request body (" + body.ContentType + ") is neither a form nor JSON"
	}
	d := structDecl(body.Type)
	if d == nil {
		return nil, "its request body is not an object"
	}
	for _, f := range d.Fields {
		if f.Name != name || f.Additional {
			continue
		}
		if f.ReadOnly || !isString(f.Type) {
			return nil, "that property is not a string the request sends"
		}
		return f, ""
	}
	return nil, "its request body has no such property"
}

// sampleKey is a key as the generated method makes one: a UUIDv4.
const sampleKey = "8e03978e-40d5-43e8-bc93-6894a57f9324"

// uuidFits returns why a UUIDv4 is not a value schema allows ("" when it is, or when
// schema is unknown): a length bound, a pattern or a format that a UUID does not meet,
// so that a key the method makes would be refused by the server.
func uuidFits(schema *openapi3.Schema) string {
	if schema == nil {
		return ""
	}
	switch n := uint64(len(sampleKey)); {
	case schema.MaxLength != nil && *schema.MaxLength < n:
		return fmt.Sprintf("that property allows at most %d characters, and the key a call makes is a UUID of %d", *schema.MaxLength, n)
	case schema.MinLength > n:
		return fmt.Sprintf("that property needs at least %d characters, and the key a call makes is a UUID of %d", schema.MinLength, n)
	}
	if schema.Pattern != "" {
		if re, err := regexp.Compile(schema.Pattern); err == nil && !re.MatchString(sampleKey) {
			return fmt.Sprintf("that property's pattern %q does not match a UUID, the key a call makes", schema.Pattern)
		}
	}
	switch schema.Format {
	case "", "uuid", "string", "password", "idempotency-key":
		return ""
	}
	return fmt.Sprintf("that property's format %q is not a UUID, the key a call makes", schema.Format)
}

// keySchema returns the schema of the property name of op's request body of content type
// ct, looked for among its properties and those of its allOf members; nil when there is
// none to be found.
func keySchema(op *openapi3.Operation, ct, name string) *openapi3.Schema {
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return nil
	}
	mt := op.RequestBody.Value.Content.Get(ct)
	if mt == nil || mt.Schema == nil {
		return nil
	}
	return propertySchema(mt.Schema.Value, name, 0)
}

// propertySchema finds the property name in s or its allOf members, depth levels down.
func propertySchema(s *openapi3.Schema, name string, depth int) *openapi3.Schema {
	if s == nil || depth > 8 {
		return nil
	}
	if p := s.Properties[name]; p != nil {
		return p.Value
	}
	for _, member := range s.AllOf {
		if member != nil {
			if p := propertySchema(member.Value, name, depth+1); p != nil {
				return p
			}
		}
	}
	return nil
}
