package overlay

import (
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// Document is a description's node tree as overlays change it. Every node keeps the
// position it has in the file it was written in: the description's own nodes the
// description's, and a node an overlay added (or copied from such a node) the overlay's,
// which File names. The tree holds no aliases: NewDocument writes out what they stand
// for, so that an action changes one place only.
type Document struct {
	// Root is the document's root node, the OpenAPI object.
	Root *yaml.Node

	path  string                // the description as the user named it
	files map[*yaml.Node]string // the overlay each added node was written in
	nodes int                   // nodes in the tree
	limit int                   // the most nodes it may grow to
	work  int                   // what remains of MaxTotalWork
	meter *meter                // evaluates the metered queries of targets

	// The tree as plain values, for the JSONPath selectors: a map[string]any for each
	// mapping, a []any for each sequence, built when first needed and kept in step with
	// every change (see mirror.go).
	values  map[*yaml.Node]any
	parents map[*yaml.Node]*yaml.Node
	root    any
}

// NewDocument returns the document whose tree is root, the node tree of the description
// at path (as the user named it), aliases written out. The tree may grow to limit nodes,
// aliases and what overlays add counted.
func NewDocument(path string, root *yaml.Node, limit int) *Document {
	d := &Document{path: path, files: map[*yaml.Node]string{}, limit: limit, work: MaxTotalWork, meter: newMeter()}
	d.Root = d.expand(resolve(root), 0)
	return d
}

// NewDocumentOf is NewDocument for a tree assembled from several files: files holds the
// file each node was read from, where it is not the description at path. The document
// keeps the map and adds to it.
func NewDocumentOf(path string, root *yaml.Node, limit int, files map[*yaml.Node]string) *Document {
	d := &Document{path: path, files: files, limit: limit, work: MaxTotalWork, meter: newMeter()}
	d.Root = d.expand(resolve(root), 0)
	return d
}

// File returns the file the node n was written in: an overlay's path, or the
// description's.
func (d *Document) File(n *yaml.Node) string {
	if f, ok := d.files[n]; ok {
		return f
	}
	return d.path
}

// Nodes returns the number of nodes in the tree.
func (d *Document) Nodes() int { return d.nodes }

// maxDepth bounds recursion over trees; the YAML parser refuses deeper documents.
const maxDepth = 10000

// expand returns n with every alias below it replaced by a copy of what it stands for,
// and counts the nodes. The copies keep the positions of the anchored nodes.
func (d *Document) expand(n *yaml.Node, depth int) *yaml.Node {
	if n == nil || depth > maxDepth {
		return n
	}
	if n.Kind == yaml.AliasNode {
		return d.copyTree(resolve(n), func(*yaml.Node) (string, bool) { return "", false })
	}
	d.nodes++
	n.Anchor = ""
	for i, c := range n.Content {
		n.Content[i] = d.expand(c, depth+1)
	}
	return n
}

// copyTree returns a deep copy of n, aliases written out, counting its nodes. file says
// which file each copy is located in: the overlay's for an update, that of the node copied
// for a copy action.
func (d *Document) copyTree(n *yaml.Node, file func(*yaml.Node) (string, bool)) *yaml.Node {
	var cp func(n *yaml.Node, depth int) *yaml.Node
	cp = func(n *yaml.Node, depth int) *yaml.Node {
		n = resolve(n)
		if n == nil {
			return nil
		}
		c := &yaml.Node{Kind: n.Kind, Style: n.Style, Tag: n.Tag, Value: n.Value, Line: n.Line, Column: n.Column}
		d.nodes++
		if f, ok := file(n); ok {
			d.files[c] = f
		}
		if depth < maxDepth && len(n.Content) > 0 {
			c.Content = make([]*yaml.Node, len(n.Content))
			for i, ch := range n.Content {
				c.Content[i] = cp(ch, depth+1)
			}
		}
		return c
	}
	return cp(n, 0)
}

// size counts the nodes of n, aliases written out, stopping past limit.
func size(n *yaml.Node, limit int) int {
	count := 0
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		n = resolve(n)
		if n == nil || depth > maxDepth || count > limit {
			return
		}
		count++
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return count
}

// scalarValue is a scalar node as JSON would hold it: a string, a number (int64 or
// float64), a boolean or nil. YAML's other scalars (timestamps, .inf) are strings.
func scalarValue(n *yaml.Node) any {
	switch n.Tag {
	case "!!null":
		return nil
	case "!!bool":
		return strings.EqualFold(n.Value, "true")
	case "!!int":
		if i, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsInf(f, 0) {
			return f
		}
	case "!!float":
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	}
	return n.Value
}
