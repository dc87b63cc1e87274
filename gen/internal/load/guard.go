package load

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// Limits checked on the root file's node tree before kin-openapi decodes it: past them
// its work and memory grow far faster than the file.
const (
	// MaxNodes caps the nodes of the root file (mappings, sequences, scalars, keys
	// included), each YAML alias counted as the nodes it stands for. stripe.yaml, one
	// of the largest public descriptions, has 174,000; loading and generating take
	// about 1.4 KB of memory a node.
	MaxNodes = 600_000
	// MaxValueBytes caps one scalar (a description, an example).
	MaxValueBytes = 1 << 20
	// MaxTextBytes caps the scalars of the root file together, keys included, aliases
	// expanded: most of them end up in the client's comments and literals.
	MaxTextBytes = 32 << 20
	// MaxKeyPairs caps the work of comparing the keys of the root file's mappings: the
	// YAML decoder compares each key of a mapping with every other, and two keys of one
	// length byte by byte. A mapping of k keys of b bytes together counts k² pairs, and a
	// pair more for each keyBytesPerPair bytes that each key may be compared over (k·b
	// over it). The largest public descriptions stay under 2.3 million (openai.yaml);
	// one mapping of 10,000 short keys is 100 million.
	MaxKeyPairs = 200_000_000
	// keyBytesPerPair is how many bytes of two keys compare in the time that comparing
	// a pair of keys costs.
	keyBytesPerPair = 256
	// MaxRefChain caps a chain of $refs that each name another $ref.
	MaxRefChain = 100
	// MaxRefSteps caps the steps kin-openapi takes to follow such chains, one per link
	// for every $ref that starts one: it follows a chain anew from each $ref into it.
	MaxRefSteps = 1_000_000
)

// checkDocuments refuses, located, the text of a file (the root file, or an overlay) that
// holds several YAML documents, or could hold so many nodes that parsing it would cost
// too much.
func checkDocuments(path string, data []byte) *source.Error {
	if e := checkSingleDocument(path, data); e != nil {
		return e
	}
	if e := checkLines(path, data); e != nil {
		return e
	}
	return checkIndicators(path, data)
}

// MaxBlankLines caps a run of blank lines: kin-openapi's loader (which reads a document
// with anchors or aliases itself) walks the run again for every node that ends before
// it, so that 50,000 nodes before 500,000 blank lines took a minute.
const MaxBlankLines = 1000

// checkLines refuses, at the line and column (in bytes) the file has them, lines counted
// at line feeds, carriage returns and the pairs of both: a run of more than
// MaxBlankLines blank lines; and in YAML, the characters the YAML parser breaks lines
// at beyond those (U+0085, U+2028, U+2029), after which its lines and the file's
// differ: a comment line would hold content, and every place after it would be a line
// off. A JSON document's are written as escapes for the parser (yamlSafeJSON); a file
// without them is not read for them.
func checkLines(path string, data []byte) *source.Error {
	at := func(line, col int) source.Pos { return source.Pos{File: path, Line: line, Col: col} }
	line, blanks, blankFrom := 1, 0, 0
	breaks := (bytes.Contains(data, []byte("\u0085")) || bytes.Contains(data, []byte("\u2028")) ||
		bytes.Contains(data, []byte("\u2029"))) && !stdjson.Valid(bytes.TrimPrefix(data, []byte("\uFEFF")))
	for off := 0; off < len(data); line++ {
		end := bytes.IndexAny(data[off:], "\r\n")
		if end < 0 {
			end = len(data) - off
		}
		text := data[off : off+end]
		if len(bytes.Trim(text, " \t")) > 0 {
			blanks = 0
		} else if blanks++; blanks == 1 {
			blankFrom = line
		} else if blanks > MaxBlankLines {
			return &source.Error{Pos: at(blankFrom, 1),
				Msg: fmt.Sprintf("limit exceeded: more than %d blank lines in a row", MaxBlankLines),
				Fix: "remove the blank lines"}
		}
		if breaks {
			if i := bytes.IndexFunc(text, isYAMLLineBreak); i >= 0 {
				r, _ := utf8.DecodeRune(text[i:])
				return &source.Error{Pos: at(line, i+1),
					Msg: fmt.Sprintf("malformed document: the character %U, which YAML reads as a line break where the file has none", r),
					Fix: fmt.Sprintf("write it as \\u%04X in a double-quoted string, or remove it", r)}
			}
		}
		off += end + 1
		if off < len(data) && data[off-1] == '\r' && data[off] == '\n' {
			off++
		}
	}
	return nil
}

// isYAMLLineBreak reports whether r is a character the YAML parser breaks lines at besides
// line feed and carriage return.
func isYAMLLineBreak(r rune) bool { return r == 0x85 || r == 0x2028 || r == 0x2029 }

// newGuard returns a guard that locates the nodes of a tree with pos.
func newGuard(pos func(*yaml.Node) source.Pos) *guard {
	return &guard{pos: pos, sizes: map[*yaml.Node][2]int{}}
}

// check runs every check of the guard on the tree at root, and returns the first error
// in this order. The checks of $ref chains, which only read the tree and take time linear
// in its nodes (aliases not followed) whatever it holds, run beside the others.
func (g *guard) check(root *yaml.Node) *source.Error {
	var chains *source.Error
	done := make(chan struct{})
	go func() {
		defer close(done)
		chains = firstError(
			func() *source.Error { return g.checkRefChains(root) },
			func() *source.Error { return g.checkPathItemCycles(root) }, // the chains bounded
		)
	}()
	e := firstError(
		func() *source.Error { return g.walk(root, nil, 0) },
		func() *source.Error { return g.checkRepeatedKeys(root) },
		func() *source.Error { return g.countOperations(root) },
		g.checkKeyPairs,
		func() *source.Error { return g.checkRefFanIn(root) },
	)
	<-done
	if e != nil {
		return e
	}
	return chains
}

// firstError runs checks in order up to the first that fails, and returns its error.
func firstError(checks ...func() *source.Error) *source.Error {
	for _, check := range checks {
		if e := check(); e != nil {
			return e
		}
	}
	return nil
}

// MaxIndicators caps the characters that may start a node (see checkIndicators).
const MaxIndicators = 2 * MaxNodes

// checkIndicators refuses a file that could hold so many nodes that parsing it to count
// them would take more memory than loading a spec of MaxNodes: each node is started by
// one of the characters ",:[{" or a line break, or "-" or "?" followed by a blank (the
// YAML parser reads them as indicators then only: otherwise they are part of a scalar,
// or start one that another of those characters starts too), and one starts at most two
// (a mapping and its first key), so a file has at most twice as many nodes as those
// characters, plus its root. In a JSON document (parsed by parseJSON) those within its
// strings are not counted. Dashes, commas and line breaks written inside the YAML
// scalars are counted: a description of prose or markdown tables of 20 MB stays under
// the cap. stripe.yaml has 225,000 of them.
func checkIndicators(path string, data []byte) *source.Error {
	if len(data) <= MaxIndicators || indicators(data) <= MaxIndicators {
		return nil
	}
	json := stdjson.Valid(bytes.TrimPrefix(data, []byte("\uFEFF")))
	n, inString := 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = json
		case '-', '?':
			if i+1 < len(data) && data[i+1] > ' ' && data[i+1] < 0x7f {
				continue // not an indicator
			}
			n++
		case ',', ':', '[', '{', '\n':
			n++
		}
		if n > MaxIndicators {
			line := bytes.Count(data[:i], []byte("\n")) + 1
			col := utf8.RuneCount(data[bytes.LastIndexByte(data[:i], '\n')+1:i]) + 1
			return &source.Error{Pos: source.Pos{File: path, Line: line, Col: col},
				Msg: fmt.Sprintf("limit exceeded: more than %d of the characters that start YAML nodes (,:[{ and line breaks, - and ? before a blank) by here: the document may hold more than %d nodes", MaxIndicators, MaxNodes),
				Fix: "split the description into several, one client each"}
		}
	}
	return nil
}

// indicators counts the characters of data that checkIndicators counts, each with
// bytes.Count, many times faster than a loop over the bytes.
func indicators(data []byte) int {
	n := 0
	for _, c := range []byte(",:-[{?\n") {
		n += bytes.Count(data, []byte{c})
	}
	return n
}

// checkSingleDocument refuses a second YAML document in the file: kin-openapi would
// read the first and ignore the rest.
func checkSingleDocument(path string, data []byte) *source.Error {
	content := false // whether a document has begun
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data) - off
		}
		line := data[off : off+end]
		start := off
		off += end + 1
		marker := len(line) >= 3 && (bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("..."))) &&
			(len(line) == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r')
		if !marker {
			if t := bytes.TrimSpace(line); !content && len(t) > 0 && t[0] != '#' && t[0] != '%' {
				content = true
			}
			continue
		}
		if line[0] == '-' {
			if content {
				return secondDocument(path, data, start)
			}
			content = true // the document begins here
			continue
		}
		// The end of a document: anything after it is another.
		if next := firstContent(data[min(off, len(data)):]); next >= 0 {
			return secondDocument(path, data, off+next)
		}
		return nil
	}
	return nil
}

func secondDocument(path string, data []byte, at int) *source.Error {
	line := bytes.Count(data[:at], []byte("\n")) + 1
	col := at - (bytes.LastIndexByte(data[:at], '\n') + 1) + 1
	return &source.Error{Pos: source.Pos{File: path, Line: line, Col: col},
		Msg: "malformed document: a second YAML document starts here; a spec is one document",
		Fix: "remove the document markers (--- or ...) and what follows them, or split the file"}
}

// firstContent returns the offset of the first line of text that is not blank, a
// comment or a directive, or -1.
func firstContent(text []byte) int {
	for off := 0; off < len(text); {
		end := bytes.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text) - off
		}
		line := bytes.TrimSpace(text[off : off+end])
		if len(line) > 0 && line[0] != '#' && line[0] != '%' {
			return off + bytes.Index(text[off:off+end], line[:1])
		}
		off += end + 1
	}
	return -1
}

// guard walks a node tree: the root file's, an overlay's, or the description's with
// overlays applied.
type guard struct {
	pos   func(*yaml.Node) source.Pos // where a node was written
	sizes map[*yaml.Node][2]int       // nodes and scalar bytes under an anchored node, aliases expanded
	nodes int                         // nodes so far, aliases expanded
	text  int                         // bytes of scalars so far, aliases expanded
	// keyPairs is the work of comparing the keys of the mappings so far, as MaxKeyPairs
	// counts it; widest is the most of one mapping, whose keys and their bytes are
	// widestKeys and widestBytes, held by the key (or node) widestAt.
	keyPairs, widest        int
	widestKeys, widestBytes int
	widestAt                *yaml.Node
}

// checkRepeatedKeys refuses a key repeated in one mapping, as YAML does. The YAML decoder
// refuses one where a struct is decoded, but kin-openapi fills Paths, Responses and
// Callback from the pairs themselves, the later entry replacing the earlier; and JSON's
// "/a" and "\u002fa" are one key once unescaped.
func (g *guard) checkRepeatedKeys(root *yaml.Node) *source.Error {
	if k, first := repeatedKey(root, 0); k != nil {
		return &source.Error{Pos: g.pos(k),
			Msg: fmt.Sprintf("malformed document: mapping key %s already defined at line %d", source.Quote(k.Value), g.pos(first).Line),
			Fix: "remove one of them: tools disagree on which one counts"}
	}
	return nil
}

// checkKeyPairs refuses a document whose mappings would take the YAML decoder too long:
// it compares each key of a mapping with every other.
func (g *guard) checkKeyPairs() *source.Error {
	if g.keyPairs <= MaxKeyPairs {
		return nil
	}
	return &source.Error{Pos: g.pos(g.widestAt),
		Msg: fmt.Sprintf("limit exceeded: a mapping of %d keys (%d bytes of them); the document's mappings are too large to decode in reasonable time", g.widestKeys, g.widestBytes),
		Fix: "split the object into several, or the description into several, one client each"}
}

// walk counts the nodes under n, checks the scalars and enums it holds, and refuses the
// tree when it grows past MaxNodes. key is the mapping key n is the value of.
func (g *guard) walk(n, key *yaml.Node, depth int) *source.Error {
	if n == nil || depth > 10000 {
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		size := g.expanded(n.Alias, 0)
		g.nodes += size[0]
		g.text += size[1]
		if g.nodes > MaxNodes || g.text > MaxTextBytes {
			return &source.Error{Pos: g.pos(n),
				Msg: fmt.Sprintf("limit exceeded: excessive aliasing: the YAML aliases expand the document past %d nodes or %d bytes of text (this one stands for %d nodes, %d bytes)",
					MaxNodes, MaxTextBytes, size[0], size[1]),
				Fix: "write the aliased value once, in components, and refer to it with $ref"}
		}
		return nil
	case yaml.ScalarNode:
		g.nodes++
		if len(n.Value) > MaxValueBytes {
			return &source.Error{Pos: g.pos(n),
				Msg: fmt.Sprintf("limit exceeded: a value of %d bytes, more than %d", len(n.Value), MaxValueBytes),
				Fix: "shorten it, or link to the text instead"}
		}
		g.text += len(n.Value)
		if g.text > MaxTextBytes {
			return &source.Error{Pos: g.pos(n),
				Msg: fmt.Sprintf("limit exceeded: the document's keys and values add up to more than %d bytes by here", MaxTextBytes),
				Fix: "split the description into several, one client each, or shorten its descriptions"}
		}
	default:
		g.nodes++
	}
	if g.nodes > MaxNodes {
		return &source.Error{Pos: g.pos(n),
			Msg: fmt.Sprintf("limit exceeded: the document has more than %d nodes", MaxNodes),
			Fix: "split the description into several, one client each"}
	}
	if n.Kind == yaml.MappingNode {
		// The YAML decoder checks each key of a mapping against every other: a mapping of
		// k keys costs k² (100,000 properties: minutes), and more when its keys are long
		// (14,000 keys of 2 KB that differ only at their ends: half a minute).
		k, bytes := len(n.Content)/2, 0
		for i := 0; i < len(n.Content); i += 2 {
			bytes += len(n.Content[i].Value)
		}
		work := k*k + k*(bytes/keyBytesPerPair)
		g.keyPairs += work
		if work > g.widest {
			g.widest, g.widestKeys, g.widestBytes, g.widestAt = work, k, bytes, n
			if key != nil {
				g.widestAt = key
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			for v.Kind == yaml.AliasNode && v.Alias != nil {
				v = v.Alias
			}
			if k.Value == "enum" && k.Kind == yaml.ScalarNode && v.Kind == yaml.SequenceNode && len(v.Content) > MaxEnumValues {
				pos := g.pos(k)
				if key != nil {
					pos = g.pos(key) // where checkDepth puts it: the schema
				}
				return &source.Error{Pos: pos,
					Msg: fmt.Sprintf("limit exceeded: enum of %d values, more than %d", len(v.Content), MaxEnumValues),
					Fix: "declare the values as a plain string or integer, and document them"}
			}
			if e := g.checkKey(k, key); e != nil {
				return e
			}
			if e := g.walk(k, nil, depth+1); e != nil {
				return e
			}
			if e := g.walk(n.Content[i+1], k, depth+1); e != nil {
				return e
			}
		}
		return nil
	}
	for _, c := range n.Content {
		if e := g.walk(c, nil, depth+1); e != nil {
			return e
		}
	}
	return nil
}

// checkKey refuses a mapping key k that is a mapping or a list (written "? [a, b]"),
// which the decoder would refuse with Go's syntax, placed at the document's start. of is
// the key of the mapping k is in, nil for the root or a list's item.
func (g *guard) checkKey(k, of *yaml.Node) *source.Error {
	n := k
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	what := "a list"
	switch n.Kind {
	case yaml.ScalarNode, yaml.AliasNode:
		return nil
	case yaml.MappingNode:
		what = "a mapping"
	}
	holder := "a mapping key"
	if of != nil {
		holder = "a key of " + source.Quote(of.Value)
	}
	return &source.Error{Pos: g.pos(k),
		Msg: fmt.Sprintf("malformed document: %s is %s; keys must be strings", holder, what),
		Fix: "write the key as a string"}
}

// expanded returns the nodes n stands for and the bytes of their scalars, aliases
// expanded, stopping past MaxNodes or MaxTextBytes.
func (g *guard) expanded(n *yaml.Node, depth int) [2]int {
	if n == nil || depth > 10000 {
		return [2]int{}
	}
	if n.Kind == yaml.AliasNode {
		return g.expanded(n.Alias, depth+1)
	}
	if size, ok := g.sizes[n]; ok {
		return size
	}
	over := [2]int{MaxNodes + 1, MaxTextBytes + 1}
	g.sizes[n] = over // an alias inside its own anchor: refused by the parser anyway
	size := [2]int{1, len(n.Value)}
	for _, c := range n.Content {
		cs := g.expanded(c, depth+1)
		size[0] += cs[0]
		size[1] += cs[1]
		if size[0] > MaxNodes || size[1] > MaxTextBytes {
			size = over
			break
		}
	}
	g.sizes[n] = size
	return size
}

// httpMethods are the keys of a path item that kin-openapi reads as operations.
var httpMethods = map[string]bool{"get": true, "put": true, "post": true, "delete": true, "options": true,
	"head": true, "patch": true, "trace": true, "query": true, "connect": true}

// MaxRefFanIn caps, over the components, the $refs to each times what kin-openapi walks
// again at each: a component schema's properties, the objects a request body, response,
// parameter, header or path item holds inline (its inline schemas and their properties
// among them). 5,000 $refs to a schema of 2,000 properties took 19 s, 5,000 to a request
// body whose inline schema has 2,000 properties 50 s. stripe.yaml comes to 30,000.
const MaxRefFanIn = 1_000_000

// fanInSections names what the components of each section, other than schemas, are
// called in messages: kin-openapi resolves and validates what one holds inline again at
// every $ref to it, and at every use of the component whose $ref leads to it.
var fanInSections = map[string]string{"requestBodies": "request body", "responses": "response",
	"parameters": "parameter", "headers": "header", "pathItems": "path item"}

// fanIn is one component for checkRefFanIn.
type fanIn struct {
	key        *yaml.Node
	section    string
	name       string
	size       int      // a schema's properties, plus one; else the objects it holds inline
	from       []*fanIn // the component holding each $ref to it, nil outside components
	uses, done int      // $refs to it, counting each in a component once per use of that
	cost       int      // uses times size
}

// checkRefFanIn refuses a document whose $refs would make kin-openapi walk the same
// large schemas too many times; the place is the component that costs the most.
func (g *guard) checkRefFanIn(root *yaml.Node) *source.Error {
	components := source.MappingValue(root, "components")
	if components == nil || components.Kind != yaml.MappingNode {
		return nil
	}
	byRef := map[string]*fanIn{}
	var all []*fanIn
	for i := 0; i+1 < len(components.Content); i += 2 {
		section, members := components.Content[i].Value, components.Content[i+1]
		if _, ok := fanInSections[section]; (!ok && section != "schemas") || members.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(members.Content); j += 2 {
			c := &fanIn{key: members.Content[j], section: section, name: members.Content[j].Value, size: 1}
			if section == "schemas" {
				if p := source.MappingValue(members.Content[j+1], "properties"); p != nil && p.Kind == yaml.MappingNode {
					c.size += len(p.Content) / 2
				}
			} else {
				c.size = inlineObjects(members.Content[j+1], 0)
			}
			byRef["#/components/"+section+"/"+source.EscapePointer(c.name)] = c
			all = append(all, c)
		}
	}
	var walk func(n *yaml.Node, in *fanIn, depth int)
	walk = func(n *yaml.Node, in *fanIn, depth int) {
		if n == nil || depth > 10000 {
			return
		}
		if ref, at := refOf(n); at != nil {
			if c := byRef[ref]; c != nil {
				c.from = append(c.from, in)
			}
		}
		for _, c := range n.Content {
			walk(c, in, depth+1)
		}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "components" {
			walk(root.Content[i+1], nil, 1)
			continue
		}
		for j := 0; j+1 < len(components.Content); j += 2 {
			section, members := components.Content[j].Value, components.Content[j+1]
			for k := 0; members.Kind == yaml.MappingNode && k+1 < len(members.Content); k += 2 {
				walk(members.Content[k+1], byRef["#/components/"+section+"/"+source.EscapePointer(members.Content[k].Value)], 3)
			}
		}
	}
	total := 0
	var worst *fanIn
	for _, c := range all {
		c.cost = c.countUses() * c.size
		total = min(total+c.cost, MaxRefFanIn+1)
		if worst == nil || c.cost > worst.cost {
			worst = c
		}
	}
	if total <= MaxRefFanIn || worst == nil {
		return nil
	}
	pointer := "#/components/" + worst.section + "/" + source.EscapePointer(worst.name)
	if worst.section == "schemas" {
		return &source.Error{Pos: g.pos(worst.key), Pointer: pointer,
			Msg: fmt.Sprintf("limit exceeded: %d $refs to this schema of %d properties (and others like it) would take too long to resolve",
				worst.uses, worst.size-1),
			Fix: "split the description into several, one client each, or the schema into smaller ones"}
	}
	return &source.Error{Pos: g.pos(worst.key), Pointer: pointer,
		Msg: fmt.Sprintf("limit exceeded: %d $refs to this %s holding %d objects inline (and others like it) would take too long to resolve and validate",
			worst.uses, fanInSections[worst.section], worst.size),
		Fix: "split the description into several, one client each, or move its large schemas to #/components/schemas"}
}

// countUses counts the $refs to c, each $ref inside another component (other than a
// schema, whose $refs kin-openapi does not follow again) once per use of that one, at
// most MaxRefFanIn+1; a $ref inside a component that leads back to c counts once.
func (c *fanIn) countUses() int {
	if c.done != 0 {
		return c.uses
	}
	c.done = -1 // while counting
	n := 0
	for _, in := range c.from {
		switch {
		case in == nil || in.section == "schemas" || c.section == "schemas":
			n++
		case in.done == -1:
			n++
		default:
			n += in.countUses()
		}
		n = min(n, MaxRefFanIn+1)
	}
	c.uses, c.done = n, 1
	return n
}

// inlineObjects counts the mappings of n, itself included, not looking into $refs, at
// most MaxRefFanIn+1.
func inlineObjects(n *yaml.Node, depth int) int {
	if n == nil || depth > 10000 {
		return 0
	}
	count := 0
	if n.Kind == yaml.MappingNode {
		if _, at := refOf(n); at != nil {
			return 0
		}
		count = 1
	}
	for _, c := range n.Content {
		count = min(count+inlineObjects(c, depth+1), MaxRefFanIn+1)
	}
	return count
}

// countOperations refuses more than MaxOperations operations before they are decoded.
func (g *guard) countOperations(root *yaml.Node) *source.Error {
	paths := source.MappingValue(root, "paths")
	if paths == nil || paths.Kind != yaml.MappingNode {
		return nil
	}
	n := 0
	for i := 1; i < len(paths.Content); i += 2 {
		item := paths.Content[i]
		for item.Kind == yaml.AliasNode && item.Alias != nil {
			item = item.Alias
		}
		if item.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			switch k := item.Content[j].Value; {
			case httpMethods[k]:
				n++
			case k == "additionalOperations" && item.Content[j+1].Kind == yaml.MappingNode:
				n += len(item.Content[j+1].Content) / 2
			}
		}
	}
	if n <= MaxOperations {
		return nil
	}
	k := source.MappingKey(root, "paths")
	return &source.Error{Pos: g.pos(k), Pointer: "#/paths",
		Msg: fmt.Sprintf("limit exceeded: %d operations, more than %d", n, MaxOperations),
		Fix: "split the description into several, one client each"}
}

// checkRefChains refuses chains of local $refs that each name another $ref, when one
// is longer than MaxRefChain or following them all from every $ref would take more
// than MaxRefSteps steps: kin-openapi follows a chain to its end from each $ref into
// it, without remembering where it led, so a chain of n such $refs costs n² steps.
func (g *guard) checkRefChains(root *yaml.Node) *source.Error {
	rc := &refChains{root: root, targets: map[string]*yaml.Node{}, lengths: map[*yaml.Node]int{}}
	steps := 0
	var err *source.Error
	var walk func(n *yaml.Node, depth int) bool
	walk = func(n *yaml.Node, depth int) bool {
		if n == nil || depth > 10000 {
			return true
		}
		if ref, at := refOf(n); at != nil {
			length := rc.length(n, 0)
			steps += length
			if length > MaxRefChain || steps > MaxRefSteps {
				msg := fmt.Sprintf("limit exceeded: $ref %s starts a chain of more than %d $refs that only name other $refs", source.Quote(ref), MaxRefChain)
				if length <= MaxRefChain {
					msg = fmt.Sprintf("limit exceeded: following the chains of $refs that only name other $refs takes more than %d steps; this one is %d long", MaxRefSteps, length)
				}
				err = &source.Error{Pos: g.pos(at), Msg: msg, Fix: "refer to the schema itself rather than to another $ref"}
				return false
			}
		}
		for _, c := range n.Content {
			if !walk(c, depth+1) {
				return false
			}
		}
		return true
	}
	walk(root, 0)
	return err
}

// checkPathItemCycles refuses a path item, of paths or webhooks, whose $ref leads through
// the $refs of other path items back to one it passed: kin-openapi drops such a path
// item without a word, and its operations would be missing from the client. It runs
// after checkRefChains, which bounds the chains.
func (g *guard) checkPathItemCycles(root *yaml.Node) *source.Error {
	if root == nil || root.Kind != yaml.MappingNode {
		return nil
	}
	rc := &refChains{root: root, targets: map[string]*yaml.Node{}, lengths: map[*yaml.Node]int{}}
	for _, group := range []string{"paths", "webhooks"} {
		items := source.MappingValue(root, group)
		if items == nil || items.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(items.Content); i += 2 {
			if e := g.pathItemCycle(rc, items.Content[i].Value, items.Content[i+1]); e != nil {
				return e
			}
		}
	}
	return nil
}

// pathItemCycle follows the $refs from the path item named name, and refuses them if they
// go round a cycle.
func (g *guard) pathItemCycle(rc *refChains, name string, item *yaml.Node) *source.Error {
	_, first := refOf(item)
	seen := map[*yaml.Node]bool{}
	var chain []string
	for n := item; len(chain) <= MaxRefChain; {
		ref, at := refOf(n)
		if at == nil {
			return nil
		}
		seen[n] = true
		chain = append(chain, ref)
		if n = rc.target(ref); n == nil {
			return nil
		}
		if seen[n] {
			return &source.Error{Pos: g.pos(first),
				Msg: fmt.Sprintf("$ref cycle: the $refs of path item %q go round in a circle (%s), so it has no operations", name, strings.Join(chain, " → ")),
				Fix: "write the operations in one path item, and $ref that one from the others"}
		}
	}
	return nil
}

// refOf returns the local $ref of a mapping and the node of its key.
func refOf(n *yaml.Node) (string, *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		return "", nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, v := n.Content[i], n.Content[i+1]; k.Value == "$ref" && v.Kind == yaml.ScalarNode && strings.HasPrefix(v.Value, "#") {
			return v.Value, k
		}
	}
	return "", nil
}

// refChains follows local $refs through the root file's tree.
type refChains struct {
	root    *yaml.Node
	targets map[string]*yaml.Node
	lengths map[*yaml.Node]int
}

// length returns how many $refs are followed from n, a mapping holding a $ref, before
// reaching something that is not a $ref (or nothing), at most MaxRefChain+1.
func (rc *refChains) length(n *yaml.Node, depth int) int {
	if l, ok := rc.lengths[n]; ok {
		return l
	}
	if depth > MaxRefChain {
		return MaxRefChain + 1
	}
	rc.lengths[n] = 0 // a cycle, which kin-openapi reports: no longer for going round
	ref, at := refOf(n)
	l := 0
	if at != nil {
		l = 1
		if t := rc.target(ref); t != nil {
			if _, next := refOf(t); next != nil {
				l = min(1+rc.length(t, depth+1), MaxRefChain+1)
			}
		}
	}
	rc.lengths[n] = l
	return l
}

// target returns the node a local $ref names, or nil.
func (rc *refChains) target(ref string) *yaml.Node {
	if t, ok := rc.targets[ref]; ok {
		return t
	}
	n := rc.root
	frag := strings.TrimPrefix(strings.TrimPrefix(ref, "#"), "/")
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	if frag != "" {
		for _, step := range strings.Split(frag, "/") {
			step = strings.NewReplacer("~1", "/", "~0", "~").Replace(step)
			for n != nil && n.Kind == yaml.AliasNode {
				n = n.Alias
			}
			switch {
			case n == nil:
			case n.Kind == yaml.MappingNode:
				n = source.MappingValue(n, step)
			case n.Kind == yaml.SequenceNode:
				i, err := strconv.Atoi(step)
				if err != nil || i < 0 || i >= len(n.Content) {
					n = nil
				} else {
					n = n.Content[i]
				}
			default:
				n = nil
			}
		}
	}
	rc.targets[ref] = n
	return n
}
