package emit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dave/jennifer/jen"
	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/model"
	"github.com/retrygen/retrygen/runtime"
)

// maxPolicyUsers is how many methods a policy's doc names; more are counted.
const maxPolicyUsers = 8

// policy renders an operation's policy as a package-level literal:
//
//	var policyGetPet = runtime.Policy{
//		MaxAttempts:  4,
//		InitialDelay: 500 * time.Millisecond,
//		...
//	}
func (e *emitter) policy(op *model.Operation, users []string) *jen.Statement {
	p := op.Policy
	var d doc
	if len(users) > maxPolicyUsers {
		users = append(users[:maxPolicyUsers-1:maxPolicyUsers-1], fmt.Sprintf("%d other methods", len(users)-maxPolicyUsers+1))
	}
	d.para(op.PolicyVar + " is the retry policy of " + list(users) + ".")
	type kv struct {
		name  string
		value jen.Code
	}
	// Fields whose zero value is the runtime's default are left out when they hold it;
	// the others are always spelled, to be read.
	fields := []kv{
		{"MaxAttempts", jen.Lit(p.MaxAttempts)},
		{"InitialDelay", duration(p.InitialDelay)},
		{"MaxDelay", duration(p.MaxDelay)},
	}
	if p.Multiplier != runtime.DefaultMultiplier {
		fields = append(fields, kv{"Multiplier", jen.Lit(p.Multiplier)})
	}
	if p.Jitter != "" && p.Jitter != runtime.JitterFull {
		fields = append(fields, kv{"Jitter", jitter(p.Jitter)})
	}
	if !slices.Equal(p.StatusCodes, runtime.DefaultStatusCodes()) {
		fields = append(fields, kv{"StatusCodes", statusCodes(p.StatusCodes)})
	}
	fields = append(fields, kv{"ConnectionErrors", jen.Lit(p.ConnectionErrors)})
	if p.AttemptTimeout != 0 {
		fields = append(fields, kv{"AttemptTimeout", duration(p.AttemptTimeout)})
	}
	if p.MaxElapsed != 0 {
		fields = append(fields, kv{"MaxElapsed", duration(p.MaxElapsed)})
	}
	fields = append(fields,
		kv{"RetryAfter", jen.Lit(p.RetryAfter)},
		kv{"MaxRetryAfter", duration(p.MaxRetryAfter)},
	)
	if !p.ServerSignals {
		fields = append(fields, kv{"IgnoreServerSignals", jen.True()})
	}
	fields = append(fields, kv{"Idempotent", jen.Lit(p.Idempotent)})
	if p.IdempotencyKey != "" && !p.KeyInBody { // a key in the body is the method's to fill
		fields = append(fields, kv{"IdempotencyKey", jen.Lit(p.IdempotencyKey)})
	}
	values := make([]jen.Code, 0, len(fields)+1)
	for _, f := range fields {
		values = append(values, jen.Line().Id(f.name).Op(":").Add(f.value))
	}
	values = append(values, jen.Line())
	return d.code().Var().Id(op.PolicyVar).Op("=").Qual(runtimePath, "Policy").Values(values...)
}

// jitter renders j as the runtime's constant, runtime.JitterEqual; a value the runtime
// names no constant for as a conversion, runtime.Jitter("x"), which Policy.Validate
// refuses.
func jitter(j runtime.Jitter) jen.Code {
	switch j {
	case runtime.JitterFull:
		return jen.Qual(runtimePath, "JitterFull")
	case runtime.JitterEqual:
		return jen.Qual(runtimePath, "JitterEqual")
	case runtime.JitterDecorrelated:
		return jen.Qual(runtimePath, "JitterDecorrelated")
	case runtime.JitterNone:
		return jen.Qual(runtimePath, "JitterNone")
	}
	return jen.Qual(runtimePath, "Jitter").Call(jen.Lit(string(j)))
}

// statusCodes renders codes as []runtime.StatusCode{408, runtime.Class5XX}.
func statusCodes(codes []runtime.StatusCode) *jen.Statement {
	return jen.Index().Qual(runtimePath, "StatusCode").ValuesFunc(func(g *jen.Group) {
		for _, c := range codes {
			if c >= runtime.Class1XX && c <= runtime.Class5XX {
				g.Qual(runtimePath, "Class"+model.StatusText(c))
			} else {
				g.Lit(int(c))
			}
		}
	})
}

// duration renders d in the largest unit that divides it: 500 * time.Millisecond.
func duration(d time.Duration) jen.Code {
	if d == 0 {
		return jen.Lit(0)
	}
	units := []struct {
		d    time.Duration
		name string
	}{
		{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"},
		{time.Millisecond, "Millisecond"}, {time.Microsecond, "Microsecond"},
	}
	for _, u := range units {
		if d%u.d == 0 {
			if n := d / u.d; n != 1 {
				return jen.Op(strconv.FormatInt(int64(n), 10)).Op("*").Qual(timePath, u.name)
			}
			return jen.Qual(timePath, u.name)
		}
	}
	return jen.Op(strconv.FormatInt(int64(d), 10))
}

// reason is why the policy retries or not, as the end of a sentence.
func reason(p model.Policy) string {
	return strings.TrimSuffix(oneLine(p.Reason), ".") + "."
}

// list joins names as prose: "A", "A and B", "A, B and C".
func list(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// retrySummary is the method doc's account of its policy and why. An operation that is
// not retry-safe makes one attempt, repeated only when it did not reach the server, or
// when the server says to (X-Should-Retry: true) and the policy follows the server's word.
func retrySummary(p model.Policy) string {
	switch {
	case p.Retry:
		on := strings.Join(model.StatusTexts(p.StatusCodes), "/")
		if p.ConnectionErrors {
			if on != "" {
				on += " and "
			}
			on += "connection errors"
		}
		if on == "" {
			on = "nothing"
		}
		s := fmt.Sprintf("Retries: up to %d attempts on %s, backoff %v–%v", p.MaxAttempts, on, p.InitialDelay, p.MaxDelay)
		if j := oneLine(string(p.Jitter)); j != "" {
			s += ", " + j + " jitter"
		}
		return s + ", as " + reason(p)
	case p.MaxAttempts > 1:
		when := "the connection could not be opened"
		if p.ServerSignals {
			when += " or the server says so (X-Should-Retry: true)"
		}
		return fmt.Sprintf("Retries: one attempt, as %s It is repeated, up to %d attempts in all, only when %s.", why(p), p.MaxAttempts, when)
	}
	return "Retries: none (one attempt), as " + why(p)
}

// why is the reason of a policy that is not retried, without the ending that says which
// attempts are retried all the same, which retrySummary says in its own words.
func why(p model.Policy) string {
	r := strings.TrimSuffix(strings.TrimSuffix(p.Reason, policy.OnlyUnsentOrSignalled), policy.OnlyUnsent)
	p.Reason = r
	return reason(p)
}

// method renders one operation's method on Client: its doc, its signature, and a body
// that builds the request, sends it and returns what the answer holds.
func (e *emitter) method(op *model.Operation) *jen.Statement {
	d := methodDoc(op)
	args := signature(op)
	body := e.request(op)
	if op.Stream != nil && op.Stream.Only {
		return e.streamMethod(op, d, args, body)
	}
	body = append(body, e.exchange(op)...)
	return d.code().Func().Params(jen.Id("c").Op("*").Id("Client")).Id(op.GoName).
		Params(args...).Params(results(op)...).Block(body...)
}

// methodDoc is the doc of op's method: what it calls, the spec's text about the
// operation, its body, responses, typed errors and parameters, and how it is retried.
func methodDoc(op *model.Operation) doc {
	var d doc
	first := op.GoName + " calls " + oneLine(op.Method) + " " + oneLine(op.Path)
	if op.OperationID != "" {
		first += " (operationId " + oneLine(op.OperationID) + ")"
	}
	d.para(first + ".")
	d.para(sentence(op.Summary))
	if op.Description != op.Summary {
		d.para(op.Description)
	}
	if op.Body != nil && strings.TrimSpace(op.Body.Doc) != "" {
		d.para("Request body: " + op.Body.Doc)
	}
	for _, r := range op.ResponseDocs {
		d.para("Response " + r.Status + ": " + r.Doc)
	}
	d.para(typedErrors(op.Errors))
	if op.Deprecated {
		d.para("Deprecated: the API description marks this operation as deprecated.")
	}
	for _, p := range op.Params {
		if p.Argument() {
			note := p.LocalName + " is the " + p.In + " parameter " + strconv.Quote(oneLine(p.Name))
			if p.Deprecated {
				note += " (deprecated)"
			}
			d.para(sentence(note + ". " + strings.TrimSpace(p.Doc)))
		}
	}
	d.para(resultMedia(op.Result))
	if s := op.Stream; s != nil && s.Flag != nil && !s.Only {
		d.para("It leaves the body's " + strconv.Quote(oneLine(s.Flag.Name)) + " property out, whatever the caller set, so that the answer is JSON; " + s.GoName + " asks for the event stream.")
	}
	if op.Redirect {
		d.para("The operation answers with a redirect: the method does not follow it, and returns its Location, an http or https URL resolved against the request's URL, for the caller to fetch (no credential goes along); any other Location is an error (ErrNoLocation).")
	}
	d.line(retrySummary(op.Policy))
	return d
}

// typedErrors is the method doc's list of the error models errors.As reaches, by
// status, and when they do not cover every status, how to read the others; "" when the
// operation declares none.
func typedErrors(set *model.ErrorSet) string {
	if set == nil || len(set.Cases) == 0 {
		return ""
	}
	var cases []string
	all := false
	for _, c := range set.Cases {
		status := c.Status
		if status == "default" {
			status = "other statuses"
			all = true
		}
		cases = append(cases, status+": "+c.Type.String())
	}
	text := "Typed errors, for errors.As: " + strings.Join(cases, "; ") + "."
	if !all {
		text += " Another status (a 401, say) is a plain *APIError: its text carries the server's message, and its DecodeBody reads the body's JSON."
	}
	return text
}

// results renders the results of op's method: the result type, if any, and error.
func results(op *model.Operation) []jen.Code {
	if op.Result == nil {
		return []jen.Code{jen.Error()}
	}
	return []jen.Code{typ(op.Result.Type), jen.Error()}
}

// request renders the statements of op's method that build the request r from the
// method's arguments: the path, the query, header and cookie parameters, and the body.
func (e *emitter) request(op *model.Operation) []jen.Code {
	var body []jen.Code
	if op.ParamsType != "" {
		body = append(body, jen.If(jen.Id("params").Op("==").Nil()).Block(
			jen.Id("params").Op("=").New(jen.Id(op.ParamsType)),
		))
	}
	body = append(body, jen.Id("r").Op(":=").Qual(wirePath, "NewRequest").Call(jen.Lit(op.Method)))
	// For the client's observer and runtime.CallInfoFrom: which operation, on which template.
	body = append(body, jen.Id("r").Dot("Operation").Call(jen.Lit(op.OperationID), jen.Lit(op.Path)))
	body = append(body, e.requestHooks(op)...)
	for _, part := range op.PathParts {
		if part.Param == nil {
			body = append(body, jen.Id("r").Dot("Path").Call(jen.Lit(part.Literal)))
			continue
		}
		p := part.Param
		body = append(body, jen.Id("r").Dot("PathParam").Call(jen.Lit(p.Name), jen.Qual(wirePath, styleConst(p)), jen.Id(p.LocalName)))
	}
	for _, kv := range op.FixedQuery {
		body = append(body, jen.Id("r").Dot("SetQuery").Call(jen.Lit(kv[0]), jen.Lit(kv[1])))
	}
	for _, p := range op.Params {
		body = append(body, param(p)...)
	}
	if op.Stream != nil && op.Stream.Flag != nil {
		body = append(body, streamFlag(op))
	}
	if op.BodyKey != nil {
		body = append(body, bodyKey(op)...)
	}
	if op.Body != nil {
		body = append(body, e.body(op.Body))
	}
	if op.Redirect {
		body = append(body, jen.Id("r").Dot("StopAtRedirect").Call())
	}
	return body
}

// param renders the statements that put a query, header or cookie parameter on the
// request: an argument's from the argument, which must not be nil when its type can be,
// an optional one's from the params struct.
func param(p *model.Param) []jen.Code {
	var out []jen.Code
	v := jen.Id("params").Dot(p.GoName)
	if p.Argument() {
		v = jen.Id(p.LocalName)
		if p.Type.Nilable() {
			out = append(out, jen.Id("r").Dot("Require").Call(jen.Lit(p.In), jen.Lit(p.Name), jen.Id(p.LocalName)))
		}
	}
	switch {
	case p.IdempotencyKey:
		out = append(out, jen.Id("r").Dot("IdempotencyKey").Call(v))
	case p.In == "query":
		out = append(out, jen.Id("r").Dot("QueryParam").Call(jen.Lit(p.Name), jen.Qual(wirePath, styleConst(p)), v))
	case p.In == "header":
		out = append(out, jen.Id("r").Dot("HeaderParam").Call(jen.Lit(p.Name), jen.Qual(wirePath, styleConst(p)), v))
	case p.In == "cookie":
		out = append(out, jen.Id("r").Dot("CookieParam").Call(jen.Lit(p.Name), jen.Qual(wirePath, styleConst(p)), v))
	}
	return out
}

// exchange renders the statements of op's method that send r and return what the answer
// holds: the redirect's Location, or the error or the decoded result.
func (e *emitter) exchange(op *model.Operation) []jen.Code {
	accept := ""
	if op.Result != nil {
		accept = op.Result.Accept
	}
	// Fetch reads a body the method decodes within the attempt; Call leaves it to the
	// method, which hands it over unread or drains it.
	call := "Call"
	if op.ReadsBodyWhole() {
		call = "Fetch"
	}
	out := []jen.Code{jen.List(jen.Id("resp"), jen.Err()).Op(":=").Id("c").Dot("wire").Dot(call).Call(
		jen.Id("ctx"), jen.Id("r"), jen.Op("&").Id(op.PolicyVar), jen.Lit(accept), jen.Id("callOptions").Call(jen.Id("opts")),
	)}
	if op.Redirect {
		return append(out, jen.Return(jen.Qual(wirePath, "Location").Call(jen.Id("resp"), jen.Err(), picker(op.Errors))))
	}
	errValue := jen.Err()
	if op.Errors != nil {
		errValue = jen.Qual(wirePath, "DecodeError").Call(jen.Err(), picker(op.Errors))
	}
	fail := []jen.Code{errValue}
	if op.Result != nil {
		fail = []jen.Code{zero(op.Result.Type), errValue}
	}
	out = append(out, jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(fail...)))
	return append(out, decodeResult(op)...)
}

// signature renders the parameters of op's method: the context, the path parameters and
// the other required ones, the params struct, the body, the call options.
func signature(op *model.Operation) []jen.Code {
	args := []jen.Code{jen.Id("ctx").Qual(contextPath, "Context")}
	for _, p := range arguments(op) {
		args = append(args, jen.Id(p.LocalName).Add(typ(p.Type)))
	}
	if op.ParamsType != "" {
		args = append(args, jen.Id("params").Op("*").Id(op.ParamsType))
	}
	if op.Body != nil {
		args = append(args, jen.Id("body").Add(typ(op.Body.Type)))
	}
	return append(args, jen.Id("opts").Op("...").Id("CallOption"))
}

// arguments are the parameters of op that are arguments of its method, in order.
func arguments(op *model.Operation) []*model.Param {
	args := slices.Clone(op.PathParams)
	for _, p := range op.Params {
		if p.Argument() {
			args = append(args, p)
		}
	}
	return args
}

// passOn renders the arguments of a call that hands on the parameters signature
// declares, the call options last: ctx, petID, params, body, then opts, or what
// lastOpts gives instead.
func passOn(op *model.Operation, lastOpts jen.Code) []jen.Code {
	args := []jen.Code{jen.Id("ctx")}
	for _, p := range arguments(op) {
		args = append(args, jen.Id(p.LocalName))
	}
	if op.ParamsType != "" {
		args = append(args, jen.Id("params"))
	}
	if op.Body != nil {
		args = append(args, jen.Id("body"))
	}
	return append(args, lastOpts)
}

// sentence ends a one-line summary with a period, so that a doc comment does not read it
// as a heading.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.Contains(s, "\n") || strings.ContainsAny(s[len(s)-1:], ".!?:;") {
		return s
	}
	return s + "."
}

// body renders the statements that attach the request body.
func (e *emitter) body(b *model.Body) jen.Code {
	var stmts []jen.Code
	switch b.Encoding {
	case model.JSONBody:
		stmts = append(stmts, jen.Id("r").Dot("JSONBody").Call(jen.Lit(b.ContentType), jen.Id("body")))
	case model.FormBody:
		args := []jen.Code{jen.Lit(b.ContentType), jen.Id("body")}
		if len(b.FormStyles) == 0 {
			stmts = append(stmts, jen.Id("r").Dot("FormBody").Call(args...))
			break
		}
		for _, p := range b.FormStyles {
			args = append(args, jen.Qual(wirePath, "FormStyle").Values(jen.Dict{
				jen.Id("Name"): jen.Lit(p.Name), jen.Id("Style"): jen.Qual(wirePath, styleConst(p)),
			}))
		}
		stmts = append(stmts, jen.Id("r").Dot("StyledFormBody").Call(args...))
	case model.RawBody:
		// RawBody skips a nil reader itself.
		return jen.Id("r").Dot("RawBody").Call(jen.Lit(b.ContentType), jen.Id("body"))
	case model.MultipartBody:
		stmts = append(stmts, jen.Id("w").Op(":=").Qual(wirePath, "NewMultipart").Call())
		t := b.Type
		if t.Kind == model.KindPointer {
			t = t.Elem
		}
		isFile := func(t *model.Type) bool { return t.Kind == model.KindBuiltin && t.Builtin == model.File }
		for _, f := range t.Decl.Fields {
			v := jen.Id("body").Dot(f.GoName)
			switch {
			case f.ReadOnly || f.Additional:
			case isFile(f.Type) && f.Required:
				stmts = append(stmts, jen.Id("w").Dot("RequiredFile").Call(jen.Lit(f.Name), jen.Lit(f.ContentType), wireTwin("File", jen.Op("&").Add(v))))
			case isFile(f.Type):
				stmts = append(stmts, jen.Id("w").Dot("File").Call(jen.Lit(f.Name), jen.Lit(f.ContentType), wireTwin("File", jen.Op("&").Add(v))))
			case f.Type.Kind == model.KindPointer && isFile(f.Type.Elem):
				stmts = append(stmts, jen.Id("w").Dot("File").Call(jen.Lit(f.Name), jen.Lit(f.ContentType), wireTwin("File", v)))
			case f.Type.Kind == model.KindSlice && isFile(f.Type.Elem):
				stmts = append(stmts, jen.Id("w").Dot("Files").Call(jen.Lit(f.Name), jen.Lit(f.ContentType), jen.Qual(wirePath, "FilesOf").Call(v)))
			case f.ContentType != "":
				stmts = append(stmts, jen.Id("w").Dot("FieldAs").Call(jen.Lit(f.Name), jen.Lit(f.ContentType), v))
			default:
				stmts = append(stmts, jen.Id("w").Dot("Field").Call(jen.Lit(f.Name), v))
			}
		}
		stmts = append(stmts, jen.Id("r").Dot("MultipartBody").Call(jen.Id("w")))
	}
	if !b.Required && b.Type.Nilable() {
		return jen.If(jen.Id("body").Op("!=").Nil()).Block(stmts...)
	}
	out := jen.Null()
	for i, s := range stmts {
		if i > 0 {
			out.Line()
		}
		out.Add(s)
	}
	return out
}

// streamFlag renders the statement that sets the body's "stream" property: true in the
// method that returns the stream, absent (false when required) in the other. A body
// passed by pointer is copied first, so that the caller's value is left as it was.
//
//	body.Stream = Ptr(true)
//	if body != nil { body = wire.Copy(body); body.Stream = nil }
func streamFlag(op *model.Operation) jen.Code {
	f := op.Stream.Flag
	var v jen.Code
	switch on := op.Stream.Only; f.Type.Kind {
	case model.KindPointer:
		v = jen.Nil()
		if on {
			v = jen.Id("Ptr").Call(jen.True())
		}
	case model.KindNullable:
		v = typ(f.Type).Values()
		if on {
			v = jen.Id("Some").Call(jen.True())
		}
	default:
		v = jen.Lit(on)
	}
	set := jen.Id("body").Dot(f.GoName).Op("=").Add(v)
	if op.Body.Type.Kind != model.KindPointer {
		return set
	}
	return jen.If(jen.Id("body").Op("!=").Nil()).Block(
		jen.Id("body").Op("=").Qual(wirePath, "Copy").Call(jen.Id("body")),
		set,
	)
}

// bodyKey renders the statements that give the body its idempotency key, a property of
// it (op.BodyKey): the caller's, else a fresh one, the same on every attempt, as the body
// is encoded once and replayed. They work on a copy, so that a body the caller passes
// again gets a key of its own; a body left out is sent with the key alone.
//
//	if body == nil { body = new(CreatePaymentRequest) } else { body = wire.Copy(body) }
//	r.KeyInBody()
//	if body.IdempotencyKey == nil || *body.IdempotencyKey == "" {
//		body.IdempotencyKey = Ptr(wire.NewIdempotencyKey())
//	}
func bodyKey(op *model.Operation) []jen.Code {
	var out []jen.Code
	if t := op.Body.Type; t.Kind == model.KindPointer {
		out = append(out, jen.If(jen.Id("body").Op("==").Nil()).Block(
			jen.Id("body").Op("=").New(typ(t.Elem)),
		).Else().Block(
			jen.Id("body").Op("=").Qual(wirePath, "Copy").Call(jen.Id("body")),
		))
	}
	out = append(out, jen.Id("r").Dot("KeyInBody").Call())
	f := op.BodyKey
	field := jen.Id("body").Dot(f.GoName)
	fresh := func(t *model.Type) *jen.Statement {
		key := jen.Qual(wirePath, "NewIdempotencyKey").Call()
		if t.Kind == model.KindBuiltin {
			return key
		}
		return typ(t).Call(key) // a named string type
	}
	switch t := f.Type; t.Kind {
	case model.KindPointer:
		out = append(out, jen.If(field.Clone().Op("==").Nil().Op("||").Op("*").Add(field.Clone()).Op("==").Lit("")).Block(
			field.Clone().Op("=").Id("Ptr").Call(fresh(t.Elem)),
		))
	case model.KindNullable:
		out = append(out, jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Add(field.Clone()).Dot("Get").Call(), jen.Op("!").Id("ok").Op("||").Id("v").Op("==").Lit("")).Block(
			field.Clone().Op("=").Id("Some").Call(fresh(t.Elem)),
		))
	default:
		out = append(out, jen.If(field.Clone().Op("==").Lit("")).Block(field.Clone().Op("=").Add(fresh(t))))
	}
	return out
}

// declared returns the arguments that make wire.Expect and wire.DecodeDeclared check the
// status: the error-model picker and the declared 2xx statuses. It returns nil when any
// 2xx is declared: a 2XX class, or none at all (then the default response describes
// success).
func declared(op *model.Operation) []jen.Code {
	if len(op.SuccessStatuses) == 0 {
		return nil
	}
	out := []jen.Code{picker(op.Errors)}
	for _, st := range op.SuccessStatuses {
		n, err := strconv.Atoi(st)
		if err != nil {
			return nil // a class
		}
		out = append(out, jen.Lit(n))
	}
	return out
}

// decodeResult renders what follows a successful call: the typed result returned, or
// the response checked and closed when there is none.
func decodeResult(op *model.Operation) []jen.Code {
	check := declared(op)
	switch res := op.Result; {
	case res == nil && check != nil:
		return []jen.Code{jen.Return(jen.Qual(wirePath, "Expect").Call(append([]jen.Code{jen.Id("resp")}, check...)...))}
	case res == nil:
		return []jen.Code{jen.Return(jen.Qual(wirePath, "Discard").Call(jen.Id("resp")))}
	case res.Multi != nil:
		return multiResult(op)
	}
	return singleResult(op.Result, check)
}

// singleResult renders the decoding of a result that one response gives: text, a body
// handed over unread, or JSON into a value or a pointer. check is what declared returns.
func singleResult(res *model.Result, check []jen.Code) []jen.Code {
	var out []jen.Code
	r := res.Responses[0]
	// The other decoders check the status themselves.
	if !r.JSON || res.StrictJSON {
		out = expectDeclared(res, check)
	}
	switch {
	case r.Text:
		return append(out, decodeInto(res, jen.Var().Id("out").String(), decodeText(jen.Op("&").Id("out"), r.Media))...)
	case !r.JSON:
		return append(out, jen.Return(jen.Id("resp").Dot("Body"), jen.Nil()))
	case res.Type.Kind == model.KindPointer:
		return append(out, decodeInto(res, jen.Id("out").Op(":=").New(typ(res.Type.Elem)), decodeJSON(res, check, jen.Id("out")))...)
	}
	return append(out, decodeInto(res, jen.Var().Id("out").Add(typ(res.Type)), decodeJSON(res, check, jen.Op("&").Id("out")))...)
}

// decodeInto renders the statements that declare out, fill it with decode and return
// it, or the error:
//
//	var out Pet
//	if err := wire.DecodeJSON(resp, &out); err != nil { return nil, err }
//	return out, nil
func decodeInto(res *model.Result, declare, decode jen.Code) []jen.Code {
	return []jen.Code{
		declare,
		jen.If(jen.Err().Op(":=").Add(decode), jen.Err().Op("!=").Nil()).Block(jen.Return(zero(res.Type), jen.Err())),
		jen.Return(jen.Id("out"), jen.Nil()),
	}
}

// expectDeclared renders the test that makes a status other than the declared ones an
// error, for the decoders that do not check it themselves; nothing when check is nil.
func expectDeclared(res *model.Result, check []jen.Code) []jen.Code {
	if check == nil {
		return nil
	}
	statuses := jen.Null()
	for i, c := range check[1:] {
		if i > 0 {
			statuses.Op("&&")
		}
		statuses.Add(jen.Id("resp").Dot("StatusCode").Op("!=").Add(c))
	}
	return []jen.Code{jen.If(statuses).Block(jen.Return(zero(res.Type), jen.Qual(wirePath, "Undeclared").Call(jen.Id("resp"), check[0])))}
}

// jsonDecoder names the runtime/wire function that decodes res's JSON.
func jsonDecoder(res *model.Result) string {
	if res.StrictJSON {
		return "DecodeJSONStrict"
	}
	return "DecodeJSON"
}

// decodeJSON renders the call that decodes the JSON body into target; a lenient decoder
// checks the status too when check, what declared returns, is not nil.
func decodeJSON(res *model.Result, check []jen.Code, target jen.Code) *jen.Statement {
	if check != nil && !res.StrictJSON {
		return jen.Qual(wirePath, "DecodeDeclared").Call(append([]jen.Code{jen.Id("resp"), target}, check...)...)
	}
	return jen.Qual(wirePath, jsonDecoder(res)).Call(jen.Id("resp"), target)
}

// multiResult renders the decoding of a result with a field for each status: a switch
// on the status that fills the field of the response's.
func multiResult(op *model.Operation) []jen.Code {
	res := op.Result
	return []jen.Code{
		jen.Id("out").Op(":=").New(jen.Id(res.Multi.GoName)),
		jen.Switch().BlockFunc(func(g *jen.Group) {
			for _, r := range res.Responses {
				g.Case(statusCond(r.Status)).Block(jen.Err().Op("=").Add(readResponse(res, r)))
			}
			empty, other := contentless(op)
			if len(empty) > 0 {
				g.Case(empty...).Block(jen.Err().Op("=").Qual(wirePath, "Discard").Call(jen.Id("resp")))
			}
			g.Default().Block(other)
		}),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(zero(res.Type), jen.Err())),
		jen.Return(jen.Id("out"), jen.Nil()),
	}
}

// readResponse renders the call that reads r's body into its field of out.
func readResponse(res *model.Result, r *model.Response) jen.Code {
	target := jen.Op("&").Id("out").Dot(r.Field.GoName)
	switch {
	case r.JSON:
		return jen.Qual(wirePath, jsonDecoder(res)).Call(jen.Id("resp"), target)
	case r.Text:
		return decodeText(target, r.Media)
	}
	return jen.Qual(wirePath, "ReadBody").Call(jen.Id("resp"), target)
}

// contentless returns the conditions on the declared 2xx statuses that have no content,
// which succeed with no field set, and the default case of the switch: an undeclared
// status is an error, unless a class such as 2XX is declared, which discards the body.
func contentless(op *model.Operation) (empty []jen.Code, other jen.Code) {
	other = jen.Return(jen.Nil(), jen.Qual(wirePath, "Undeclared").Call(jen.Id("resp"), picker(op.Errors)))
	for _, st := range op.SuccessStatuses {
		if slices.ContainsFunc(op.Result.Responses, func(r *model.Response) bool { return r.Status == st }) {
			continue
		}
		if _, err := strconv.Atoi(st); err != nil {
			other = jen.Err().Op("=").Qual(wirePath, "Discard").Call(jen.Id("resp"))
			continue
		}
		empty = append(empty, statusCond(st))
	}
	return empty, other
}

// decodeText renders the call that reads a text body into target, a *string, taking the
// media types media: wire.DecodeText(resp, &out, "text/csv", "text/plain").
func decodeText(target jen.Code, media []string) *jen.Statement {
	args := []jen.Code{jen.Id("resp"), target}
	for _, m := range media {
		args = append(args, jen.Lit(m))
	}
	return jen.Qual(wirePath, "DecodeText").Call(args...)
}

// zero is the value a method returns with an error: "" for a text result, nil for the
// others (pointers, slices, maps, interfaces).
func zero(t *model.Type) jen.Code {
	if t.Kind == model.KindBuiltin && t.Builtin == model.String {
		return jen.Lit("")
	}
	return jen.Nil()
}

// resultMedia is the method doc's account of a result that is not decoded from JSON.
func resultMedia(res *model.Result) string {
	if res == nil || res.Multi != nil || len(res.Responses) == 0 {
		return ""
	}
	switch r := res.Responses[0]; {
	case r.Text:
		return "It returns the response body as text (" + oneLine(strings.Join(r.Media, ", ")) + "), read whole up to the client's WithMaxBodySize cap; a response of another Content-Type is an error that wraps ErrContentType. Text in a charset other than UTF-8 is returned as sent, not converted."
	case res.Streams():
		return "It returns the response body unread (" + oneLine(res.Accept) + "): the caller reads it and must close it."
	}
	return ""
}

// statusCond renders the test of resp.StatusCode against "201", "2XX" or "default".
func statusCond(status string) *jen.Statement {
	code := jen.Id("resp").Dot("StatusCode")
	return statusTest(code, status)
}

func statusTest(code *jen.Statement, status string) *jen.Statement {
	if n, err := strconv.Atoi(status); err == nil {
		return code.Op("==").Lit(n)
	}
	if len(status) == 3 && status[0] >= '1' && status[0] <= '5' {
		return code.Op("/").Lit(100).Op("==").Lit(int(status[0] - '0'))
	}
	return jen.True()
}

// picker is the error-model picker of set: nil when there is none, wire.Model[T] when
// every status has the model T, else the set's function.
func picker(set *model.ErrorSet) jen.Code {
	switch {
	case set == nil:
		return jen.Nil()
	case set.Only() != nil:
		return jen.Qual(wirePath, "Model").Types(typ(set.Only()))
	}
	return jen.Id(set.GoName)
}

// errorSet renders the function that picks an error model by status:
//
//	func errorsGetPet(status int) any {
//		switch {
//		case status == 404:
//			return new(NotFound)
//		case status/100 == 4:
//			return new(Problem)
//		}
//		return new(Problem) // default
//	}
func (e *emitter) errorSet(set *model.ErrorSet) *jen.Statement {
	var def *model.ErrorCase
	var cases []*model.ErrorCase
	for _, c := range set.Cases {
		if c.Status == "default" {
			def = c
		} else {
			cases = append(cases, c)
		}
	}
	var stmts []jen.Code
	if len(cases) > 0 {
		stmts = append(stmts, jen.Switch().BlockFunc(func(g *jen.Group) {
			for _, c := range cases {
				g.Case(statusTest(jen.Id("status"), c.Status)).Block(jen.Return(jen.New(typ(c.Type))))
			}
		}))
	}
	if def != nil {
		stmts = append(stmts, jen.Return(jen.New(typ(def.Type))))
	} else {
		stmts = append(stmts, jen.Return(jen.Nil()))
	}
	return docLine(set.GoName + " returns a new error model for a response status, nil when none is declared.").
		Func().Id(set.GoName).Params(jen.Id("status").Int()).Any().Block(stmts...)
}

// paramsStruct renders the struct that carries an operation's optional query, header and
// cookie parameters.
func (e *emitter) paramsStruct(op *model.Operation) *jen.Statement {
	var d doc
	d.para(op.ParamsType + " holds the optional query, header and cookie parameters of " + op.GoName + ".")
	return d.code().Type().Id(op.ParamsType).StructFunc(func(g *jen.Group) {
		g.Add(noCompareField())
		for _, p := range op.Params {
			if p.Argument() {
				continue
			}
			var fd doc
			note := p.GoName + " is the " + p.In + " parameter " + strconv.Quote(oneLine(p.Name))
			if p.Required {
				note += ", required"
			}
			if p.IdempotencyKey {
				note += "; when empty, a random key is sent"
			}
			fd.para(note + ".")
			fd.para(p.Doc)
			if p.Deprecated {
				fd.para("Deprecated: the API description marks this parameter as deprecated.")
			}
			g.Add(fd.code().Id(p.GoName).Add(typ(p.Type)))
		}
	})
}

// styleConst names the runtime/wire constant for a parameter's style and explode flag,
// e.g. "PathSimple" or "QueryFormNoExplode". A style the location does not define is
// written as the location's default style with the same explode flag, as the runtime
// always has; spaceDelimited and pipeDelimited with explode write what form does.
func styleConst(p *model.Param) string {
	switch p.In {
	case "path":
		switch {
		case p.Style == "json":
			return "PathJSON"
		case p.Style == "label" && p.Explode:
			return "PathLabelExplode"
		case p.Style == "label":
			return "PathLabel"
		case p.Style == "matrix" && p.Explode:
			return "PathMatrixExplode"
		case p.Style == "matrix":
			return "PathMatrix"
		case p.Explode:
			return "PathSimpleExplode"
		}
		return "PathSimple"
	case "query":
		switch {
		case p.Style == "json":
			return "QueryJSON"
		case p.Style == "deepObject":
			return "QueryDeepObject"
		case p.Explode:
			return "QueryForm"
		case p.Style == "spaceDelimited":
			return "QuerySpaceDelimited"
		case p.Style == "pipeDelimited":
			return "QueryPipeDelimited"
		}
		return "QueryFormNoExplode"
	case "header":
		switch {
		case p.Style == "json":
			return "HeaderJSON"
		case p.Explode:
			return "HeaderSimpleExplode"
		}
		return "HeaderSimple"
	case "cookie":
		switch {
		case p.Style == "json":
			return "CookieJSON"
		case p.Explode:
			return "CookieForm"
		}
		return "CookieFormNoExplode"
	}
	panic("internal error: parameter in " + p.In)
}
