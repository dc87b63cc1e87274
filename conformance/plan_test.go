package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/retrygen/retrygen/conformance/driver"
	"github.com/retrygen/retrygen/gen/model"
)

// opRun is one operation under test: its calls, and what went wrong.
type opRun struct {
	Key   string // e.g. "GET /pets/{petId}"
	ID    string // operationId, "" when none
	Op    *model.Operation
	Kin   *openapi3.Operation
	Item  *openapi3.PathItem
	Calls []driver.Call
	// Failures are the problems found, in the order found, without repeats.
	Failures []string
	// Excluded is the exclusion that covers every failure; nil when none does.
	Excluded *exclusion
}

func (o *opRun) fail(msg string) {
	msg = oneLine(msg)
	if !slices.Contains(o.Failures, msg) {
		o.Failures = append(o.Failures, msg)
	}
}

// validationOptions are the validator's settings. Security requirements are not
// checked: credentials are the caller's to add (WithRequestEditor), not the generated
// code's. Schema errors are kept to one line where the validator can (not for OpenAPI
// 3.1, whose JSON Schema 2020 validator words its errors its own way).
func validationOptions(doc *openapi3.T) *openapi3filter.Options {
	o := &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		SkipSettingDefaults:   true,
	}
	if !doc.IsOpenAPI31OrLater() {
		o.SchemaValidationOptions = []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()}
	}
	return o
}

// plan builds the calls of one operation: one per declared response status, each with
// the same sample arguments.
func (r *specRun) plan(o *opRun) {
	req := sampler{v31: r.Doc.IsOpenAPI31OrLater(), request: true}
	base := driver.Call{Method: o.Op.GoName}
	for _, p := range o.Op.PathParams {
		v, err := r.paramSample(req, o, p)
		if err != nil {
			o.fail("sample: path parameter " + p.Name + ": " + err.Error())
		}
		base.PathArgs = append(base.PathArgs, mustJSON(v))
	}
	for _, p := range o.Op.Params {
		if p.Argument() {
			v, err := r.paramSample(req, o, p)
			if err != nil {
				o.fail("sample: " + p.In + " parameter " + p.Name + ": " + err.Error())
			}
			base.PathArgs = append(base.PathArgs, mustJSON(v))
		}
	}
	if o.Op.ParamsType != "" {
		base.HasParams = true
		base.Params = map[string]json.RawMessage{}
		for _, p := range o.Op.Params {
			if p.Argument() || strings.EqualFold(p.Name, "Idempotency-Key") && p.In == "header" {
				continue // an argument, or the runtime sends one of its own
			}
			v, err := r.paramSample(req, o, p)
			if err != nil {
				o.fail("sample: " + p.In + " parameter " + p.Name + ": " + err.Error())
			}
			base.Params[p.GoName] = mustJSON(v)
		}
	}
	if o.Op.Body != nil {
		b, err := r.bodySample(req, o)
		if err != nil {
			o.fail("sample: body: " + err.Error())
		}
		base.Body = b
	}

	keys := []string{}
	if o.Kin.Responses != nil {
		for k := range o.Kin.Responses.Map() {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	declared := map[int]bool{}
	for _, k := range keys {
		if n, err := strconv.Atoi(k); err == nil {
			declared[n] = true
		} else if len(k) == 3 && strings.EqualFold(k[1:], "XX") && k[0] >= '1' && k[0] <= '5' {
			declared[int(k[0]-'0')] = true // a class: 4XX is 4
		}
	}
	for _, k := range keys {
		c := base
		c.ID = o.Key + " " + k
		status := statusFor(k, declared)
		if status < 200 {
			o.fail(fmt.Sprintf("status %s: a 1xx response is not a final response; net/http never returns one to a client", k))
			continue
		}
		resp, err := r.responseSample(o, k, status)
		if err != nil {
			o.fail(fmt.Sprintf("sample: %s response: %v", k, err))
		}
		c.Response = resp
		c.Want = r.want(o, k, status, resp)
		o.Calls = append(o.Calls, c)
	}
	if len(o.Calls) == 0 && len(keys) == 0 {
		c := base
		c.ID = o.Key + " (none declared)"
		c.Response = driver.Response{Status: 200}
		c.Want = driver.Want{OK: true}
		o.Calls = append(o.Calls, c)
	}
}

// statusFor picks the status to send for a response key: the code itself, the first
// code of a class ("4XX") that no other key declares, or for "default" the first of a
// few error statuses that no key declares, exactly or by class. declared holds the
// codes, and the class digits (4 for 4XX), of all keys.
func statusFor(key string, declared map[int]bool) int {
	if n, err := strconv.Atoi(key); err == nil {
		return n
	}
	if len(key) == 3 && strings.EqualFold(key[1:], "XX") && key[0] >= '1' && key[0] <= '5' {
		lo := int(key[0]-'0') * 100
		for n := lo; n < lo+100; n++ {
			if !declared[n] && http.StatusText(n) != "" {
				return n
			}
		}
		return lo
	}
	for _, n := range []int{500, 400, 422, 503, 418} {
		if !declared[n] && !declared[n/100] {
			return n
		}
	}
	return 599
}

// param finds the kin-openapi parameter the model's p stands for.
func (o *opRun) param(p *model.Param) *openapi3.Parameter {
	if q := o.Kin.Parameters.GetByInAndName(p.In, p.Name); q != nil {
		return q
	}
	if q := o.Item.Parameters.GetByInAndName(p.In, p.Name); q != nil {
		return q
	}
	return nil
}

func (r *specRun) paramSample(s sampler, o *opRun, p *model.Param) (any, error) {
	kp := o.param(p)
	if kp == nil {
		return "sample", fmt.Errorf("the spec has no %s parameter %q", p.In, p.Name)
	}
	schema := kp.Schema
	examples := []any{kp.Example}
	for _, name := range sortedKeys(kp.Examples) {
		if ex := kp.Examples[name]; ex != nil && ex.Value != nil {
			examples = append(examples, ex.Value.Value)
		}
	}
	if schema == nil {
		for _, mt := range sortedKeys(kp.Content) {
			if m := kp.Content[mt]; m != nil && m.Schema != nil {
				schema = m.Schema
				examples = append(examples, mediaExamples(m)...)
				break
			}
		}
	}
	return s.sample(schema, examples...)
}

func mediaExamples(m *openapi3.MediaType) []any {
	out := []any{m.Example}
	for _, name := range sortedKeys(m.Examples) {
		if ex := m.Examples[name]; ex != nil && ex.Value != nil {
			out = append(out, ex.Value.Value)
		}
	}
	return out
}

// bodySample makes the body argument from the spec's media type for the content type
// the client sends.
func (r *specRun) bodySample(s sampler, o *opRun) (*driver.Body, error) {
	b := o.Op.Body
	var mt *openapi3.MediaType
	if rb := o.Kin.RequestBody; rb != nil && rb.Value != nil {
		mt = rb.Value.Content.Get(b.ContentType)
		if mt == nil {
			for _, k := range sortedKeys(rb.Value.Content) {
				mt = rb.Value.Content[k]
				break
			}
		}
	}
	var v any = "sample"
	var err error
	if mt != nil {
		v, err = s.sample(mt.Schema, mediaExamples(mt)...)
	}
	switch b.Encoding {
	case model.MultipartBody:
		if d := structDecl(b.Type); d != nil {
			fields := map[string]json.RawMessage{}
			m, _ := v.(map[string]any)
			for _, f := range d.Fields {
				if x, ok := m[f.Name]; ok {
					fields[f.GoName] = mustJSON(x)
				}
			}
			return &driver.Body{Mode: "fields", Fields: fields}, err
		}
	case model.RawBody:
		text, ok := v.(string)
		if !ok {
			text = string(mustJSON(v))
		}
		return &driver.Body{Mode: "reader", Text: text}, err
	}
	return &driver.Body{Mode: "json", JSON: mustJSON(v)}, err
}

// structDecl is the struct a type names, through a pointer; nil for any other type.
func structDecl(t *model.Type) *model.Decl {
	for t != nil && t.Kind == model.KindPointer {
		t = t.Elem
	}
	if t == nil || t.Kind != model.KindNamed || t.Decl.Kind != model.StructDecl {
		return nil
	}
	return t.Decl
}

// responseSample makes the response for one declared status, and checks it with
// openapi3filter.ValidateResponse: a sample the validator refuses is the harness's
// problem, reported as such.
func (r *specRun) responseSample(o *opRun, key string, status int) (driver.Response, error) {
	resp := driver.Response{Status: status, Header: map[string]string{}}
	ref := o.Kin.Responses.Value(key)
	if ref == nil || ref.Value == nil {
		return resp, nil
	}
	spec := ref.Value
	s := sampler{v31: r.Doc.IsOpenAPI31OrLater()}
	var err error
	if len(spec.Content) > 0 {
		mts := sortedKeys(spec.Content)
		mtName := mts[0]
		for _, k := range mts {
			if isJSON(k) {
				mtName = k
				break
			}
		}
		mt := spec.Content[mtName]
		var v any = "sample"
		if mt.Schema != nil || mt.Example != nil || len(mt.Examples) > 0 {
			v, err = s.sample(mt.Schema, mediaExamples(mt)...)
		}
		ct := mtName
		switch {
		case mtName == "*/*" || mtName == "application/*":
			// Any media type: JSON, the one a client most likely decodes.
			ct = "application/json"
			resp.Body = string(mustJSON(v))
		case isJSON(mtName):
			resp.Body = string(mustJSON(v))
		case strings.HasPrefix(mtName, "text/"):
			if str, ok := v.(string); ok {
				resp.Body = str
			} else {
				resp.Body = string(mustJSON(v))
			}
		default:
			resp.Body = "sample"
		}
		switch {
		case strings.HasSuffix(ct, "/*"):
			ct = strings.TrimSuffix(ct, "*") + "sample" // audio/* gives audio/sample
		}
		resp.Header["Content-Type"] = ct
	}
	for _, name := range sortedKeys(spec.Headers) {
		h := spec.Headers[name]
		if strings.EqualFold(name, "Content-Type") || h == nil || h.Value == nil || h.Value.Schema == nil {
			continue
		}
		v, herr := s.sample(h.Value.Schema, h.Value.Example)
		if herr != nil && err == nil {
			err = fmt.Errorf("header %s: %w", name, herr)
		}
		resp.Header[name] = headerText(v)
	}
	if err != nil {
		return resp, err
	}
	return resp, r.checkResponse(o, resp)
}

// headerText writes a sample as a header value in simple style.
func headerText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		parts := make([]string, len(x))
		for i, item := range x {
			parts[i] = headerText(item)
		}
		return strings.Join(parts, ",")
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return string(mustJSON(v))
}

// checkResponse validates a sample response as the operation's answer.
func (r *specRun) checkResponse(o *opRun, resp driver.Response) error {
	req, err := http.NewRequest(o.Op.Method, driver.BaseURL, nil)
	if err != nil {
		return err
	}
	header := http.Header{}
	for k, v := range resp.Header {
		header.Set(k, v)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req,
			Route:   &routers.Route{Spec: r.Doc, Path: o.Op.Path, PathItem: o.Item, Method: o.Op.Method, Operation: o.Kin},
			Options: validationOptions(r.Doc),
		},
		Status:  resp.Status,
		Header:  header,
		Options: validationOptions(r.Doc),
	}
	in.SetBodyBytes([]byte(resp.Body))
	err = openapi3filter.ValidateResponse(context.Background(), in)
	if err != nil && strings.Contains(err.Error(), "unsupported content type") {
		r.unchecked[resp.Header["Content-Type"]]++
		return nil
	}
	if err != nil {
		return fmt.Errorf("the validator refuses it: %s", oneLine(err.Error()))
	}
	return nil
}

// want says what the method must return for the response to key.
func (r *specRun) want(o *opRun, key string, status int, resp driver.Response) driver.Want {
	jsonBody := resp.Body != "" && resp.Body != "null" && isJSON(resp.Header["Content-Type"])
	typed := jsonBody && o.hasJSONSchema(key)
	if o.Op.Redirect && status >= 300 && status < 400 {
		// The method returns the redirect's Location; without one it is an error.
		if resp.Header["Location"] != "" {
			return driver.Want{OK: true, Value: true}
		}
		return driver.Want{}
	}
	if status >= 200 && status < 300 {
		w := driver.Want{OK: true}
		if o.Op.Result == nil {
			if typed {
				o.fail(fmt.Sprintf("status %s: the method returns no result for the declared JSON body", key))
			}
			return w
		}
		found := false
		for _, mr := range o.Op.Result.Responses {
			// With one result type (no Multi), the method decodes any 2xx into it.
			if o.Op.Result.Multi != nil && !strings.EqualFold(mr.Status, key) {
				continue
			}
			if o.Op.Result.Multi == nil && found {
				break
			}
			found = true
			w.Value = resp.Body != "" && !(mr.JSON && resp.Body == "null")
			if mr.Text && w.Value {
				w.Text = resp.Body
			}
			if o.Op.Result.Multi != nil && mr.Field != nil {
				w.Field = mr.Field.GoName
				if !w.Value {
					w.Field = ""
				}
			}
		}
		if !found && typed {
			o.fail(fmt.Sprintf("status %s: the method returns no result for the declared JSON body", key))
		}
		return w
	}
	w := driver.Want{}
	if !jsonBody {
		return w
	}
	var c *model.ErrorCase
	if o.Op.Errors != nil {
		c = pickError(o.Op.Errors, status)
	}
	if c == nil {
		if !typed {
			return w
		}
		o.fail(fmt.Sprintf("status %s: the client has no error model for the declared JSON body", key))
		return w
	}
	t := c.Type
	for t.Kind == model.KindPointer {
		t = t.Elem
	}
	if t.Kind == model.KindNamed {
		w.Model = t.Decl.GoName
		r.models[t.Decl.GoName] = true
	}
	return w
}

// hasJSONSchema reports whether the response to key declares a JSON media type with a
// schema: a body the client is expected to give a type.
func (o *opRun) hasJSONSchema(key string) bool {
	ref := o.Kin.Responses.Value(key)
	if ref == nil || ref.Value == nil {
		return false
	}
	for name, mt := range ref.Value.Content {
		if isJSON(name) && mt != nil && mt.Schema != nil {
			return true
		}
	}
	return false
}

// pickError returns the case the generated picker chooses for status: the exact
// status, else its class, else default.
func pickError(set *model.ErrorSet, status int) *model.ErrorCase {
	code := strconv.Itoa(status)
	for _, c := range set.Cases {
		if c.Status == code {
			return c
		}
	}
	for _, c := range set.Cases {
		if len(c.Status) == 3 && strings.EqualFold(c.Status[1:], "XX") && c.Status[0] == code[0] {
			return c
		}
	}
	for _, c := range set.Cases {
		if c.Status == "default" {
			return c
		}
	}
	return nil
}

func mustJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`null`)
	}
	return data
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
