package build

import (
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
			m.BodyKey = f
			continue
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
