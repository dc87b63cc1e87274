package source

import (
	"go.yaml.in/yaml/v4"
)

// tree is what Files keeps of a file's parsed node tree to locate places in it: each
// node's kind, place, scalar value and children, about a quarter of the memory of the
// yaml.Node tree it is made from (40 bytes a node, and 4 for its place in its parent's
// children, against 160 and 8). The nodes are in document order, the root first.
type tree struct {
	nodes []node
	kids  []int32 // the children of each node, by index in nodes, node by node
}

// node is one node of a tree.
type node struct {
	value        string // a scalar's
	line, col    int32
	first, count int32 // its children: kids[first : first+count]
	alias        int32 // an alias's anchored node, by index; -1 when it names none
	kind         yaml.Kind
	null         bool // a scalar tagged !!null
	flow         bool // a mapping or sequence in flow style
}

// newTree makes the tree of root, a parsed document's top node (not its DocumentNode),
// or nil for nil.
func newTree(root *yaml.Node) *tree {
	if root == nil {
		return nil
	}
	t := &tree{}
	var anchors map[*yaml.Node]int32
	var add func(n *yaml.Node, depth int) int32
	add = func(n *yaml.Node, depth int) int32 {
		i := int32(len(t.nodes))
		t.nodes = append(t.nodes, node{value: n.Value, line: clamp32(n.Line), col: clamp32(n.Column),
			alias: -1, kind: n.Kind, null: n.Kind == yaml.ScalarNode && n.Tag == "!!null", flow: n.Style&yaml.FlowStyle != 0})
		if n.Anchor != "" {
			if anchors == nil {
				anchors = map[*yaml.Node]int32{}
			}
			anchors[n] = i
		}
		if n.Kind == yaml.AliasNode {
			if a, ok := anchors[n.Alias]; ok {
				t.nodes[i].alias = a
			}
		}
		if len(n.Content) == 0 || depth > maxVisitDepth {
			return i
		}
		// The children are added after the node's own list is reserved, so that each
		// list is contiguous.
		first := int32(len(t.kids))
		t.kids = append(t.kids, make([]int32, len(n.Content))...)
		t.nodes[i].first, t.nodes[i].count = first, int32(len(n.Content))
		for j, c := range n.Content {
			t.kids[first+int32(j)] = add(c, depth+1)
		}
		return i
	}
	add(root, 0)
	t.nodes = t.nodes[:len(t.nodes):len(t.nodes)]
	return t
}

// root is the tree's top node.
func (t *tree) root() *node { return &t.nodes[0] }

// child returns the i-th child of n.
func (t *tree) child(n *node, i int) *node { return &t.nodes[t.kids[n.first+int32(i)]] }

// len is the number of n's children: keys and values of a mapping, items of a list.
func (n *node) len() int { return int(n.count) }

// resolve follows aliases from n to the node they stand for.
func (t *tree) resolve(n *node) *node {
	for depth := 0; n.kind == yaml.AliasNode && n.alias >= 0 && depth < maxVisitDepth; depth++ {
		n = &t.nodes[n.alias]
	}
	return n
}

// mappingValue returns the value of key in mapping n, or nil.
func (t *tree) mappingValue(n *node, key string) *node {
	if n == nil || n.kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < n.len(); i += 2 {
		if t.child(n, i).value == key {
			return t.child(n, i+1)
		}
	}
	return nil
}

// Tree is what Files keeps of a file's node tree (SetTree), read by index: the top node
// is 0, and a node's children are Child(n, 0) to Child(n, Len(n)-1). Positions are the
// file's own. Aliases are not followed, and the children of nodes nested deeper than the
// YAML parser allows are not kept.
type Tree struct{ t *tree }

// Tree returns the tree set for the file kin-openapi knows as uri (SetTree), and false
// when none was.
func (f *Files) Tree(uri string) (Tree, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.trees[uri]
	return Tree{t}, t != nil
}

// Len returns the number of the tree's nodes.
func (t Tree) Len() int { return len(t.t.nodes) }

// Kind returns the kind of node n.
func (t Tree) Kind(n int32) yaml.Kind { return t.t.nodes[n].kind }

// Line returns the line node n starts on.
func (t Tree) Line(n int32) int { return int(t.t.nodes[n].line) }

// Column returns the column node n starts at.
func (t Tree) Column(n int32) int { return int(t.t.nodes[n].col) }

// Value returns the value of scalar n.
func (t Tree) Value(n int32) string { return t.t.nodes[n].value }

// Null reports whether n is a scalar tagged !!null.
func (t Tree) Null(n int32) bool { return t.t.nodes[n].null }

// Flow reports whether n is a mapping or sequence written in flow style.
func (t Tree) Flow(n int32) bool { return t.t.nodes[n].flow }

// Children returns the number of n's children: keys and values of a mapping, items of a
// sequence.
func (t Tree) Children(n int32) int { return int(t.t.nodes[n].count) }

// Child returns the i-th child of n.
func (t Tree) Child(n int32, i int) int32 { return t.t.kids[t.t.nodes[n].first+int32(i)] }
