package source

import (
	"github.com/getkin/kin-openapi/openapi3"
	"go.yaml.in/yaml/v4"
)

// FieldIndex stands in for the Fields of the origins of a document decoded from the root
// file's tree: it records the mapping each origin was decoded from, and the places of
// that mapping's keys are read from the tree when asked for, as kin-openapi would have
// recorded them in Origin.Fields (a Location of 64 bytes a key, most never read).
type FieldIndex struct {
	t     *tree
	nodes map[*openapi3.Origin]int32 // the mapping of each origin, by index in t
	file  string                     // Location.File
	// The columns of line startLine are shift more in the text the loader read than in
	// the tree.
	startLine, shift int
}

// FieldIndex returns an empty index of origins decoded from the tree, whose Locations
// name file, with the columns of line startLine moved right by shift.
func (t Tree) FieldIndex(file string, startLine, shift int) *FieldIndex {
	return &FieldIndex{t: t.t, nodes: map[*openapi3.Origin]int32{}, file: file, startLine: startLine, shift: shift}
}

// Add records that origin's fields are the keys of the mapping n.
func (x *FieldIndex) Add(origin *openapi3.Origin, n int32) { x.nodes[origin] = n }

// Len returns the number of origins recorded.
func (x *FieldIndex) Len() int { return len(x.nodes) }

// location returns the Location of key k as the loader records it.
func (x *FieldIndex) location(k *node) openapi3.Location {
	col := int(k.col)
	if int(k.line) == x.startLine {
		col += x.shift
	}
	return openapi3.Location{File: x.file, Line: int(k.line), Column: col, Name: k.value}
}

// mapping returns the mapping origin was decoded from, or nil.
func (x *FieldIndex) mapping(origin *openapi3.Origin) *node {
	if x == nil {
		return nil
	}
	n, ok := x.nodes[origin]
	if !ok || x.t.nodes[n].kind != yaml.MappingNode {
		return nil
	}
	return &x.t.nodes[n]
}

// SetFieldIndex records the index of the fields of the origins of the document decoded
// from the root file's tree, replacing any other.
func (f *Files) SetFieldIndex(x *FieldIndex) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fields = x
}

func (f *Files) fieldIndex() *FieldIndex {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fields
}

// FieldLocation returns the place of the named field of the object carrying origin, as
// origin.Fields.Lookup does: from Fields when they were recorded (kin-openapi's own
// decode), else from the mapping the FieldIndex records for origin.
func (f *Files) FieldLocation(origin *openapi3.Origin, field string) (openapi3.Location, bool) {
	if origin == nil {
		return openapi3.Location{}, false
	}
	if loc, ok := origin.Fields.Lookup(field); ok || origin.Fields != nil {
		return loc, ok
	}
	x := f.fieldIndex()
	n := x.mapping(origin)
	if n == nil {
		return openapi3.Location{}, false
	}
	for i := 0; i+1 < n.len(); i += 2 {
		if k := x.t.child(n, i); k.value == field {
			return x.location(k), true
		}
	}
	return openapi3.Location{}, false
}

// OriginFields returns the places of the fields of the object carrying origin, as
// kin-openapi records them in origin.Fields: those, when recorded, else read from the
// mapping the FieldIndex records for origin; nil when it has none.
func (f *Files) OriginFields(origin *openapi3.Origin) openapi3.FieldLocations {
	if origin == nil {
		return nil
	}
	if origin.Fields != nil {
		return origin.Fields
	}
	x := f.fieldIndex()
	n := x.mapping(origin)
	if n == nil || n.len() < 2 {
		return nil
	}
	out := make(openapi3.FieldLocations, 0, n.len()/2)
	for i := 0; i+1 < n.len(); i += 2 {
		out = append(out, x.location(x.t.child(n, i)))
	}
	return out
}
