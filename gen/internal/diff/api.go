package diff

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/retrygen/retrygen/gen/model"
)

// methods compares the Client methods, matched by Go name as a caller's code refers to
// them, with their arguments, results, parameter structs and error responses. An
// operation's further methods (<Op>Text, <Op>Form, <Op>Stream, and <Op>All and <Op>Pages
// for a paginated one) are methods of their own; its error responses are compared once,
// with its first method.
func (c *comparer) methods(old, new *model.API) {
	olds := map[string]goMethod{}
	for _, m := range allMethods(old) {
		olds[m.name] = m
	}
	news := map[string]bool{}
	for _, n := range allMethods(new) {
		news[n.name] = true
		o, ok := olds[n.name]
		if !ok {
			note := "not retried"
			if n.op.Policy.Retry {
				note = "retried"
			}
			if n.walk {
				note = "walks the pages of " + n.op.GoName
			}
			c.add(Change{Area: API, Level: Compatible, Operation: opName(n.op), Element: ElemMethod,
				Name: n.name, Change: Added, New: n.signature(), Note: note})
			continue
		}
		c.method(o, n)
	}
	for _, o := range allMethods(old) {
		if !news[o.name] {
			c.add(Change{Area: API, Level: Breaking, Operation: opName(o.op), Element: ElemMethod,
				Name: o.name, Change: Removed, Old: o.signature()})
		}
	}
	firsts := map[string]*model.Operation{}
	for _, o := range old.Operations {
		firsts[o.GoName] = o
	}
	for _, n := range new.Operations {
		if o := firsts[n.GoName]; o != nil {
			c.errors(opName(n), o.Errors, n.Errors)
		}
	}
}

// A goMethod is one method of the generated Client.
type goMethod struct {
	// op is the operation whose arguments the method takes.
	op *model.Operation
	// name is the method's Go name, result what it returns besides the error ("" when
	// nothing).
	name, result string
	// walk marks <Op>All and <Op>Pages, which take the arguments of op's own method and
	// leave their changes to it.
	walk bool
}

// allMethods are the methods of api's operations, each operation's first.
func allMethods(api *model.API) []goMethod {
	var out []goMethod
	add := func(op *model.Operation) { out = append(out, goMethod{op: op, name: op.GoName, result: result(op)}) }
	for _, op := range api.Operations {
		for _, m := range op.Methods() {
			add(m)
		}
		if sv := op.StreamVariant(); sv != nil {
			add(sv)
		}
		if pg := op.Pagination; pg != nil {
			out = append(out,
				goMethod{op: op, name: pg.AllName, result: "iter.Seq2[" + pg.Yield().String() + ", error]", walk: true},
				goMethod{op: op, name: pg.PagesName, result: "iter.Seq2[*" + pg.PageType + ", error]", walk: true})
		}
	}
	return out
}

// signature spells the method as Signature does.
func (m goMethod) signature() string {
	return m.name + "(" + strings.Join(arguments(m.op), ", ") + ") " + results(m.result)
}

// result spells what op's method returns besides the error, "" when nothing:
// "*Pet", "string", "*EventStream[ChatChunk]".
func result(op *model.Operation) string {
	switch {
	case op.Result != nil:
		return op.Result.Type.String()
	case op.Stream != nil && op.Stream.Only:
		return "*EventStream[" + op.Stream.Type.String() + "]"
	}
	return ""
}

// Signature spells an operation's method without the arguments every method has, ctx
// and opts, in full: "GetPet(ctx, petID string, params *GetPetParams, opts...) (*Pet, error)".
func Signature(op *model.Operation) string {
	return goMethod{op: op, name: op.GoName, result: result(op)}.signature()
}

// arguments spells the arguments of op's method: "ctx", "petID string", ..., "opts...".
func arguments(op *model.Operation) []string {
	args := []string{"ctx"}
	for _, p := range op.PathParams {
		args = append(args, p.LocalName+" "+p.Type.String())
	}
	if op.ParamsType != "" {
		args = append(args, "params *"+op.ParamsType)
	}
	if op.Body != nil {
		args = append(args, "body "+op.Body.Type.String())
	}
	return append(args, "opts...")
}

// results spells a method's results given what it returns besides the error.
func results(r string) string {
	if r == "" {
		return "error"
	}
	if strings.HasPrefix(r, "iter.") {
		return r // an iterator yields the errors
	}
	return "(" + r + ", error)"
}

// method compares two versions of one method.
func (c *comparer) method(om, nm goMethod) {
	o, n := om.op, nm.op
	name := opName(n)
	breaking := func(elem, what, change, old, new string) {
		c.add(Change{Area: API, Level: Breaking, Operation: name, Element: elem, Name: what,
			Change: change, Old: old, New: new})
	}
	if !om.walk && !nm.walk {
		c.arguments(o, n)
	}
	switch or, nr := om.result, nm.result; {
	case or == "" && nr != "":
		breaking(ElemResult, nm.name, Added, "", nr)
	case or != "" && nr == "":
		breaking(ElemResult, nm.name, Removed, or, "")
	case or != nr:
		breaking(ElemResult, nm.name, Modified, or, nr)
	}
	if !nm.walk && n.Deprecated && !o.Deprecated {
		c.add(Change{Area: API, Level: Compatible, Operation: name, Element: ElemMethod,
			Name: n.GoName, Change: Deprecated})
	}
}

// arguments compares the arguments of two versions of an operation's method.
func (c *comparer) arguments(o, n *model.Operation) {
	name := opName(n)
	breaking := func(elem, what, change, old, new string) {
		c.add(Change{Area: API, Level: Breaking, Operation: name, Element: elem, Name: what,
			Change: change, Old: old, New: new})
	}
	arg := func(a string) string { return n.GoName + "(" + a + ")" }
	c.pathParams(name, n.GoName, o.PathParams, n.PathParams)
	switch {
	case o.ParamsType == "" && n.ParamsType != "":
		breaking(ElemArgument, arg("params"), Added, "", "*"+n.ParamsType)
	case o.ParamsType != "" && n.ParamsType == "":
		breaking(ElemArgument, arg("params"), Removed, "*"+o.ParamsType, "")
	case o.ParamsType != n.ParamsType:
		breaking(ElemArgument, arg("params"), Modified, "*"+o.ParamsType, "*"+n.ParamsType)
	}
	if o.ParamsType != "" && n.ParamsType != "" && !c.paramsCompared[n.ParamsType] {
		if c.paramsCompared == nil {
			c.paramsCompared = map[string]bool{}
		}
		c.paramsCompared[n.ParamsType] = true
		c.params(name, n.ParamsType, o.Params, n.Params)
	}
	switch {
	case o.Body == nil && n.Body != nil:
		breaking(ElemArgument, arg("body"), Added, "", n.Body.Type.String())
	case o.Body != nil && n.Body == nil:
		breaking(ElemArgument, arg("body"), Removed, o.Body.Type.String(), "")
	case o.Body != nil:
		if ot, nt := o.Body.Type.String(), n.Body.Type.String(); ot != nt {
			breaking(ElemArgument, arg("body"), Modified, ot, nt)
		}
	}
}

// pathParams compares the path parameters of method m, arguments in path order:
// matched by wire name, so that the one inserted is the one reported.
func (c *comparer) pathParams(op, m string, old, new []*model.Param) {
	breaking := func(p *model.Param, change, old, new string) {
		c.add(Change{Area: API, Level: Breaking, Operation: op, Element: ElemArgument,
			Name: m + "(" + p.LocalName + ")", Change: change, Old: old, New: new})
	}
	olds := map[string]int{}
	for i, p := range old {
		olds[p.Name] = i
	}
	news := map[string]bool{}
	moved := false
	for i, n := range new {
		news[n.Name] = true
		j, ok := olds[n.Name]
		if !ok {
			breaking(n, Added, "", n.Type.String())
			continue
		}
		if ot, nt := old[j].Type.String(), n.Type.String(); ot != nt {
			breaking(n, Modified, ot, nt)
		}
		moved = moved || i != j
	}
	for _, o := range old {
		if !news[o.Name] {
			breaking(o, Removed, o.Type.String(), "")
		}
	}
	if moved && len(old) == len(new) {
		// The same parameters in another order: every call compiles the same or not at
		// all, and may now pass its values to the wrong parameters.
		locals := func(ps []*model.Param) string {
			var s []string
			for _, p := range ps {
				s = append(s, p.LocalName)
			}
			return strings.Join(s, ", ")
		}
		c.add(Change{Area: API, Level: Breaking, Operation: op, Element: ElemArgument, Name: m,
			Change: Modified, Old: locals(old), New: locals(new), Note: "path parameters in another order"})
	}
}

// params compares the fields of an operation's params struct, called typ in the new API.
func (c *comparer) params(op, typ string, old, new []*model.Param) {
	olds := map[string]*model.Param{}
	for _, p := range old {
		olds[p.GoName] = p
	}
	news := map[string]bool{}
	describe := func(p *model.Param) string {
		req := "optional"
		if p.Required {
			req = "required"
		}
		return fmt.Sprintf("%s %s parameter %q", req, p.In, p.Name)
	}
	for _, n := range new {
		news[n.GoName] = true
		name := typ + "." + n.GoName
		o := olds[n.GoName]
		if o == nil {
			c.add(Change{Area: API, Level: Compatible, Operation: op, Element: ElemParameter,
				Name: name, Change: Added, New: n.Type.String(), Note: describe(n)})
			continue
		}
		c.member(op, ElemParameter, name, o.Type, n.Type, o.Required, n.Required, o.Deprecated, n.Deprecated)
	}
	for _, o := range old {
		if !news[o.GoName] {
			c.add(Change{Area: API, Level: Breaking, Operation: op, Element: ElemParameter,
				Name: typ + "." + o.GoName, Change: Removed, Old: o.Type.String(), Note: describe(o)})
		}
	}
}

// member compares a struct field or a parameter present in both versions.
func (c *comparer) member(op, elem, name string, ot, nt *model.Type, oreq, nreq, odep, ndep bool) {
	req := func(r bool) string {
		if r {
			return "required"
		}
		return "optional"
	}
	switch {
	case ot.String() != nt.String():
		ch := Change{Area: API, Level: Breaking, Operation: op, Element: elem, Name: name,
			Change: Modified, Old: ot.String(), New: nt.String()}
		if oreq != nreq {
			ch.Note = "now " + req(nreq)
		}
		c.add(ch)
	case oreq != nreq:
		c.add(Change{Area: API, Level: Compatible, Operation: op, Element: elem, Name: name,
			Change: Modified, Old: req(oreq), New: req(nreq), Note: "same Go type " + nt.String()})
	}
	if ndep && !odep {
		c.add(Change{Area: API, Level: Compatible, Operation: op, Element: elem, Name: name, Change: Deprecated})
	}
}

// errors compares the error models an operation decodes non-2xx responses into. They
// are not part of any signature: a caller's errors.As may stop or start matching.
func (c *comparer) errors(op string, old, new *model.ErrorSet) {
	cases := func(s *model.ErrorSet) map[string]string {
		m := map[string]string{}
		if s != nil {
			for _, ec := range s.Cases {
				m[ec.Status] = ec.Type.String()
			}
		}
		return m
	}
	olds, news := cases(old), cases(new)
	add := func(status, change, o, n string) {
		c.add(Change{Area: API, Level: Compatible, Operation: op, Element: ElemError, Name: status,
			Change: change, Old: o, New: n})
	}
	if new != nil {
		for _, ec := range new.Cases {
			o, ok := olds[ec.Status]
			switch n := ec.Type.String(); {
			case !ok:
				add(ec.Status, Added, "", n)
			case o != n:
				add(ec.Status, Modified, o, n)
			}
		}
	}
	if old != nil {
		for _, ec := range old.Cases {
			if _, ok := news[ec.Status]; !ok {
				add(ec.Status, Removed, ec.Type.String(), "")
			}
		}
	}
}

// decls compares the named types, matched by Go name: the spec's and the structs of
// one page of a paginated operation. A type that is gone and one that is new with the
// same content (see renames) are one type renamed.
func (c *comparer) decls(old, new *model.API) {
	oldDecls, newDecls := withPages(old), withPages(new)
	olds := map[string]*model.Decl{}
	for _, d := range oldDecls {
		olds[d.GoName] = d
	}
	newNames := map[string]bool{}
	for _, n := range newDecls {
		newNames[n.GoName] = true
	}
	renamed := renames(oldDecls, newDecls, olds, newNames)
	news := map[string]bool{}
	for _, n := range newDecls {
		news[n.GoName] = true
		if was, ok := renamed[n.GoName]; ok {
			c.add(Change{Area: API, Level: Breaking, Element: ElemType, Name: n.GoName,
				Change: Renamed, Old: was, New: n.GoName})
			continue
		}
		o := olds[n.GoName]
		if o == nil {
			c.add(Change{Area: API, Level: Compatible, Element: ElemType, Name: n.GoName,
				Change: Added, New: kind(n)})
			continue
		}
		c.decl(o, n)
	}
	was := map[string]bool{}
	for _, o := range renamed {
		was[o] = true
	}
	for _, o := range oldDecls {
		if !news[o.GoName] && !was[o.GoName] {
			c.add(Change{Area: API, Level: Breaking, Element: ElemType, Name: o.GoName,
				Change: Removed, Old: kind(o)})
		}
	}
}

// renames pairs the types of old that new lacks (gone) with the types of new that old
// lacks (fresh) that have the same content: kind, fields, values and variants, where a
// reference to a type of either side that the other side lacks reads as the content of
// that type, so that types renamed together, those that refer to themselves or to each
// other in a cycle included, are found. It returns the old name of each renamed type, by
// its new name. Types whose content several share are left as removed and added: which
// became which is not known.
//
// The content is compared as a DFA is minimised: every gone and fresh type starts in the
// class of its content with those references blanked out, and the classes are split
// (Hopcroft's refinement, O(m log n) for m references among n types) until the types of
// a class refer, at each place, to types of one class. Two types end in one class when
// unfolding their references gives the same tree. A class of one gone and one fresh type
// is a rename.
func renames(oldDecls, newDecls []*model.Decl, olds map[string]*model.Decl, newNames map[string]bool) map[string]string {
	nodes, nGone := unmatched(oldDecls, newDecls, olds, newNames)
	if nGone == 0 || nGone == len(nodes) {
		return nil
	}
	first, n, preds := contentClasses(nodes, nGone)
	p := newPartition(first, n)
	p.refine(preds)
	renamed := map[string]string{} // new name → old name
	for c := range p.classes() {
		if m := p.members(c); len(m) == 2 {
			g, f := min(m[0], m[1]), max(m[0], m[1])
			if g < nGone && f >= nGone {
				renamed[nodes[f].GoName] = nodes[g].GoName
			}
		}
	}
	return renamed
}

// unmatched lists the types of old that new lacks, then those of new that old lacks;
// nGone is how many of old's there are.
func unmatched(oldDecls, newDecls []*model.Decl, olds map[string]*model.Decl, newNames map[string]bool) (nodes []*model.Decl, nGone int) {
	for _, o := range oldDecls {
		if !newNames[o.GoName] {
			nodes = append(nodes, o)
		}
	}
	nGone = len(nodes)
	for _, n := range newDecls {
		if olds[n.GoName] == nil {
			nodes = append(nodes, n)
		}
	}
	return nodes, nGone
}

// place is where a type refers to another: the referring node, and the reference's
// position among its references to nodes.
type place struct{ from, at int }

// contentClasses puts each of nodes (the gone ones, the first nGone, then the fresh
// ones) in the class of its content with its references to nodes of its side blanked
// out: node i is in class first[i] of n. preds[j] are the places that refer to node j.
func contentClasses(nodes []*model.Decl, nGone int) (first []int, n int, preds [][]place) {
	side := [2]map[string]int{{}, {}} // by side (0 old, 1 new): the node of a name
	for i, d := range nodes {
		side[min(i/nGone, 1)][d.GoName] = i
	}
	preds = make([][]place, len(nodes))
	first = make([]int, len(nodes))
	keys := map[string]int{}
	for i, d := range nodes {
		names, at := side[min(i/nGone, 1)], 0
		key := contentKey(d, func(name string) string {
			if j, ok := names[name]; ok {
				preds[j] = append(preds[j], place{i, at})
				at++
				return "#"
			}
			return name
		})
		c, ok := keys[key]
		if !ok {
			c = len(keys)
			keys[key] = c
		}
		first[i] = c
	}
	return first, len(keys), preds
}

// refine splits the classes of p until the nodes of each class refer, at each place, to
// nodes of one class; preds[j] are the places that refer to node j. A splitter S splits
// each class whose nodes differ in the places that refer into S. Once a class is split,
// all its parts but the largest are splitters (all of them when it is a splitter still):
// splitting by the others and by the class splits by the largest too.
func (p *partition) refine(preds [][]place) {
	work := make([]int, p.classes())
	inWork := make([]bool, p.classes())
	for c := range work {
		work[c], inWork[c] = c, true
	}
	places := make([][]int, len(preds)) // of the nodes referring into S, the places that do
	for len(work) > 0 {
		s := work[len(work)-1]
		work, inWork[s] = work[:len(work)-1], false
		for _, split := range p.referrers(s, preds, places) {
			parts := p.splitBy(split)
			if len(parts) == 1 {
				continue
			}
			inWork = append(inWork, make([]bool, len(parts)-1)...)
			largest := split.class
			if inWork[largest] {
				largest = -1
			} else {
				for _, d := range parts {
					if p.size(d) > p.size(largest) {
						largest = d
					}
				}
			}
			for _, d := range parts {
				if d != largest && !inWork[d] {
					work, inWork[d] = append(work, d), true
				}
			}
		}
	}
}

// referring are the nodes of one class that refer into a splitter, grouped by the
// places at which they do.
type referring struct {
	class  int
	groups [][]int
}

// referrers groups the nodes that refer into class s by their class, in the order the
// classes are met, then by the places at which they refer into s. places is scratch
// space, one entry per node, left empty.
func (p *partition) referrers(s int, preds [][]place, places [][]int) []referring {
	var touched []int
	for _, j := range p.members(s) {
		for _, r := range preds[j] {
			if places[r.from] == nil {
				touched = append(touched, r.from)
			}
			places[r.from] = append(places[r.from], r.at)
		}
	}
	var out []referring
	index := map[int]int{}     // class → its entry in out
	keys := map[int][]string{} // class → the key of each of its groups
	for _, i := range touched {
		slices.Sort(places[i])
		key := fmt.Sprint(places[i])
		places[i] = nil
		c := p.class[i]
		e, seen := index[c]
		if !seen {
			e = len(out)
			index[c] = e
			out = append(out, referring{class: c})
		}
		k := slices.Index(keys[c], key)
		if k < 0 {
			k = len(keys[c])
			keys[c] = append(keys[c], key)
			out[e].groups = append(out[e].groups, nil)
		}
		out[e].groups[k] = append(out[e].groups[k], i)
	}
	return out
}

// splitBy moves each group of r to a class of its own, but for the last when the groups
// hold the whole class, which stays in it; it returns the class and the new ones.
func (p *partition) splitBy(r referring) []int {
	gs := r.groups
	inC := 0
	for _, g := range gs {
		inC += len(g)
	}
	if inC == p.size(r.class) {
		gs = gs[:len(gs)-1] // the last group stays in the class
	}
	parts := []int{r.class}
	for _, g := range gs {
		parts = append(parts, p.split(r.class, g))
	}
	return parts
}

// partition is a partition of the nodes 0..n-1 into classes, each a run of elems, so that
// moving nodes to a class of their own costs as many steps as nodes moved.
type partition struct {
	elems      []int // the nodes, class by class
	pos        []int // of each node in elems
	class      []int // of each node
	start, end []int // of each class's run in elems
}

// newPartition makes the partition of nodes into n classes, node i in first[i].
func newPartition(first []int, n int) *partition {
	p := &partition{pos: make([]int, len(first)), class: slices.Clone(first),
		start: make([]int, n), end: make([]int, n)}
	for _, c := range first {
		p.end[c]++
	}
	for c := 1; c < n; c++ {
		p.end[c] += p.end[c-1]
	}
	copy(p.start, p.end)
	p.elems = make([]int, len(first))
	for i := len(first) - 1; i >= 0; i-- {
		c := first[i]
		p.start[c]--
		p.elems[p.start[c]], p.pos[i] = i, p.start[c]
	}
	return p
}

func (p *partition) classes() int        { return len(p.start) }
func (p *partition) size(c int) int      { return p.end[c] - p.start[c] }
func (p *partition) members(c int) []int { return p.elems[p.start[c]:p.end[c]] }

// split moves nodes, some of the members of class c, to a new class, which it returns.
func (p *partition) split(c int, nodes []int) int {
	d := len(p.start)
	p.end = append(p.end, p.end[c])
	for _, i := range nodes {
		last := p.end[c] - 1
		j := p.elems[last]
		p.elems[p.pos[i]], p.elems[last] = j, i
		p.pos[j], p.pos[i] = p.pos[i], last
		p.class[i] = d
		p.end[c]--
	}
	p.start = append(p.start, p.end[c])
	return d
}

// identifier matches the names in a type's text.
var identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// contentKey writes what d holds, besides its name and doc, with each name of a type in
// it written as name gives it (called in the order the names come).
func contentKey(d *model.Decl, name func(string) string) string {
	typ := func(t *model.Type) string {
		if t == nil {
			return ""
		}
		return identifier.ReplaceAllStringFunc(t.String(), name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s %s|", d.Kind, typ(d.Underlying), d.Discriminator)
	for _, f := range d.Fields {
		fmt.Fprintf(&b, "%s %s %s %t;", f.GoName, f.Name, typ(f.Type), f.Required)
	}
	b.WriteString("|")
	for _, v := range d.Values {
		fmt.Fprintf(&b, "%#v;", v.Value)
	}
	b.WriteString("|")
	for _, v := range d.Variants {
		goName := v.GoName
		if v.Type != nil && strings.TrimPrefix(v.Type.String(), "*") == goName {
			goName = "=" // named after its type, and renamed with it
		}
		fmt.Fprintf(&b, "%s %s;", goName, typ(v.Type))
	}
	return b.String()
}

// withPages is api's declarations followed by the page struct of each paginated
// operation, with the fields the generated one has: Items, Response when the items are
// inside the result, Info and Next.
func withPages(api *model.API) []*model.Decl {
	decls := slices.Clone(api.Decls)
	for _, op := range api.Operations {
		pg := op.Pagination
		if pg == nil {
			continue
		}
		d := &model.Decl{Kind: model.StructDecl, GoName: pg.PageType}
		field := func(name string, t *model.Type) {
			d.Fields = append(d.Fields, &model.Field{GoName: name, Type: t, Required: true})
		}
		field("Items", model.SliceOf(pg.Item))
		if len(pg.Items) > 0 && op.Result != nil {
			field("Response", op.Result.Type)
		}
		field("Info", model.BuiltinType("ResponseInfo"))
		field("Next", model.BuiltinType(model.String))
		decls = append(decls, d)
	}
	return decls
}

// kind describes what a declaration is: "struct", "enum of string", "[]Pet",
// "alias of Pet", "union on \"petType\"" or "union of raw JSON".
func kind(d *model.Decl) string {
	switch d.Kind {
	case model.StructDecl:
		return "struct"
	case model.EnumDecl:
		return "enum of " + d.Underlying.String()
	case model.DefinedDecl:
		return d.Underlying.String()
	case model.AliasDecl:
		return "alias of " + d.Underlying.String()
	case model.UnionDecl:
		if d.Discriminator != "" {
			return "union on " + strconv.Quote(d.Discriminator)
		}
		return "union of raw JSON"
	}
	return "?"
}

// decl compares two versions of one named type.
func (c *comparer) decl(o, n *model.Decl) {
	change := func(level Level, elem, name, change, old, new string) {
		c.add(Change{Area: API, Level: level, Element: elem, Name: name, Change: change, Old: old, New: new})
	}
	sameShape := o.Kind == n.Kind && (o.Kind != model.UnionDecl || (o.Discriminator == "") == (n.Discriminator == ""))
	if ok, nk := kind(o), kind(n); ok != nk {
		level := Breaking
		if sameShape {
			level = Compatible // a union's discriminator property renamed
		}
		change(level, ElemType, n.GoName, Modified, ok, nk)
	}
	if !sameShape {
		return
	}
	if o.ErrorModel != n.ErrorModel {
		if n.ErrorModel {
			c.add(Change{Area: API, Level: Compatible, Element: ElemType, Name: n.GoName,
				Change: Modified, Note: "now an error model: Error method added"})
		} else {
			c.add(Change{Area: API, Level: Breaking, Element: ElemType, Name: n.GoName,
				Change: Modified, Note: "no longer an error model: Error method removed"})
		}
	}
	if n.Deprecated && !o.Deprecated {
		change(Compatible, ElemType, n.GoName, Deprecated, "", "")
	}
	switch n.Kind {
	case model.StructDecl:
		c.fields(n.GoName, o.Fields, n.Fields)
	case model.EnumDecl:
		c.enumValues(o.Values, n.Values)
	case model.UnionDecl:
		c.variants(n.GoName, o.Variants, n.Variants)
	}
}

// fields compares the fields of struct typ.
func (c *comparer) fields(typ string, old, new []*model.Field) {
	olds := map[string]*model.Field{}
	for _, f := range old {
		olds[f.GoName] = f
	}
	news := map[string]bool{}
	describe := func(f *model.Field) string {
		req := "optional"
		if f.Required {
			req = "required"
		}
		if f.Name == "" {
			return req
		}
		return fmt.Sprintf("%s, %q in JSON", req, f.Name)
	}
	for _, n := range new {
		news[n.GoName] = true
		name := typ + "." + n.GoName
		o := olds[n.GoName]
		if o == nil {
			c.add(Change{Area: API, Level: Compatible, Element: ElemField, Name: name,
				Change: Added, New: n.Type.String(), Note: describe(n)})
			continue
		}
		c.member("", ElemField, name, o.Type, n.Type, o.Required, n.Required, o.Deprecated, n.Deprecated)
	}
	for _, o := range old {
		if !news[o.GoName] {
			c.add(Change{Area: API, Level: Breaking, Element: ElemField, Name: typ + "." + o.GoName,
				Change: Removed, Old: o.Type.String(), Note: describe(o)})
		}
	}
}

// enumValues compares the constants of an enum.
func (c *comparer) enumValues(old, new []*model.EnumValue) {
	olds := map[string]*model.EnumValue{}
	for _, v := range old {
		olds[v.GoName] = v
	}
	news := map[string]bool{}
	lit := func(v any) string {
		if s, ok := v.(string); ok {
			return strconv.Quote(s)
		}
		return fmt.Sprint(v)
	}
	for _, n := range new {
		news[n.GoName] = true
		o := olds[n.GoName]
		switch {
		case o == nil:
			c.add(Change{Area: API, Level: Compatible, Element: ElemEnumValue, Name: n.GoName,
				Change: Added, New: lit(n.Value)})
		case lit(o.Value) != lit(n.Value):
			c.add(Change{Area: API, Level: Breaking, Element: ElemEnumValue, Name: n.GoName,
				Change: Modified, Old: lit(o.Value), New: lit(n.Value)})
		}
	}
	for _, o := range old {
		if !news[o.GoName] {
			c.add(Change{Area: API, Level: Breaking, Element: ElemEnumValue, Name: o.GoName,
				Change: Removed, Old: lit(o.Value)})
		}
	}
}

// variants compares the alternatives of union typ.
func (c *comparer) variants(typ string, old, new []*model.Variant) {
	olds := map[string]*model.Variant{}
	for _, v := range old {
		olds[v.GoName] = v
	}
	news := map[string]bool{}
	values := func(v *model.Variant) string { return strings.Join(v.Values, ", ") }
	for _, n := range new {
		news[n.GoName] = true
		name := typ + "." + n.GoName
		o := olds[n.GoName]
		switch {
		case o == nil:
			c.add(Change{Area: API, Level: Compatible, Element: ElemVariant, Name: name,
				Change: Added, New: n.Type.String()})
		case o.Type.String() != n.Type.String():
			c.add(Change{Area: API, Level: Breaking, Element: ElemVariant, Name: name,
				Change: Modified, Old: o.Type.String(), New: n.Type.String()})
		case values(o) != values(n):
			c.add(Change{Area: API, Level: Compatible, Element: ElemVariant, Name: name,
				Change: Modified, Old: values(o), New: values(n), Note: "discriminator values"})
		}
	}
	for _, o := range old {
		if !news[o.GoName] {
			c.add(Change{Area: API, Level: Breaking, Element: ElemVariant, Name: typ + "." + o.GoName,
				Change: Removed, Old: o.Type.String()})
		}
	}
}
