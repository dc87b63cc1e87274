package load

import (
	"fmt"
	"strings"

	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// sectionObjects names the object each components section holds, for messages.
var sectionObjects = map[string]string{
	"schemas": "a schema", "responses": "a response", "parameters": "a parameter", "examples": "an example",
	"requestBodies": "a request body", "headers": "a header", "links": "a link", "callbacks": "a callback",
	"securitySchemes": "a security scheme", "pathItems": "a path item",
}

// wrongKindRefs reports every $ref of the description that stands where OpenAPI wants
// one kind of component and names a component of another kind (a response that names
// a request body), with the operation it is in and a fix. kin-openapi stops at the first
// one, saying neither. The places of the $refs are returned too (see leaveOut).
func (s *Spec) wrongKindRefs(root *yaml.Node) source.ErrorList {
	if root == nil || root.Kind != yaml.MappingNode || source.MappingValue(root, "openapi") == nil {
		return nil
	}
	w := &kindWalker{s: s, chains: &refChains{root: root, targets: map[string]*yaml.Node{}, lengths: map[*yaml.Node]int{}},
		inCycle: map[*yaml.Node]bool{}}
	w.walk(root, nil, kindRoot, 0)
	return w.errs
}

// kindWalker walks a description knowing the kind of each node, and the operation.
type kindWalker struct {
	s                *Spec
	path, method, op string
	errs             source.ErrorList
	chains           *refChains
	inCycle          map[*yaml.Node]bool // the $refs of a cycle reported
}

func (w *kindWalker) walk(n, key *yaml.Node, k kind, depth int) {
	if n == nil || depth > maxTreeDepth || k == kindRaw {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		if ref := refValue(n); ref != nil {
			w.check(n, key, ref.Value, k)
			return
		}
		if k == kindOperation {
			w.op = source.OpName(w.method, w.path, scalarField(n, "operationId"))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			fkey, v := n.Content[i], n.Content[i+1]
			fk := k.field(fkey.Value)
			path, method, op := w.path, w.method, w.op
			switch {
			case k == kindPaths && fk == kindPathItem:
				w.path, w.op = fkey.Value, ""
			case fk == kindOperation:
				w.method = strings.ToUpper(fkey.Value)
				w.op = source.OpName(w.method, w.path, "")
			}
			w.walk(v, fkey, fk, depth+1)
			w.path, w.method, w.op = path, method, op
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			w.walk(c, key, k.item(), depth+1)
		}
	}
}

// check reports ref, the $ref of n (the value of key) at a place of kind k, when it
// names a component of another section than k's, or leads through $refs back to n.
func (w *kindWalker) check(n, key *yaml.Node, ref string, k kind) {
	if w.cycle(n, key, ref, k) {
		return
	}
	want := sections[k]
	rest, ok := strings.CutPrefix(ref, "#/components/")
	if want == "" || !ok {
		return
	}
	got, _, _ := strings.Cut(rest, "/")
	if got == want || sectionObjects[got] == "" {
		return
	}
	at := w.s.nodePos(refKeyNode(n))
	w.errs.Add(&source.Error{Pos: at, Op: w.op,
		Msg: fmt.Sprintf("$ref %s names %s, where %s belongs", source.Quote(ref), sectionObjects[got], sectionObjects[want]),
		Fix: fmt.Sprintf("name %s of components/%s here (write one there if need be)", sectionObjects[want], want)})
	if key != nil {
		w.s.leaveOut(w.s.nodePos(key))
	}
}

// leaveOut records that the value of the key at pos lost its $ref, reported: what the
// validator finds missing there is not reported again.
func (s *Spec) leaveOut(pos source.Pos) {
	if s.leftOut == nil {
		s.leftOut = map[source.Pos]bool{}
	}
	s.leftOut[pos] = true
}

// cycle reports ref, the local $ref of n (the value of key) at a place of kind k, when it
// names n itself, or a $ref that leads through $refs back to n: kin-openapi leaves each
// of them unresolved, and says only that. The first $ref of the cycle met is reported
// and left out, which breaks it.
func (w *kindWalker) cycle(n, key *yaml.Node, ref string, k kind) bool {
	if k == kindPathItem || !strings.HasPrefix(ref, "#") || w.inCycle[n] {
		return false // a path item's are refused by the guard (checkPathItemCycles)
	}
	chain := []string{ref}
	members := []*yaml.Node{n}
	for t := w.chains.target(ref); t != n; t = w.chains.target(ref) {
		if t == nil {
			return false // dangling, reported elsewhere
		}
		var at *yaml.Node
		if ref, at = refOf(t); at == nil || len(chain) > MaxRefChain {
			return false
		}
		chain = append(chain, ref)
		members = append(members, t)
	}
	for _, m := range members {
		w.inCycle[m] = true
	}
	what := sectionObjects[sections[k]]
	if what == "" {
		what = "anything"
	}
	e := &source.Error{Pos: w.s.nodePos(refKeyNode(n)), Op: w.op}
	if len(chain) == 1 {
		e.Msg = fmt.Sprintf("$ref %s names the object it is written in, so it names nothing", source.Quote(ref))
		e.Fix = "name the definition itself"
	} else {
		quoted := make([]string, len(chain))
		for i, r := range chain {
			quoted[i] = source.Quote(r)
		}
		e.Msg = fmt.Sprintf("$ref cycle: %s → %s: these $refs name only each other, so none names %s", strings.Join(quoted, " → "), quoted[0], what)
		e.Fix = "write the definition in place of one of them"
	}
	w.errs.Add(e)
	if key != nil {
		w.s.leaveOut(w.s.nodePos(key))
	}
	return true
}
