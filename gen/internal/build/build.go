package build

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/gen/internal/policy"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// builder turns a loaded spec into the model. It decides every identifier: package-level
// names through one Namer (seeded with what the fixed client code declares), Client's
// methods through another, struct fields and method arguments per scope.
type builder struct {
	// emptyBodies are the GET, HEAD and DELETE operations whose request body was dropped
	// for having nothing to send, with where the body is declared (see requestBody).
	emptyBodies []emptyBody

	spec     *load.Spec
	reserved model.Reserved
	errs     source.ErrorList

	pkg     *names.Namer // package-level identifiers
	methods *names.Namer // methods of Client

	decls         []*model.Decl
	components    map[string]*model.Type           // by $ref, e.g. "#/components/schemas/Pet"
	bySchema      map[*openapi3.Schema]*model.Type // named types already built, by schema
	building      map[*openapi3.Schema]bool        // unnamed types being built (cycle guard)
	errorWrappers map[*openapi3.Schema]*model.Type // named types made for unnamed error models
	errorSets     map[string]*model.ErrorSet       // by their cases
	errorSetList  []*model.ErrorSet
	errorSetOps   []*model.Operation // the first operation of each of errorSetList, for its name

	claims         []*claim             // package-level names asked for, see resolveNames
	bases          map[*model.Decl]site // where each inline type was made, for the names inside it
	titles         map[*openapi3.Schema]titled
	byTitle        map[string]titleType        // the one type of the schemas of a title and content, by its key
	componentNames map[string]bool             // the Go names of the component schemas
	refIndex       map[*model.Decl]int         // see ref
	valueTitles    map[*model.EnumValue]string // the titles that name enum constants (constenum.go)
	refDecls       []*model.Decl

	fields    int                          // struct fields built so far, against MaxFields
	overgrown bool                         // MaxFields was passed: nothing more is built
	schemes   map[string]bool              // the security schemes that have options, by key
	refused   map[*openapi3.Parameter]bool // parameters already reported
}

// MaxFields caps the struct fields of one client. The largest public descriptions need
// about 30,000 (stripe.yaml: 28,000); a chain of allOf schemas, each of which copies its
// parents' properties, can ask for millions, and a client that no compiler would finish.
const MaxFields = 200_000

// maxFields is MaxFields, lowered by tests.
var maxFields = MaxFields

// grow counts n more fields for d, and reports whether they may be built: past
// MaxFields the spec is refused, located at the schema that crossed the limit.
func (b *builder) grow(n int, d *model.Decl) bool {
	return b.growAt(n, d.GoName, d.Pointer)
}

// growAt is grow for the fields of what, at pointer: a decl, or an operation's
// parameters or response headers (a struct each, or arguments).
func (b *builder) growAt(n int, what, pointer string) bool {
	if b.overgrown {
		return false
	}
	b.fields += n
	if b.fields <= maxFields {
		return true
	}
	b.overgrown = true
	pos := b.spec.Files.File()
	if pointer != "" {
		pos = b.spec.Files.PosOfPointer(pointer)
	}
	b.errs.Add(&source.Error{
		Pos:     pos,
		Pointer: pointer,
		Msg:     fmt.Sprintf("limit exceeded: the client would have more than %d struct fields (the count reaches %d at %s)", maxFields, b.fields, what),
		Fix:     "long allOf chains copy every parent's properties into each child, and a path item or response shared by $ref copies its parameters or headers into each operation: refer to the parent with $ref in a property, share fewer",
	})
	return false
}

// opPointer is the JSON pointer of op in the spec.
func opPointer(op *model.Operation) string {
	return "#/paths/" + source.EscapePointer(op.Path) + "/" + strings.ToLower(op.Method)
}

// Build turns a loaded spec into the model the emitter reads: every operation with its
// parameters, body, result and error models, and every named type, all names decided.
func Build(spec *load.Spec) (*model.API, error) {
	ops, err := Operations(spec)
	if err != nil {
		return nil, err
	}
	reserved := model.FixedNames()
	b := &builder{
		spec:          spec,
		reserved:      reserved,
		pkg:           names.NewNamer(slices.Concat(reserved.Package, reserved.Webhook, reserved.Imports, []string{"webhook"})...),
		methods:       names.NewExportedNamer(reserved.ClientMembers...),
		components:    map[string]*model.Type{},
		bySchema:      map[*openapi3.Schema]*model.Type{},
		building:      map[*openapi3.Schema]bool{},
		errorWrappers: map[*openapi3.Schema]*model.Type{},
		errorSets:     map[string]*model.ErrorSet{},
		bases:         map[*model.Decl]site{},
		byTitle:       map[string]titleType{},
		valueTitles:   map[*model.EnumValue]string{},
		refused:       map[*openapi3.Parameter]bool{},
	}
	doc := spec.Doc
	api := &model.API{Operations: ops}
	if doc.Info != nil {
		api.Title, api.Version, api.Description = doc.Info.Title, doc.Info.Version, doc.Info.Description
	}
	for _, s := range doc.Servers {
		if s != nil {
			api.Servers = append(api.Servers, model.Server{URL: s.URL, Description: s.Description})
		}
	}
	b.buildComponents()
	breakNamedCycles(b.decls)
	b.client(api)
	api.Endpoint = b.endpoint()
	// Every operation's method is named before any is built, so that a method an
	// operation adds (<Op>Text, <Op>Stream, a request content type's) never takes the
	// name of another operation's own method: adding a media type to one operation does
	// not rename, or re-point, another's.
	for _, op := range ops {
		b.nameOperation(op)
	}
	for _, op := range ops {
		b.operation(op)
	}
	b.warnEmptyBodies()
	b.webhooks(api, ops)
	b.resolveNames()
	for _, op := range ops {
		for _, v := range op.Variants {
			v.ParamsType = op.ParamsType // copied before the name was decided
		}
	}
	b.nameEnumValues()
	b.nameErrorSets()
	b.nameConstructors()
	b.nameTextConstructors()
	b.namePaging(ops)
	b.nameWebhooks(api.Webhooks)
	b.nameAccumulators(ops)
	b.policyVars(append(slices.Clip(ops), api.Endpoint.Idempotent, api.Endpoint.NotIdempotent))
	b.nameLocals(ops)
	b.fixDocs()
	breakCycles(b.decls)
	if err := b.errs.Err(); err != nil {
		return nil, err
	}
	api.Decls = b.decls
	api.ErrorSets = b.errorSetList
	if err := limitText(spec, api); err != nil {
		return nil, err
	}
	return api, nil
}

// nameConstructors names each union's New<Union> once every type has its name, so that
// a constructor never takes the name of a type. A union of more variants than a type set
// may hold (maxUnionTerms) has none: its variants are set as fields.
func (b *builder) nameConstructors() {
	for _, d := range b.decls {
		terms := 0
		for _, v := range d.Variants {
			if v.Type.Kind != model.KindBuiltin || v.Type.Builtin != model.Any {
				terms++
			}
		}
		if d.Kind != model.UnionDecl || terms == 0 || terms > maxUnionTerms {
			continue
		}
		d.Constructor = b.pkg.UniqueFor("New"+d.GoName, "constructor of "+d.GoName)
	}
}

// maxUnionTerms is the most terms Go's type checker takes in the type set of a type
// parameter, the constructor's: "cannot handle more than 100 union terms
// (implementation limitation)".
const maxUnionTerms = 100

// componentGoNames names the component schemas in Go, the description's own first: a
// component the loader made of a place in another file ("Pet-2") never takes the Go
// name of one the author wrote ("Pet2"). A component whose Go name is the fixed client
// code's ("File") or another's adds the word of its shape (FileObject); components that
// ask for one name are named in the order the description writes them, so that the one
// written first keeps it ("foo_bar", then "FooBar": FooBar and FooBarObject) and a
// component added after the others renames none of them.
func (b *builder) componentGoNames(keys []string) map[string]string {
	goNames := make(map[string]string, len(keys))
	b.componentNames = make(map[string]bool, len(keys))
	var own, hoisted []string
	cands := make(map[string][]string, len(keys))
	asked := map[string]int{}
	for _, key := range keys {
		if b.spec.Hoisted[schemaPointer(key)] {
			hoisted = append(hoisted, key)
			continue
		}
		own = append(own, key)
		cands[key] = []string{names.GoName(key)}
		if sr := b.spec.Doc.Components.Schemas[key]; sr != nil && sr.Value != nil && sr.Ref == "" {
			cands[key] = append(cands[key], cands[key][0]+shapeWord(kindOf(shapeOf(sr.Value))))
		}
		for _, c := range cands[key] {
			asked[c]++
		}
	}
	// The components that no other asks a name of take their first; the others follow.
	var order, contended []string
	for _, key := range own {
		if slices.ContainsFunc(cands[key], func(c string) bool { return asked[c] > 1 || b.pkg.Taken(c) }) {
			contended = append(contended, key)
		} else {
			order = append(order, key)
		}
	}
	for _, key := range append(order, b.inWrittenOrder(contended)...) {
		list := cands[key]
		i := slices.IndexFunc(list, func(c string) bool { return !b.pkg.Taken(c) })
		if i < 0 {
			i = len(list) - 1 // the number, last resort
		}
		goNames[key] = b.pkg.UniqueFor(list[i], "schema "+strconv.Quote(key))
		b.componentNames[goNames[key]] = true
	}
	for _, key := range hoisted {
		goNames[key] = b.pkg.UniqueFor(names.GoName(key), "schema "+strconv.Quote(key))
		b.componentNames[goNames[key]] = true
	}
	return goNames
}

// inWrittenOrder sorts the component schemas keys (sorted) by where the description
// writes them; keys whose places it does not tell apart stay in their order, after the
// others.
func (b *builder) inWrittenOrder(keys []string) []string {
	if len(keys) < 2 {
		return keys
	}
	pos := make(map[string]source.Pos, len(keys))
	for _, key := range keys {
		pos[key] = b.componentPos(key)
	}
	slices.SortStableFunc(keys, func(x, y string) int {
		p, q := pos[x], pos[y]
		if !p.IsValid() || !q.IsValid() {
			return cmp.Compare(boolInt(!p.IsValid()), boolInt(!q.IsValid()))
		}
		return cmp.Or(strings.Compare(p.File, q.File), cmp.Compare(p.Line, q.Line), cmp.Compare(p.Col, q.Col))
	})
	return keys
}

// boolInt is 1 for true, 0 for false.
func boolInt(v bool) int {
	if v {
		return 1
	}
	return 0
}

// componentPos is where the description writes the component schema key.
func (b *builder) componentPos(key string) source.Pos {
	return b.spec.Files.PosOfPointer(schemaPointer(key))
}

// schemaPointer is the JSON pointer of the component schema name.
func schemaPointer(name string) string { return "#/components/schemas/" + source.EscapePointer(name) }

// buildComponents declares every component schema first, sorted by name, so that they
// keep their own names and any schema can refer to any other; then builds them.
func (b *builder) buildComponents() {
	if b.spec.Doc.Components == nil {
		b.scanTitles()
		return
	}
	schemas := b.spec.Doc.Components.Schemas
	keys := source.SortedKeys(schemas)
	goNames := b.componentGoNames(keys)
	b.scanTitles()
	decls := make([]*model.Decl, len(keys))
	for i, name := range keys {
		sr := schemas[name]
		d := &model.Decl{GoName: goNames[name], Pointer: schemaPointer(name)}
		decls[i] = d
		b.decls = append(b.decls, d)
		b.components["#/components/schemas/"+name] = model.NamedType(d)
		if sr == nil || sr.Value == nil {
			d.Kind, d.Underlying = model.AliasDecl, model.BuiltinType(model.Any)
			continue
		}
		d.Doc, d.Deprecated = schemaDoc(sr.Value), sr.Value.Deprecated
		if sr.Ref != "" {
			d.Kind, d.Underlying = model.AliasDecl, model.BuiltinType(model.Any)
			continue
		}
		setKind(d, shapeOf(sr.Value))
		if _, ok := b.bySchema[sr.Value]; !ok {
			b.bySchema[sr.Value] = model.NamedType(d)
		}
	}
	// Aliases of other components first, so that their kinds are known to the rest.
	for i, name := range keys {
		if sr := schemas[name]; sr != nil && sr.Value != nil && sr.Ref != "" {
			if t, ok := b.components[sr.Ref]; ok {
				decls[i].Underlying = t
			}
		}
	}
	for i, name := range keys {
		sr := schemas[name]
		if sr == nil || sr.Value == nil {
			continue
		}
		d := decls[i]
		if sr.Ref != "" {
			if _, ok := b.components[sr.Ref]; !ok {
				d.Underlying = b.typeOf(sr, at("schema "+d.GoName, d.GoName))
			}
			continue
		}
		s := sr.Value
		sh := shapeOf(s)
		switch sh.kind {
		case shapeStruct, shapeEnum, shapeUnion:
			b.fill(d, s, sh)
		case shapeSlice:
			b.building[s] = true
			d.Underlying = model.SliceOf(b.elemType(s.Items, at(d.GoName, d.GoName).items()))
			delete(b.building, s)
		case shapeMap:
			b.building[s] = true
			d.Underlying = model.MapOf(b.elemType(s.AdditionalProperties.Schema, at(d.GoName, d.GoName).values("values of "+d.GoName)))
			delete(b.building, s)
		case shapeRef:
			b.building[s] = true
			t := b.typeOf(sh.ref, at("schema "+d.GoName, d.GoName, d.GoName+shapeWord(declKindOf(sh.ref)), d.GoName+combinerWord(s)))
			delete(b.building, s)
			if t.Kind == model.KindNamed && t.Decl == d {
				t = model.BuiltinType(model.Any)
			}
			d.Underlying = t
		}
	}
}

// nameOperation names op's method, from its operationId, else its method and path.
func (b *builder) nameOperation(op *model.Operation) {
	name := op.OperationID
	if name == "" {
		name = strings.ToLower(op.Method) + " " + op.Path
	}
	op.GoName = b.methods.UniqueFor(methodName(name), "operation "+source.OpName(op.Method, op.Path, op.OperationID))
}

// methodName is the Go name of an operation's method, from name, its operationId (or
// method and path). The words All and Pages end only the methods that walk pages
// (<Op>All, <Op>Pages): an operation whose name ends in one of them gets the word Call
// after it, so that "getIncidentsAll" (a POST that reports on all incidents) becomes
// GetIncidentsAllCall, which neither reads like the walk of a GetIncidents nor takes
// its name. The rule reads the operation's own name only, so adding or removing
// pagination renames nothing.
func methodName(name string) string {
	goName := names.GoName(name)
	if words := names.Words(goName); len(words) > 1 {
		if last := words[len(words)-1]; last == "All" || last == "Pages" {
			goName += "Call"
		}
	}
	return goName
}

// operation fills in everything about op besides what Spec.Operations decided, once
// nameOperation has named it.
func (b *builder) operation(op *model.Operation) {
	item := b.spec.Doc.Paths.Value(op.Path)
	kop := item.GetOperation(op.Method)
	b.params(op, item, kop)
	b.requestBody(op, kop)
	b.responses(op, kop)
	b.clientParts(op, item, kop)
	streamFlags(op)
	b.bodyKeys(op, kop)
	b.paging(op, item, kop)
}

// emptyBody is a request body dropped for having nothing to send.
type emptyBody struct {
	op     *model.Operation
	origin *openapi3.Origin
}

// isNothing reports a request body of a GET, HEAD or DELETE that can carry nothing: each
// of its media types has no schema, or an object schema with no properties, nothing
// combined into it and no additional properties (stripe.yaml declares one on 246 such
// operations). A method would take an argument that only ever sends {}.
func isNothing(method string, rb *openapi3.RequestBody) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodDelete:
	default:
		return false
	}
	for _, mt := range rb.Content {
		if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
			continue
		}
		s := mt.Schema.Value
		ap := s.AdditionalProperties
		if len(s.Properties) > 0 || len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) > 0 || s.Not != nil ||
			ap.Schema != nil || ap.Has != nil && *ap.Has || s.Type != nil && !s.Type.Is("object") {
			return false
		}
	}
	return true
}

// warnEmptyBodies says, once and located at the first, which request bodies were
// dropped for having nothing to send.
func (b *builder) warnEmptyBodies() {
	if len(b.emptyBodies) == 0 {
		return
	}
	first := b.emptyBodies[0]
	var some []string
	for _, e := range b.emptyBodies[:min(len(b.emptyBodies), 3)] {
		some = append(some, e.op.Method+" "+e.op.Path)
	}
	if n := len(b.emptyBodies) - len(some); n > 0 {
		some = append(some, fmt.Sprintf("and %d more", n))
	}
	w := b.located(first.op, first.origin, "a request body with no properties is dropped from %d GET, HEAD or DELETE operations (%s): their methods take no body argument",
		len(b.emptyBodies), strings.Join(some, ", "))
	w.Op = ""
	b.spec.Warnings.Add(w)
}

// policyVars names the policy variable of each method. A variable is named after where
// its policy comes from, and shared by the methods whose policy comes from the same place
// and is the same literal, so that adding or removing an operation renames no other's:
// policyGetPet for an operation's own x-retry, policyPathPetsIdempotent for a path
// item's, policyIdempotent (or policyNotIdempotent, policyKey<Header>) for the document's
// and the defaults.
func (b *builder) policyVars(ops []*model.Operation) {
	type group struct{ base, key string }
	groups := map[group][]*model.Operation{}
	for _, op := range ops {
		for _, m := range op.Methods() {
			g := group{policyVarBase(op.GoName, m), policyKey(m.Policy)}
			groups[g] = append(groups[g], m)
		}
	}
	all := slices.SortedFunc(maps.Keys(groups), func(a, b group) int {
		return cmp.Or(cmp.Compare(a.base, b.base), cmp.Compare(a.key, b.key))
	})
	for _, g := range all {
		name := b.pkg.Unique(g.base)
		for _, m := range groups[g] {
			m.PolicyVar = name
		}
	}
}

// policyKey is the literal of p, as a key: every field it sets, the statuses spelled as
// x-retry writes them ("5XX"), which decides the order of variables of the same base.
func policyKey(p model.Policy) string {
	return fmt.Sprint(p.MaxAttempts, p.InitialDelay, p.MaxDelay, p.Multiplier, p.Jitter, model.StatusTexts(p.StatusCodes),
		p.ConnectionErrors, p.AttemptTimeout, p.MaxElapsed, p.RetryAfter, p.MaxRetryAfter, p.ServerSignals,
		p.Idempotent, strconv.Quote(p.IdempotencyKey), p.KeyInBody)
}

// policyVarBase names the variable of the policy of m, a method of the operation named
// op, after the deepest level a value of it comes from: the operation, its path item,
// else what the document and the defaults make of the method.
func policyVarBase(op string, m *model.Operation) string {
	p := m.Policy
	kind := "NotIdempotent"
	switch {
	case p.IdempotencyKey != "":
		kind = "Key" + names.GoName(p.IdempotencyKey)
	case p.Idempotent:
		kind = "Idempotent"
	}
	switch deepestSource(p) {
	case model.FromOperation:
		return "policy" + op
	case model.FromPath:
		return "policyPath" + names.GoName(m.Path) + kind
	}
	return "policy" + kind
}

// deepestSource is the deepest level that set a value of p: FromOperation, FromPath,
// FromDocument or FromDefault.
func deepestSource(p model.Policy) model.Source {
	rank := map[model.Source]int{model.FromDefault: 0, model.FromDocument: 1, model.FromPath: 2, model.FromOperation: 3}
	deepest := model.FromDefault
	for _, s := range p.Sources {
		if rank[s] > rank[deepest] {
			deepest = s
		}
	}
	return deepest
}

// located returns an error about op placed at obj's origin.
func (b *builder) located(op *model.Operation, origin *openapi3.Origin, format string, args ...any) *source.Error {
	pos := b.spec.Files.PosOf(origin)
	if !pos.IsValid() {
		// Documents kin-openapi reads without origins: the operation, by its pointer.
		pos = b.spec.Files.PosOfPointer("#/paths/" + source.EscapePointer(op.Path) + "/" + strings.ToLower(op.Method))
	}
	return &source.Error{
		Pos: pos,
		Op:  source.OpName(op.Method, op.Path, op.OperationID),
		Msg: fmt.Sprintf(format, args...),
	}
}

// params builds the path template and the parameters: path parameters become method
// arguments, the others fields of the params struct.
func (b *builder) params(op *model.Operation, item *openapi3.PathItem, kop *openapi3.Operation) {
	pathParams := map[string]*model.Param{}
	params := mergedParams(item, kop)
	if !b.growAt(len(params), "the parameters of "+op.GoName, opPointer(op)) {
		return
	}
	for _, p := range params {
		if !b.sendableParam(op, p) {
			continue
		}
		mp := b.param(op, p)
		if p.In == openapi3.ParameterInPath {
			pathParams[p.Name] = mp
			continue
		}
		op.Params = append(op.Params, mp)
	}
	nameParamFields(op.Params)
	for _, p := range op.Params {
		if !p.Argument() {
			b.claimName(&op.ParamsType, "parameters of "+op.GoName, op.GoName+"Params", op.GoName+"Parameters")
			break
		}
	}
	// Query text in the path key ("?beta=true") is sent as fixed query parameters; a
	// fragment ("#update_shared_link", which tells apart operations on one path and
	// method) is never sent.
	path, query, _ := strings.Cut(requestPath(op.Path), "?")
	op.FixedQuery = fixedQuery(query)
	op.PathParts, op.PathParams = pathTemplate(path, pathParams)
}

// nameParamFields names the fields of the params struct of params: each after its
// parameter, and parameters of one name sent in different places after the place too
// (QueryID, HeaderID), else in different letter cases after the case (see caseWord).
func nameParamFields(params []*model.Param) {
	texts, spelled := make([]string, len(params)), make([]string, len(params))
	for i, p := range params {
		texts[i], spelled[i] = p.Name, p.GoName
	}
	if distinct(spelled) { // the common case: each has its own name
		return
	}
	cases := caseWords(texts, spelled)
	cands := make([][]string, len(params))
	owners := make([]string, len(params))
	for i, p := range params {
		cands[i] = []string{p.GoName, names.GoName(p.In) + p.GoName, p.GoName + cases[i], p.GoName}
		owners[i] = p.In + " parameter " + strconv.Quote(p.Name)
	}
	for i, name := range grant(names.NewExportedNamer(), cands, owners) {
		params[i].GoName = name
	}
}

// mergedParams lists the parameters of the path item, then the operation's, one per
// location and name: the operation's replaces the path item's in place.
func mergedParams(item *openapi3.PathItem, kop *openapi3.Operation) []*openapi3.Parameter {
	type key struct{ in, name string }
	var list []*openapi3.Parameter
	index := map[key]int{}
	for _, group := range []openapi3.Parameters{item.Parameters, kop.Parameters} {
		for _, pr := range group {
			if pr == nil || pr.Value == nil {
				continue
			}
			p := pr.Value
			k := key{p.In, p.Name}
			if i, ok := index[k]; ok {
				list[i] = p
				continue
			}
			index[k] = len(list)
			list = append(list, p)
		}
	}
	return list
}

// sendableParam reports whether p becomes a parameter of op's method: path, query,
// header and cookie parameters do, but for the Accept, Content-Type and Authorization
// headers OpenAPI ignores. A header or cookie name that could not be sent is an error of op.
func (b *builder) sendableParam(op *model.Operation, p *openapi3.Parameter) bool {
	switch p.In {
	case openapi3.ParameterInHeader:
		switch strings.ToLower(p.Name) {
		case "accept", "content-type", "authorization":
			return false
		}
		if !policy.ValidHeaderName(p.Name) {
			e := b.located(op, p.Origin, "header parameter name %q is not a valid HTTP field name (RFC 9110 token)", p.Name)
			e.Fix = "use letters, digits and !#$%&'*+-.^_`|~ only"
			b.errs.Add(e)
			return false
		}
	case openapi3.ParameterInCookie:
		if !policy.ValidHeaderName(p.Name) {
			b.errs.Add(b.located(op, p.Origin, "cookie parameter name %q is not a valid cookie name (RFC 6265 token)", p.Name))
			return false
		}
	case openapi3.ParameterInPath, openapi3.ParameterInQuery:
		if len(p.Name) > maxParamName {
			if !b.refused[p] { // once for a parameter operations share
				e := b.located(op, p.Origin, "%s parameter name %s is %d bytes long, more than %d", p.In, source.Quote(p.Name), len(p.Name), maxParamName)
				e.Fix = "name the parameter as the server reads it: a name that long is not one"
				b.errs.Add(e)
				b.refused[p] = true
			}
			return false
		}
	default:
		return false
	}
	return true
}

// maxParamName bounds the names of path and query parameters: each operation that uses
// a parameter writes its name, and builds names of its own from it. Names of 10,000
// characters still make a client (TestLongNames); header and cookie names stop at 256
// bytes (policy.ValidHeaderName).
const maxParamName = 16 << 10

// param builds the model of p, a parameter of op: its serialization, its documented
// default, and its type (a string for the idempotency-key header, a pointer when it is
// optional and has no nil of its own).
func (b *builder) param(op *model.Operation, p *openapi3.Parameter) *model.Param {
	mp := &model.Param{
		Name:       p.Name,
		In:         p.In,
		Doc:        p.Description,
		Deprecated: p.Deprecated,
		Required:   p.Required || p.In == openapi3.ParameterInPath,
	}
	sm, err := p.SerializationMethod()
	if err == nil {
		mp.Style, mp.Explode = sm.Style, sm.Explode
	}
	schema := p.Schema
	if schema == nil {
		for _, ct := range source.SortedKeys(p.Content) {
			if mt := p.Content[ct]; mt != nil {
				schema = mt.Schema
				mp.Style = "json"
				break
			}
		}
	}
	if schema != nil && schema.Value != nil && schema.Value.Default != nil {
		mp.Doc = strings.TrimSpace(mp.Doc + "\n\nDefault: " + docValue(schema.Value.Default) + ".")
	}
	// Candidates, which the naming pass keeps unless they collide: operators in the
	// name read as words ("DateSent<" → DateSentBefore, dateSentBefore).
	spelled := names.SpellOperators(p.Name, temporal(schema))
	mp.GoName, mp.LocalName = names.GoName(spelled), names.LowerName(spelled)
	t := b.typeOf(schema, at(p.In+" parameter "+strconv.Quote(p.Name)+" of "+op.GoName,
		nonEmpty([]string{join(shortOp(op.GoName), mp.GoName), join(op.GoName, mp.GoName), join(op.GoName, names.GoName(p.In)+mp.GoName)}, op.GoName+mp.GoName)...))
	if p.In == openapi3.ParameterInHeader && op.Policy.IdempotencyKey != "" && !op.Policy.KeyInBody && strings.EqualFold(p.Name, op.Policy.IdempotencyKey) {
		mp.IdempotencyKey = true
		t = model.BuiltinType(model.String)
	} else if !mp.Required && !t.Nilable() {
		t = model.PointerTo(t)
	}
	mp.Type = t
	return mp
}

// temporal reports a schema of a time or a date, whose comparison operators read as
// before and after.
func temporal(s *openapi3.SchemaRef) bool {
	if s == nil || s.Value == nil {
		return false
	}
	return s.Value.Format == "date-time" || s.Value.Format == "date"
}

// fixedQuery lists the parameters of query text, sorted by name.
func fixedQuery(query string) [][2]string {
	if query == "" {
		return nil
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return nil
	}
	var fixed [][2]string
	for _, k := range source.SortedKeys(vals) {
		for _, v := range vals[k] {
			fixed = append(fixed, [2]string{k, v})
		}
	}
	return fixed
}

// requestPath is the part of a path key a request sends: the key up to its fragment, if
// it has one, as in "/files/{file_id}#update_shared_link".
func requestPath(key string) string {
	path, _, _ := strings.Cut(key, "#")
	return path
}

// pathTemplate cuts path at its {parameters}: the literal parts escaped, each parameter
// the one declared by that name. It also lists the parameters in the order they first
// appear. A parameter not declared is sent as a string (kin-openapi's validation reports
// it).
func pathTemplate(path string, declared map[string]*model.Param) ([]model.PathPart, []*model.Param) {
	var parts []model.PathPart
	var params []*model.Param
	used := map[string]bool{}
	for path != "" {
		open := strings.IndexByte(path, '{')
		end := -1
		if open >= 0 {
			end = strings.IndexByte(path[open:], '}')
		}
		if open < 0 || end < 0 {
			parts = append(parts, model.PathPart{Literal: escapeLiteral(path)})
			break
		}
		end += open
		if open > 0 {
			parts = append(parts, model.PathPart{Literal: escapeLiteral(path[:open])})
		}
		name := path[open+1 : end]
		path = path[end+1:]
		mp, ok := declared[name]
		if !ok {
			mp = &model.Param{Name: name, In: openapi3.ParameterInPath, Required: true, Style: "simple", Type: model.BuiltinType(model.String)}
			declared[name] = mp
		}
		if !used[name] {
			used[name] = true
			params = append(params, mp)
		}
		parts = append(parts, model.PathPart{Param: mp})
	}
	return parts, params
}

// escapeLiteral percent-encodes literal path text as a URL path does.
func escapeLiteral(s string) string {
	return (&url.URL{Path: s}).EscapedPath()
}

// mediaWord names a kind of media type in a name: JSON, Form, Multipart or Raw.
func mediaWord(k mediaKind) string {
	switch k {
	case mediaJSON:
		return "JSON"
	case mediaForm:
		return "Form"
	case mediaMultipart:
		return "Multipart"
	}
	return "Raw"
}

// mediaKind sorts media types into the encodings the client writes and reads.
type mediaKind int

const (
	mediaJSON mediaKind = iota
	mediaForm
	mediaMultipart
	mediaOther
)

// IsJSONMedia reports whether bodies of media type ct are encoded and decoded as JSON.
func IsJSONMedia(ct string) bool { return classifyMedia(ct) == mediaJSON }

func classifyMedia(ct string) mediaKind {
	mt := mediaType(ct)
	switch {
	case mt == "application/json" || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "/json"):
		return mediaJSON
	case mt == "application/x-www-form-urlencoded":
		return mediaForm
	case mt == "multipart/form-data":
		return mediaMultipart
	}
	return mediaOther
}

// pickMedia chooses the media type to use from content: JSON first, then form, multipart,
// then anything else, ties broken by name. A media type that could not be sent as a header
// value (control characters) is an error of op.
func (b *builder) pickMedia(op *model.Operation, content openapi3.Content) (string, *openapi3.MediaType, mediaKind) {
	best, bestKind := "", mediaKind(-1)
	for _, ct := range source.SortedKeys(content) {
		if content[ct] == nil {
			continue
		}
		if !validHeaderValue(ct) {
			b.errs.Add(b.located(op, content[ct].Origin, "media type %q is not a valid header value", ct))
			continue
		}
		k := classifyMedia(ct)
		if bestKind < 0 || k < bestKind {
			best, bestKind = ct, k
		}
	}
	if bestKind < 0 {
		return "", nil, mediaOther
	}
	return best, content[best], bestKind
}

// validHeaderValue reports whether s can be sent as a header value: no control characters
// but tab (RFC 9110 §5.5).
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// sendableType is the Content-Type sent for a media type the spec may write with
// wildcards ("*/*", "image/*").
func sendableType(ct string) string {
	if strings.Contains(ct, "*") {
		return "application/octet-stream"
	}
	return ct
}

// requestBody builds the operation's body argument.
func (b *builder) requestBody(op *model.Operation, kop *openapi3.Operation) {
	if kop.RequestBody == nil || kop.RequestBody.Value == nil {
		return
	}
	rb := kop.RequestBody.Value
	if isNothing(op.Method, rb) {
		b.emptyBodies = append(b.emptyBodies, emptyBody{op, rb.Origin})
		return
	}
	ct, mt, kind := b.pickMedia(op, rb.Content)
	if mt == nil {
		return
	}
	at := at("request body of "+op.GoName, op.GoName+"Request", op.GoName+mediaWord(kind)+"Request")
	at.bases = []string{shortOp(op.GoName), op.GoName, op.GoName + "Request"}
	body := &model.Body{ContentType: sendableType(ct), Required: rb.Required, Doc: rb.Description}
	var t *model.Type
	switch kind {
	case mediaJSON, mediaForm:
		body.Encoding = model.JSONBody
		if kind == mediaForm {
			body.Encoding = model.FormBody
			for _, prop := range source.SortedKeys(mt.Encoding) {
				enc := mt.Encoding[prop]
				if enc != nil && (enc.Style != "" || enc.Explode != nil) {
					style := cmp.Or(enc.Style, "form")
					explode := style == "form"
					if enc.Explode != nil {
						explode = *enc.Explode
					}
					if style != "form" || !explode {
						body.FormStyles = append(body.FormStyles, &model.Param{Name: prop, In: "query", Style: style, Explode: explode})
					}
				}
			}
		}
		t = b.typeOf(mt.Schema, at)
	case mediaMultipart:
		body.Encoding = model.MultipartBody
		t = b.multipartType(mt.Schema, mt.Encoding, at)
		if t == nil {
			body.Encoding = model.RawBody
			t = model.BuiltinType(model.Reader)
		}
	default:
		body.Encoding = model.RawBody
		t = model.BuiltinType(model.Reader)
	}
	if !body.Required && !t.Nilable() {
		t = model.PointerTo(t)
	}
	body.Type = t
	op.Body = body
}

// multipartType builds the struct of a multipart body: one field per part, file parts as
// wire.File. It returns nil when the schema has no properties.
func (b *builder) multipartType(sr *openapi3.SchemaRef, encoding map[string]*openapi3.Encoding, at site) *model.Type {
	if sr == nil || sr.Value == nil {
		return nil
	}
	props, required := collectProperties(sr.Value)
	if len(props) == 0 {
		return nil
	}
	d := &model.Decl{
		Kind: model.StructDecl,
		Doc:  schemaDoc(sr.Value),
	}
	b.claimSite(d, at, "")
	b.bases[d] = at
	if d.Doc == "" {
		d.Doc = b.ref(d) + " is the " + at.where + ", written as multipart/form-data."
	}
	b.decls = append(b.decls, d)
	if encoding == nil {
		encoding = map[string]*openapi3.Encoding{}
	}
	b.structFields(d, props, required, nil, encoding)
	return model.NamedType(d)
}

// success is a 2xx response with content, as the method reads it.
type success struct {
	status string
	ct     string
	t      *model.Type // the type decoded, for JSON
	json   bool
	text   bool // read as a string
}

// readAs names how s is read, the same for successes a single result can hold: the
// type decoded, "text" or "raw".
func (s success) readAs() string {
	switch {
	case s.json:
		return typeKey(s.t)
	case s.text:
		return "text"
	}
	return "raw"
}

// responses builds the typed result from the 2xx responses and the error models from the
// others.
func (b *builder) responses(op *model.Operation, kop *openapi3.Operation) {
	if kop.Responses == nil {
		return
	}
	all := kop.Responses.Map()
	codes := source.SortedKeys(all)
	withContent := 0
	for _, code := range codes {
		if r := all[code]; strings.HasPrefix(code, "2") && r != nil && r.Value != nil && len(r.Value.Content) > 0 {
			withContent++
		}
	}
	text := textOnly(kop)
	var oks []success
	var cases []*model.ErrorCase
	for _, code := range codes {
		rr := all[code]
		if rr == nil || rr.Value == nil {
			continue
		}
		ct, mt, kind := b.pickMedia(op, rr.Value.Content)
		switch {
		case strings.HasPrefix(code, "2"):
			if desc := rr.Value.Description; desc != nil && strings.TrimSpace(*desc) != "" {
				op.ResponseDocs = append(op.ResponseDocs, model.ResponseDoc{Status: code, Doc: strings.TrimSpace(*desc)})
			}
			op.SuccessStatuses = append(op.SuccessStatuses, strings.ToUpper(code))
			if mt != nil {
				oks = append(oks, b.readSuccess(op, code, rr.Value.Content, text, withContent > 1))
			}
		case strings.HasPrefix(code, "3"), strings.HasPrefix(code, "4"), strings.HasPrefix(code, "5"), code == "default":
			if mt == nil || kind != mediaJSON && !rangeJSON(ct, mt) || mt.Schema == nil || mt.Schema.Value == nil {
				continue
			}
			if c := b.errorCase(op, code, rr, mt.Schema); c != nil {
				cases = append(cases, c)
			}
		}
	}
	b.errorSet(op, cases)
	b.result(op, codes, oks)
}

// readSuccess builds how op's method reads the 2xx response code with content: JSON decoded
// to a type named after the operation (and the status, when several 2xx responses have
// content), else text or raw bytes.
func (b *builder) readSuccess(op *model.Operation, code string, content openapi3.Content, text, several bool) success {
	ct, mt, body := successMedia(content)
	if body != bodyJSON {
		return success{status: code, ct: ct, text: text}
	}
	status := ""
	if several {
		status = statusWord(code)
	}
	at := at(code+" response of "+op.GoName, op.GoName+"Response"+status, op.GoName+mediaWord(mediaJSON)+"Response"+status)
	at.bases = []string{shortOp(op.GoName) + status, op.GoName + status, op.GoName + "Response" + status}
	return success{status: code, ct: ct, t: b.typeOf(mt.Schema, at), json: true}
}

// errorCase builds the error model of op's response code (3xx to 5xx or default) from its
// JSON schema, named after the response component it refers to, else after the operation
// and status. A free-form schema gives none: an interface type carries no Error method,
// and the body stays in the error.
func (b *builder) errorCase(op *model.Operation, code string, rr *openapi3.ResponseRef, schema *openapi3.SchemaRef) *model.ErrorCase {
	st := statusWord(code)
	at := at(code+" response of "+op.GoName, op.GoName+"Error"+st, op.GoName+mediaWord(mediaJSON)+"Error"+st)
	at.bases = []string{shortOp(op.GoName) + "Error" + st, op.GoName + "Error" + st}
	if name, ok := strings.CutPrefix(rr.Ref, "#/components/responses/"); ok {
		goName := names.GoName(source.UnescapePointer(name))
		at = site{names: []string{goName + "Response", goName + "ResponseBody"}, where: "response " + strconv.Quote(source.UnescapePointer(name))}
	}
	t := b.typeOf(schema, at)
	if isAny(t) {
		return nil
	}
	t = b.markErrorModel(t, schema.Value, at)
	status := code
	if code != "default" {
		status = strings.ToUpper(code)
	}
	return &model.ErrorCase{Status: status, Type: t}
}

// result sets op's Result: a URL for an operation whose only answers are redirects,
// nothing without a success with content, the one type every success reads, else a
// struct with a field per status.
func (b *builder) result(op *model.Operation, codes []string, oks []success) {
	if len(op.SuccessStatuses) == 0 && slices.ContainsFunc(codes, isRedirect) {
		op.Redirect = true
		op.Result = &model.Result{Type: model.BuiltinType(model.URL)}
		return
	}
	if len(oks) == 0 {
		return
	}
	distinct := map[string]bool{}
	var accept []string
	for _, ok := range oks {
		distinct[ok.readAs()] = true
		if !slices.Contains(accept, ok.ct) {
			accept = append(accept, ok.ct)
		}
	}
	res := &model.Result{Accept: strings.Join(accept, ", ")}
	if len(distinct) == 1 {
		singleResult(res, oks[0])
	} else {
		b.multiResult(op, res, oks)
	}
	op.Result = res
}

// singleResult fills res for successes that all read as first does: a pointer to the
// JSON type (unless it has a nil of its own), a string, or the body to read.
func singleResult(res *model.Result, first success) {
	r := &model.Response{Status: first.status, JSON: first.json, Text: first.text}
	switch {
	case first.json:
		r.Type = first.t
		res.Type = first.t
		if !first.t.Nilable() {
			res.Type = model.PointerTo(first.t)
		}
	case first.text:
		r.Type = model.BuiltinType(model.String)
		res.Type = r.Type
	default:
		r.Type = model.BuiltinType(model.ReadCloser)
		res.Type = r.Type
	}
	res.Responses = []*model.Response{r}
}

// multiResult fills res for successes read in different ways: a struct of op's
// responses, with a field per status, of which the one received is set.
func (b *builder) multiResult(op *model.Operation, res *model.Result, oks []success) {
	multi := &model.Decl{Kind: model.StructDecl}
	b.claimName(&multi.GoName, "responses of "+op.GoName, op.GoName+"Responses", op.GoName+"Results")
	multi.Doc = b.ref(multi) + " holds a response of " + op.GoName + ": the field of the status received is set."
	b.decls = append(b.decls, multi)
	fields := names.NewExportedNamer()
	for _, ok := range oks {
		t := model.BuiltinType(model.Bytes)
		switch {
		case ok.json:
			t = ok.t
			if !t.Nilable() {
				t = model.PointerTo(t)
			}
		case ok.text:
			t = model.BuiltinType(model.String)
		}
		f := &model.Field{GoName: fields.Unique("Status" + statusWord(ok.status)), Type: t}
		f.Doc = f.GoName + " is the " + ok.status + " response."
		multi.Fields = append(multi.Fields, f)
		res.Responses = append(res.Responses, &model.Response{Status: ok.status, Type: t, JSON: ok.json, Text: ok.text, Field: f})
	}
	res.Type = model.PointerTo(model.NamedType(multi))
	res.Multi = multi
}

// isRedirect reports a status that redirects: 301, 302, 303, 307, 308 or the class 3XX
// (300 Multiple Choices and 304 Not Modified point nowhere to follow).
func isRedirect(code string) bool {
	switch strings.ToUpper(code) {
	case "301", "302", "303", "307", "308", "3XX":
		return true
	}
	return false
}

// errorSet records op's error models, shared with every operation that has the same.
func (b *builder) errorSet(op *model.Operation, cases []*model.ErrorCase) {
	if len(cases) == 0 {
		return
	}
	rank := func(status string) int {
		switch {
		case status == "default":
			return 2
		case strings.HasSuffix(status, "XX"):
			return 1
		}
		return 0
	}
	slices.SortStableFunc(cases, func(a, b *model.ErrorCase) int {
		return cmp.Or(cmp.Compare(rank(a.Status), rank(b.Status)), cmp.Compare(a.Status, b.Status))
	})
	cases = model.SimplifyErrorCases(cases)
	// The key is the types themselves, not their names: names are decided later, and two
	// models may ask for the same one.
	var key strings.Builder
	for _, c := range cases {
		key.WriteString(c.Status + "=" + typeKey(c.Type) + ";")
	}
	if set, ok := b.errorSets[key.String()]; ok {
		op.Errors = set
		return
	}
	set := &model.ErrorSet{Cases: cases}
	b.errorSets[key.String()] = set
	b.errorSetList = append(b.errorSetList, set)
	b.errorSetOps = append(b.errorSetOps, op)
	op.Errors = set
}

// nameErrorSets names each error-model picker once the types have their names: after
// the one model it returns, so that a name shared by many operations says what it holds
// ("errorsProblem"), else after the first operation that uses it; pickers of one model
// for different statuses add them ("errorsProblemOn404Or409").
func (b *builder) nameErrorSets() {
	cands := make([][]string, len(b.errorSetList))
	owners := make([]string, len(b.errorSetList))
	for i, set := range b.errorSetList {
		name := "errors" + set.Cases[0].Type.String()
		statuses := make([]string, len(set.Cases))
		for j, c := range set.Cases {
			statuses[j] = statusWord(c.Status)
			if typeKey(c.Type) != typeKey(set.Cases[0].Type) {
				name = "errors" + b.errorSetOps[i].GoName
			}
		}
		cands[i] = []string{name, name + "On" + strings.Join(statuses, "Or")}
		owners[i] = "error models of " + b.errorSetOps[i].GoName
	}
	for i, name := range grant(b.pkg, cands, owners) {
		b.errorSetList[i].GoName = name
	}
}

// statusWord writes a response status for an identifier: "404", "4XX", "Default".
func statusWord(code string) string {
	if code == "default" {
		return "Default"
	}
	var w strings.Builder
	for _, r := range strings.ToUpper(code) {
		if r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' {
			w.WriteRune(r)
		}
	}
	return w.String()
}

// nameLocals names the parameter arguments of each method (path parameters, then the
// other required ones), clear of the fixed local
// names, the imports and every package-level unexported name a method body may use.
func (b *builder) nameLocals(ops []*model.Operation) {
	global := map[string]bool{}
	for _, n := range b.reserved.Package {
		global[n] = true
	}
	for _, n := range b.reserved.Imports {
		global[n] = true
	}
	for _, op := range ops {
		global[op.PolicyVar] = true
	}
	for _, set := range b.errorSetList {
		global[set.GoName] = true
	}
	for _, op := range ops {
		locals := names.NewNamer(b.reserved.Locals...)
		locals.Reserve(b.reserved.Imports...)
		args := slices.Clone(op.PathParams)
		for _, p := range op.Params {
			if p.Argument() {
				args = append(args, p)
			}
		}
		for _, p := range args {
			cand := p.LocalName // param's candidate
			if cand == "" {
				cand = names.LowerName(p.Name)
			}
			for global[cand] {
				cand += "Param"
			}
			cand = locals.Unique(cand)
			for global[cand] {
				cand = locals.Unique(cand + "Param")
			}
			p.LocalName = cand
		}
	}
}

// isAny reports whether t is any, or a named type that stands for it.
func isAny(t *model.Type) bool {
	for range 16 { // through aliases and defined types; a cycle is not followed far
		if t.Kind != model.KindNamed || t.Decl.Kind != model.AliasDecl && t.Decl.Kind != model.DefinedDecl || t.Decl.Underlying == nil {
			break
		}
		t = t.Decl.Underlying
	}
	return t.Kind == model.KindBuiltin && t.Builtin == model.Any
}
