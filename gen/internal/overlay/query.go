package overlay

import (
	"errors"
	"fmt"
	"slices"

	"github.com/theory/jsonpath/spec"
	"go.yaml.in/yaml/v4"
)

// Limits on the work of queries.
const (
	// MaxQueryWork caps the nodes a query's descendant segments walk plus the nodes its
	// selectors return, each segment's selection counted once per node. A query over a
	// large description (stripe.yaml has 174,000 nodes) with a few segments stays far
	// below it; `$..*..*..*` stays below it too, as a segment selects each node once.
	MaxQueryWork = 5_000_000
	// MaxTotalWork caps the same for every query of every overlay applied to one
	// document, so that many actions cannot add up to what one may not do.
	MaxTotalWork = 20_000_000
	// MaxFilterWork caps what the searches inside a query's filters may cost: each
	// search (see filterSearches) at most the nodes below each node it is evaluated on,
	// so the document's nodes times their depth, summed. stripe.yaml comes to 2.2
	// million a search.
	MaxFilterWork = 5_000_000
)

// errTooMuchWork is returned by selectNodes past MaxQueryWork, errTotalWork past
// MaxTotalWork.
var (
	errTooMuchWork = fmt.Errorf("limit exceeded: selecting its nodes takes more than %d steps", MaxQueryWork)
	errTotalWork   = fmt.Errorf("limit exceeded: the overlays' queries together take more than %d steps by here", MaxTotalWork)
)

// match is one node a query selected, and the mapping or sequence holding it (nil for the
// root).
type match struct{ node, parent *yaml.Node }

// selectNodes evaluates the query p on the document: each segment in turn, on the nodes
// the one before selected, each node selected at most once per segment, in document order
// within the children of one node. RFC 9535 lets a nodelist repeat a node (`$..*..*`
// selects a node once for each of its ancestors); an overlay changes each selected node
// once.
func (d *Document) selectNodes(p *compiledPath) ([]match, error) {
	if searches, _ := filterSearches(p.path); searches > 0 {
		if cost := searches * d.belowSum(); cost > MaxFilterWork {
			return nil, fmt.Errorf("limit exceeded: the searches in its filters would visit %d nodes of this document, more than %d", cost, MaxFilterWork)
		}
	}
	metered, err := d.meter.path(p.metered)
	if err != nil {
		return nil, fmt.Errorf("cannot be evaluated: %v", err)
	}
	d.mirrored()
	budget := min(MaxQueryWork, d.work)
	q := &query{d: d, work: budget}
	d.meter.q = q
	defer func() { d.work -= budget - q.work }()
	cur := []match{{node: d.Root}}
	for _, seg := range metered.Query().Segments() {
		next := q.segment(seg, cur)
		if q.err != nil {
			return nil, q.err
		}
		if q.work < 0 {
			if budget < MaxQueryWork {
				return nil, errTotalWork
			}
			return nil, errTooMuchWork
		}
		cur = next
	}
	return cur, nil
}

// belowSum returns the number of nodes below each node, summed over the tree's nodes
// (each node counted once for each of its ancestors, and once for itself): what a
// search inside a filter, evaluated on every node, visits at most.
func (d *Document) belowSum() int {
	sum := 0
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		sum += depth + 1
		if depth < maxDepth {
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		}
	}
	walk(d.Root, 0)
	return sum
}

// query is the state of one evaluation.
type query struct {
	d    *Document
	work int   // what remains of MaxQueryWork
	err  error // why a filter's function cannot be evaluated, e.g. a regular expression too large
}

// segment returns what seg selects from the nodes in: for a child segment, among their
// children; for a descendant segment, among the children of each node below them too.
func (q *query) segment(seg *spec.Segment, in []match) []match {
	var out []match
	seen := map[*yaml.Node]bool{}
	add := func(m match) {
		if !seen[m.node] {
			seen[m.node] = true
			out = append(out, m)
		}
	}
	sels := seg.Selectors()
	if !seg.IsDescendant() {
		for _, m := range in {
			if q.work < 0 {
				break
			}
			q.children(m.node, sels, add)
		}
		return out
	}
	walked := map[*yaml.Node]bool{}
	for _, m := range in {
		// Depth first, in document order, through mappings and sequences (a scalar has
		// nothing below it); a node walked from an earlier input is not walked again,
		// nor what is below it. Each node walked costs its children.
		stack := []*yaml.Node{m.node}
		for len(stack) > 0 && q.work >= 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n.Kind == yaml.ScalarNode || walked[n] {
				continue
			}
			walked[n] = true
			q.work -= 1 + len(n.Content)
			q.children(n, sels, add)
			step := 1
			if n.Kind == yaml.MappingNode {
				step = 2
			}
			for i := len(n.Content) - 1; i >= 0; i -= step {
				if c := n.Content[i]; c.Kind != yaml.ScalarNode {
					stack = append(stack, c)
				}
			}
		}
	}
	return out
}

// children adds the children of n that the selectors select, selector by selector, each
// selector's in the order of n's content.
func (q *query) children(n *yaml.Node, sels []spec.Selector, add func(match)) {
	if n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode {
		return
	}
	v := q.d.mirrorOf(n)
	var keys map[string]int // the index of each key's value in n.Content, when needed
	for _, sel := range sels {
		found := sel.SelectLocated(v, q.d.root, nil)
		q.work -= len(found) + 1
		if q.work < 0 {
			return
		}
		idx := make([]int, 0, len(found))
		for _, f := range found {
			if len(f.Path) == 0 {
				continue
			}
			switch s := f.Path[len(f.Path)-1].(type) {
			case spec.Index:
				if n.Kind == yaml.SequenceNode && int(s) >= 0 && int(s) < len(n.Content) {
					idx = append(idx, int(s))
				}
			case spec.Name:
				if n.Kind != yaml.MappingNode {
					continue
				}
				if keys == nil {
					keys = make(map[string]int, len(n.Content)/2)
					for i := len(n.Content) - 2; i >= 0; i -= 2 {
						keys[n.Content[i].Value] = i + 1 // the first of repeated keys
					}
				}
				if i, ok := keys[string(s)]; ok {
					idx = append(idx, i)
				}
			}
		}
		slices.Sort(idx)
		for _, i := range idx {
			add(match{node: n.Content[i], parent: n})
		}
	}
}

// errNoNodes is returned by selectOne when the query selects nothing.
var errNoNodes = errors.New("selects nothing")

// selectOne returns the one node p selects, or an error that says how many it selects.
func (d *Document) selectOne(p *compiledPath) (*yaml.Node, error) {
	ms, err := d.selectNodes(p)
	switch {
	case err != nil:
		return nil, err
	case len(ms) == 0:
		return nil, errNoNodes
	case len(ms) > 1:
		return nil, fmt.Errorf("selects %d nodes; copy takes the value of exactly one", len(ms))
	}
	return ms[0].node, nil
}
