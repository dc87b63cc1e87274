package overlay

import (
	"slices"

	"go.yaml.in/yaml/v4"
)

// The mirror is the tree as the values JSONPath selectors read: a map[string]any for
// each mapping, a []any for each sequence, scalars as scalarValue gives them. It is built
// once, on the first query, and every change to the tree goes through the methods below,
// which change the mirror with it: a mapping's map is changed in place; a sequence whose
// length changes gets a new slice, put in its parent's place for it.

// mirrored builds the mirror of the whole tree if it is not built yet.
func (d *Document) mirrored() {
	if d.values != nil {
		return
	}
	d.values = map[*yaml.Node]any{}
	d.parents = map[*yaml.Node]*yaml.Node{}
	d.root = d.build(d.Root, nil, 0)
	d.work -= d.nodes // building it is work of the queries too
}

// dropMirror lets the mirror go.
func (d *Document) dropMirror() { d.values, d.parents, d.root = nil, nil, nil }

// build returns the mirror of n, a child of parent, and records it.
func (d *Document) build(n, parent *yaml.Node, depth int) any {
	if n.Kind == yaml.ScalarNode || depth > maxDepth {
		return scalarValue(n)
	}
	d.parents[n] = parent
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = d.build(n.Content[i+1], n, depth+1)
		}
		d.values[n] = m
		return m
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			s[i] = d.build(c, n, depth+1)
		}
		d.values[n] = s
		return s
	}
	return nil
}

// mirrorOf returns the mirror of a node of the tree.
func (d *Document) mirrorOf(n *yaml.Node) any {
	if n.Kind == yaml.ScalarNode {
		return scalarValue(n)
	}
	return d.values[n]
}

// putValue sets the pair k: v in the mapping m, in place of the pair with the same key if
// m has one, else after its pairs. k and v are new nodes: the key is replaced too, so that
// the field is located where its new value was written.
func (d *Document) putValue(m, k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k.Value {
			m.Content[i], m.Content[i+1] = k, v
			d.mirrorSet(m, i+1, v)
			return
		}
	}
	m.Content = append(m.Content, k, v)
	d.mirrorSet(m, len(m.Content)-1, v)
}

// replace puts the new node v where old is, in parent.
func (d *Document) replace(parent, old, v *yaml.Node) {
	if parent == nil {
		d.Root = v
		if d.values != nil {
			d.root = d.build(v, nil, 0)
		}
		return
	}
	if i := slices.Index(parent.Content, old); i >= 0 {
		parent.Content[i] = v
		d.mirrorSet(parent, i, v)
	}
}

// mirrorSet records in the mirror that the child at index i of parent's Content is new.
func (d *Document) mirrorSet(parent *yaml.Node, i int, v *yaml.Node) {
	if d.values == nil {
		return
	}
	val := d.build(v, parent, 0)
	switch p := d.values[parent].(type) {
	case map[string]any:
		p[parent.Content[i-1].Value] = val
	case []any:
		p[i] = val
	}
}

// appendItems appends the new nodes items to the sequence s.
func (d *Document) appendItems(s *yaml.Node, items []*yaml.Node) {
	s.Content = append(s.Content, items...)
	if d.values == nil {
		return
	}
	old, _ := d.values[s].([]any)
	vals := append(slices.Clip(old), make([]any, 0, len(items))...)
	for _, it := range items {
		vals = append(vals, d.build(it, s, 0))
	}
	d.setSequence(s, vals)
}

// removeChildren removes the nodes in gone from the mapping or sequence parent: a mapping
// loses the pairs whose values they are.
func (d *Document) removeChildren(parent *yaml.Node, gone map[*yaml.Node]bool) {
	var kept []*yaml.Node
	switch parent.Kind {
	case yaml.MappingNode:
		m, _ := d.values[parent].(map[string]any)
		for i := 0; i+1 < len(parent.Content); i += 2 {
			if gone[parent.Content[i+1]] {
				delete(m, parent.Content[i].Value)
				continue
			}
			kept = append(kept, parent.Content[i], parent.Content[i+1])
		}
		parent.Content = kept
	case yaml.SequenceNode:
		for _, c := range parent.Content {
			if !gone[c] {
				kept = append(kept, c)
			}
		}
		parent.Content = kept
		if d.values != nil {
			vals := make([]any, len(kept))
			for i, c := range kept {
				vals[i] = d.mirrorOf(c)
			}
			d.setSequence(parent, vals)
		}
	}
}

// setSequence makes vals the mirror of the sequence s, in its parent's mirror too.
func (d *Document) setSequence(s *yaml.Node, vals []any) {
	d.values[s] = vals
	parent := d.parents[s]
	if parent == nil {
		if s == d.Root {
			d.root = vals
		}
		return
	}
	i := slices.Index(parent.Content, s)
	if i < 0 {
		return // no longer in the tree
	}
	switch p := d.values[parent].(type) {
	case map[string]any:
		p[parent.Content[i-1].Value] = vals
	case []any:
		p[i] = vals
	}
}
