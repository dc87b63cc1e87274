package policy_test

import (
	"strings"
	"testing"
)

// keyedOp is a POST /pay with a form body of a string property IdempotencyKey, an
// integer Amount, and the given x-idempotency-key.
func keyedOp(key string) string {
	return spec("", `  /pay:
    post:
      x-idempotency-key: `+key+`
      requestBody:
        content:
          application/x-www-form-urlencoded:
            schema: {type: object, properties: {IdempotencyKey: {type: string}, Amount: {type: integer}}}
`+ok)
}

// x-idempotency-key: {in: body, name: NAME} names a body property: the operation is
// retry-safe and sends no key header; {in: header, name: NAME} is the header NAME.
func TestIdempotencyKeyInTheBody(t *testing.T) {
	p := policies(t, keyedOp("{in: body, name: IdempotencyKey}"))["POST /pay"]
	if !p.Retry || !p.Idempotent || !p.KeyInBody || p.IdempotencyKey != "IdempotencyKey" ||
		p.Reason != `POST sends an idempotency key in the body property "IdempotencyKey" (x-idempotency-key on the operation)` {
		t.Errorf("policy %+v", p)
	}
	p = policies(t, keyedOp("{in: header, name: X-Key}"))["POST /pay"]
	if !p.Retry || p.KeyInBody || p.IdempotencyKey != "X-Key" {
		t.Errorf("header key: policy %+v", p)
	}
}

// A body key that names no string property of a form or JSON body, or that is written
// wrong, is an error located at the extension or the operation, with a fix.
func TestIdempotencyKeyInTheBodyErrors(t *testing.T) {
	for _, tt := range []struct{ key, want string }{
		{"{in: body, name: Token}", `api.yaml:5:5: POST /pay: x-idempotency-key (from the operation) names the body property "Token", but its request body has no such property`},
		{"{in: body, name: Amount}", `names the body property "Amount", but that property is not a string the request sends`},
		{"{in: body}", `x-idempotency-key.name must name the body property that carries the key, got null`},
		{"{in: query, name: key}", `api.yaml:6:27: POST /pay: x-idempotency-key.in must be body or header, got "query"`},
		{"{in: body, name: k, required: true}", `x-idempotency-key: unknown field "required": it has in and name`},
		{"{in: header, name: 'a b'}", `x-idempotency-key.name must be a header name, got "a b"`},
	} {
		_, err := loadSpec(t, "api.yaml", keyedOp(tt.key))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "fix: ") {
			t.Errorf("%s: got %v, want %s", tt.key, err, tt.want)
		}
	}
	_, err := loadSpec(t, "api.yaml", spec("", "  /pay:\n"+op("post", "x-idempotency-key: {in: body, name: k}")))
	if err == nil || !strings.Contains(err.Error(), "the operation has no request body") {
		t.Errorf("no body: %v", err)
	}
}

// A body key property whose schema a UUIDv4 does not meet (a length bound, a pattern, a
// format) is an error: the key a call makes would be refused by the server, on an
// operation counted retry-safe. One a UUID meets is a key.
func TestIdempotencyKeyInTheBodyMustTakeAUUID(t *testing.T) {
	bodyWith := func(prop string) string {
		return spec("", `  /pay:
    post:
      x-idempotency-key: {in: body, name: tok}
      requestBody:
        content:
          application/json:
            schema:
              allOf:
                - {type: object, properties: {amount: {type: integer}}}
                - {type: object, properties: {tok: `+prop+`}}
`+ok)
	}
	for prop, want := range map[string]string{
		`{type: string, maxLength: 10}`:       "allows at most 10 characters",
		`{type: string, minLength: 40}`:       "needs at least 40 characters",
		`{type: string, pattern: "^[0-9]+$"}`: `pattern "^[0-9]+$" does not match a UUID`,
		`{type: string, format: email}`:       `format "email" is not a UUID`,
	} {
		_, err := loadSpec(t, "api.yaml", bodyWith(prop))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "fix: ") {
			t.Errorf("%s: got %v, want %s", prop, err, want)
		}
	}
	for _, prop := range []string{`{type: string, format: uuid, maxLength: 36}`, `{type: string, pattern: "^[0-9a-f-]+$"}`} {
		if _, err := loadSpec(t, "api.yaml", bodyWith(prop)); err != nil {
			t.Errorf("%s: %v, want a key", prop, err)
		}
	}
}
