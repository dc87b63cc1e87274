package overlay

import (
	"errors"
	"fmt"

	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// Apply applies the overlay's actions to the document in order. It reports a target that
// selects nothing in warns, and stops at the first action it cannot apply (an update of
// the wrong kind, a removal of the root, a document grown past its limit), reporting it in
// errs: the document is then left as the actions before it made it. The copy of the tree
// its queries read is let go when it returns.
func (d *Document) Apply(o *Overlay, errs, warns *source.ErrorList) {
	defer d.dropMirror() // rebuilt by the next overlay's first query, if any
	for _, a := range o.Actions {
		if e := d.apply(o, a, warns); e != nil {
			errs.Add(e)
			return
		}
	}
}

// apply applies one action.
func (d *Document) apply(o *Overlay, a *Action, warns *source.ErrorList) *source.Error {
	at := func(n *yaml.Node) source.Pos { return source.Pos{File: o.Path, Line: n.Line, Col: n.Column} }
	fail := func(n *yaml.Node, fix, format string, args ...any) *source.Error {
		return &source.Error{Pos: at(n), Msg: fmt.Sprintf("action %d: ", a.N) + fmt.Sprintf(format, args...), Fix: fix}
	}
	matches, err := d.selectNodes(a.target)
	if err != nil {
		fix := "select fewer nodes, by their path from the root"
		switch {
		case errors.Is(err, errTotalWork):
			fix = "search the whole document (with ..) in fewer actions: one target may select many nodes"
		case errors.Is(err, errPattern):
			fix = "write a shorter regular expression, without large repetitions such as {1,1000}"
		}
		return fail(a.at, fix, "target %q: %v", a.Target, err)
	}
	if len(matches) == 0 {
		warns.Add(&source.Error{Pos: at(a.at),
			Msg: fmt.Sprintf("action %d: target %q selects nothing in %s; the action changes nothing", a.N, a.Target, d.path),
			Fix: "check the names in the path against the description (they are case-sensitive), or remove the action"})
		return nil
	}
	if a.Remove {
		return d.remove(matches, func(format string, args ...any) *source.Error {
			return fail(a.at, "remove what is inside it instead, e.g. $.paths['/internal']", format, args...)
		})
	}
	value, file := a.Update, func(*yaml.Node) (string, bool) { return o.Path, true }
	valueAt := a.Update
	if a.copyFrom != nil {
		src, err := d.selectOne(a.copyFrom)
		if err != nil {
			return fail(a.copyAt, "select the one node to copy, e.g. $.paths['/items']", "copy %q %v", a.Copy, err)
		}
		// A snapshot, as the target may hold the node copied; its nodes keep their files.
		file = func(n *yaml.Node) (string, bool) { f, ok := d.files[n]; return f, ok }
		value, valueAt = d.copyTree(src, file), a.copyAt
		d.nodes -= size(value, d.limit+1)
	}
	kind, err := sameKind(matches)
	if err != nil {
		return fail(a.at, "select only objects, only arrays or only primitive values", "target %q %v", a.Target, err)
	}
	if kind == yaml.ScalarNode && !o.minor11() {
		return fail(a.at, "declare overlay: 1.1.0, or target the object that holds the values and update them by name",
			"target %q selects primitive values, which only Overlay 1.1 replaces; this overlay declares %s", a.Target, o.Version)
	}
	if e := checkKind(kind, value); e != "" {
		return fail(valueAt, "", "target %q selects %s, %s", a.Target, kindPlural(kind), e)
	}
	grow := size(value, d.limit+1)
	if d.nodes+grow*len(matches) > d.limit {
		return fail(a.at, "update fewer nodes, or split the description",
			"limit exceeded: copying %d nodes into each of the %d nodes target %q selects would grow the document past %d nodes",
			grow, len(matches), a.Target, d.limit)
	}
	m := merger{d: d, file: file, fail: func(n *yaml.Node, format string, args ...any) *source.Error {
		pos := at(n)
		if a.copyFrom != nil {
			pos = at(a.copyAt) // the node copied is in the description, not the overlay
		}
		return &source.Error{Pos: pos, Msg: fmt.Sprintf("action %d: ", a.N) + fmt.Sprintf(format, args...),
			Fix: "remove the value first, with an action of remove: true, then add the new one"}
	}}
	for _, t := range matches {
		if e := m.into(t, value); e != nil {
			return e
		}
	}
	return nil
}

// remove removes the matched nodes from their parents.
func (d *Document) remove(matches []match, fail func(string, ...any) *source.Error) *source.Error {
	byParent := map[*yaml.Node]map[*yaml.Node]bool{}
	var parents []*yaml.Node
	for _, m := range matches {
		if m.parent == nil {
			return fail("cannot remove the root of the document")
		}
		if byParent[m.parent] == nil {
			byParent[m.parent] = map[*yaml.Node]bool{}
			parents = append(parents, m.parent)
		}
		byParent[m.parent][m.node] = true
	}
	for _, p := range parents {
		d.removeChildren(p, byParent[p])
	}
	return nil
}

// sameKind returns the kind the matched nodes share: mapping, sequence or scalar.
func sameKind(matches []match) (yaml.Kind, error) {
	kind := matches[0].node.Kind
	for _, m := range matches[1:] {
		if m.node.Kind != kind {
			return 0, fmt.Errorf("selects %s and %s together; an update or copy needs nodes of one kind", kindPlural(kind), kindPlural(m.node.Kind))
		}
	}
	return kind, nil
}

// checkKind says what is wrong with an update or copy value v for targets of kind, or "".
func checkKind(kind yaml.Kind, v *yaml.Node) string {
	v = resolve(v)
	switch {
	case kind == yaml.MappingNode && (v == nil || v.Kind != yaml.MappingNode):
		return "so the value must be an object of the fields to merge into each, got " + kindName(v)
	case kind == yaml.ScalarNode && (v == nil || v.Kind != yaml.ScalarNode):
		return "so the value must be a primitive value to replace each with, got " + kindName(v)
	case v == nil:
		return "so the value must be an array to concatenate or a value to append, got nothing"
	}
	return ""
}

func kindPlural(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "objects"
	case yaml.SequenceNode:
		return "arrays"
	}
	return "primitive values"
}

// merger merges an update or copy value into the document, as the Overlay Specification
// says: an object's fields merged recursively, an array concatenated, a primitive value
// replacing a primitive value. Every other pairing is an error, except that null neither
// replaces an object or array nor keeps one from being set: `components:` with no value
// in an update, as in the specification's own example, changes nothing, and an update
// gives a value to a field whose value is null.
type merger struct {
	d    *Document
	file func(*yaml.Node) (string, bool) // where the copies of value nodes are located
	fail func(at *yaml.Node, format string, args ...any) *source.Error
}

// into merges v into the matched node t.
func (m merger) into(t match, v *yaml.Node) *source.Error {
	v = resolve(v)
	switch t.node.Kind {
	case yaml.MappingNode:
		return m.fields(t.node, v)
	case yaml.SequenceNode:
		if v.Kind == yaml.SequenceNode {
			m.d.appendItems(t.node, m.copies(v.Content))
		} else {
			m.d.appendItems(t.node, []*yaml.Node{m.d.copyTree(v, m.file)})
		}
	default:
		m.d.replace(t.parent, t.node, m.d.copyTree(v, m.file))
	}
	return nil
}

// fields merges the fields of the mapping v into the mapping t.
func (m merger) fields(t, v *yaml.Node) *source.Error {
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], resolve(v.Content[i+1])
		cur := value(t, k.Value)
		switch {
		case cur == nil || isNull(cur) && !isNull(val):
			m.d.putValue(t, m.d.copyTree(k, m.file), m.d.copyTree(val, m.file))
		case isNull(val) && cur.Kind != yaml.ScalarNode:
			// null does not replace an object or an array
		case cur.Kind == yaml.MappingNode && val.Kind == yaml.MappingNode:
			if e := m.fields(cur, val); e != nil {
				return e
			}
		case cur.Kind == yaml.SequenceNode && val.Kind == yaml.SequenceNode:
			m.d.appendItems(cur, m.copies(val.Content))
		case cur.Kind == yaml.ScalarNode && val.Kind == yaml.ScalarNode:
			m.d.putValue(t, m.d.copyTree(k, m.file), m.d.copyTree(val, m.file))
		default:
			return m.fail(k, "%q is %s in the update but %s in the document (%s:%d:%d); an update merges objects, concatenates arrays and replaces primitive values",
				k.Value, kindName(val), kindName(cur), m.d.File(cur), cur.Line, cur.Column)
		}
	}
	return nil
}

// copies copies the nodes ns.
func (m merger) copies(ns []*yaml.Node) []*yaml.Node {
	out := make([]*yaml.Node, len(ns))
	for i, n := range ns {
		out[i] = m.d.copyTree(n, m.file)
	}
	return out
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }
