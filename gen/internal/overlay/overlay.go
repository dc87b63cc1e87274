// Package overlay reads OpenAPI Overlays (Overlay Specification 1.0 and 1.1) and applies
// them to a description's YAML node tree, before kin-openapi reads it. An overlay is how
// a user adds x-retry, x-idempotency-key or x-idempotent to a spec they do not own:
//
//	overlay: 1.0.0
//	info: {title: Stripe idempotency keys, version: 1.0.0}
//	actions:
//	  - target: $.paths.*.post        # RFC 9535 JSONPath
//	    update:
//	      x-idempotency-key: Idempotency-Key
//
// The tree keeps the positions of the files its nodes were written in: the description's
// own nodes keep theirs, and a node an action adds is located in the overlay file, so that
// a mistake in what an overlay adds is reported there. Mistakes in the overlay itself (a
// malformed action, a JSONPath that does not parse, an update of the wrong kind) are
// errors located in the overlay file; a target that selects nothing is a warning.
//
// Targets are evaluated with github.com/theory/jsonpath's RFC 9535 selectors on a plain
// copy of the tree (maps, slices and scalars, kept in step with every change), while the
// segments between them are walked here, over the YAML nodes: that keeps each selected
// node's position, selects each node at most once per segment, and bounds the work a
// query may take (see MaxQueryWork).
package overlay

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/theory/jsonpath"
	"go.yaml.in/yaml/v4"
)

// Limits on one overlay.
const (
	// MaxActions caps the actions of one overlay file.
	MaxActions = 10000
	// MaxTargetBytes caps the length of one JSONPath (target or copy).
	MaxTargetBytes = 4096
)

// Overlay is one overlay file, checked: every action well formed and its JSONPath parsed.
type Overlay struct {
	// Path is the overlay file as the user named it, e.g. "overlays/keys.yaml".
	Path string
	// Version is the overlay version the file declares, e.g. "1.0.0".
	Version string
	// Actions are applied in order, each to the result of the one before.
	Actions []*Action
}

// Action is one entry of the overlay's actions.
type Action struct {
	// N numbers the action from 1, as a reader of the file counts.
	N int
	// Target is the JSONPath as written, e.g. "$.paths.*.post".
	Target string
	// Update is the value merged into each selected node; nil when the action has none.
	Update *yaml.Node
	// Copy is the JSONPath of the one node whose value is merged like an update (1.1);
	// "" when none.
	Copy string
	// Remove removes each selected node from the object or array holding it.
	Remove bool

	target, copyFrom *compiledPath
	at, copyAt       *yaml.Node // the target's and the copy's values, for messages
}

// compiledPath is a JSONPath of an action, and the metered query it is evaluated as (see
// meter.go).
type compiledPath struct {
	path    *jsonpath.Path
	metered string
}

// versionPattern matches the overlay versions retrygen applies: 1.0 and 1.1, whatever
// their patch version.
var versionPattern = regexp.MustCompile(`^1\.[01]\.\d+$`)

// minor11 reports whether the overlay follows Overlay 1.1.
func (o *Overlay) minor11() bool { return strings.HasPrefix(o.Version, "1.1.") }

// The fields of the Overlay, Info and Action objects.
var (
	overlayFields = []string{"overlay", "info", "extends", "actions"}
	infoFields    = []string{"title", "version", "description"}
	actionFields  = []string{"target", "description", "update", "remove", "copy"}
)

// Parse checks the node tree of the overlay file at path (as the user named it) and
// returns its actions, or every problem it has, located in the file.
func Parse(path string, root *yaml.Node) (*Overlay, source.ErrorList) {
	p := &parser{path: path}
	o := p.overlay(root)
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return o, nil
}

// parser reads one overlay file's tree and collects what is wrong with it.
type parser struct {
	path string
	errs source.ErrorList
}

func (p *parser) pos(n *yaml.Node) source.Pos {
	if n == nil {
		return source.Pos{File: p.path}
	}
	return source.Pos{File: p.path, Line: n.Line, Col: n.Column}
}

func (p *parser) fail(n *yaml.Node, fix, format string, args ...any) {
	p.errs.Add(&source.Error{Pos: p.pos(n), Msg: fmt.Sprintf(format, args...), Fix: fix})
}

const overlayFix = "start the file with overlay: 1.0.0 (or 1.1.0), an info object with title and version, and a list of actions"

func (p *parser) overlay(root *yaml.Node) *Overlay {
	root = resolve(root)
	if root == nil || root.Kind != yaml.MappingNode {
		p.fail(root, overlayFix, "not an overlay: the file holds %s, not an object with overlay, info and actions", kindName(root))
		return nil
	}
	o := &Overlay{Path: p.path}
	version := value(root, "overlay")
	if version == nil {
		what := "it has no overlay field"
		if value(root, "openapi") != nil || value(root, "swagger") != nil {
			what = "it is an OpenAPI description, not an overlay of one"
		}
		p.fail(root, overlayFix, "not an overlay: %s", what)
		return nil
	}
	if version.Kind != yaml.ScalarNode || !versionPattern.MatchString(version.Value) {
		p.fail(version, "declare overlay: 1.0.0 or overlay: 1.1.0",
			"unsupported overlay version %s: retrygen applies Overlay 1.0 and 1.1", describe(version))
		return nil
	}
	o.Version = version.Value
	p.unknownFields(root, overlayFields, "")
	p.info(root)
	if ext := value(root, "extends"); ext != nil && !isString(ext) {
		p.fail(ext, "write the URI of the description the overlay is for, or leave extends out",
			"extends must be a string, got %s", describe(ext))
	}
	actions := value(root, "actions")
	switch {
	case actions == nil:
		p.fail(root, "add a list of actions, each with a target and an update, copy or remove: true", "not an overlay: it has no actions")
	case actions.Kind != yaml.SequenceNode || len(actions.Content) == 0:
		p.fail(actions, "write actions as a list of at least one action", "actions must be a non-empty list, got %s", describe(actions))
	case len(actions.Content) > MaxActions:
		p.fail(actions, "split the overlay into several files, each passed with -overlay",
			"limit exceeded: %d actions, more than %d", len(actions.Content), MaxActions)
	default:
		for i, a := range actions.Content {
			if act := p.action(o, i+1, resolve(a)); act != nil {
				o.Actions = append(o.Actions, act)
			}
		}
	}
	return o
}

func (p *parser) info(root *yaml.Node) {
	info := value(root, "info")
	if info == nil {
		p.fail(root, "add info: {title: ..., version: ...}", "the overlay has no info object")
		return
	}
	if info.Kind != yaml.MappingNode {
		p.fail(info, "write info as an object with title and version", "info must be an object, got %s", describe(info))
		return
	}
	p.unknownFields(info, infoFields, "info.")
	for _, f := range []string{"title", "version"} {
		v := value(info, f)
		switch {
		case v == nil:
			p.fail(info, "add info."+f, "info has no %s", f)
		case !isString(v):
			p.fail(v, "", "info.%s must be a string, got %s", f, describe(v))
		}
	}
}

// unknownFields reports the keys of the mapping n that are neither one of fields nor an
// extension (x-...).
func (p *parser) unknownFields(n *yaml.Node, fields []string, prefix string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if slices.Contains(fields, k.Value) || strings.HasPrefix(k.Value, "x-") {
			continue
		}
		fix := "the fields are " + strings.Join(fields, ", ") + "; extensions start with x-"
		if near := source.Closest(k.Value, fields); near != "" {
			fix = "did you mean " + prefix + near + "?"
		}
		p.fail(k, fix, "unknown field %s%s", prefix, k.Value)
	}
}

// action checks the nth action, a; it returns nil when a is malformed.
func (p *parser) action(o *Overlay, n int, a *yaml.Node) *Action {
	if a == nil || a.Kind != yaml.MappingNode {
		p.fail(a, "write each action as an object with a target and an update, copy or remove: true",
			"action %d must be an object, got %s", n, describe(a))
		return nil
	}
	before := len(p.errs)
	p.unknownFields(a, actionFields, "")
	act := &Action{N: n}
	target := value(a, "target")
	switch {
	case target == nil:
		p.fail(a, "add target: with a JSONPath such as $.paths.*.post", "action %d has no target", n)
	case !isString(target):
		p.fail(target, "write the target as a JSONPath string such as $.paths.*.post", "action %d: target must be a string, got %s", n, describe(target))
	default:
		act.Target, act.at = target.Value, target
		act.target = p.jsonPath(n, "target", target)
	}
	if d := value(a, "description"); d != nil && !isString(d) {
		p.fail(d, "", "action %d: description must be a string, got %s", n, describe(d))
	}
	if r := value(a, "remove"); r != nil {
		if r.Kind != yaml.ScalarNode || r.Tag != "!!bool" {
			p.fail(r, "write remove: true, or leave it out", "action %d: remove must be true or false, got %s", n, describe(r))
		} else {
			act.Remove = r.Value == "true" || r.Value == "True" || r.Value == "TRUE"
		}
	}
	act.Update = value(a, "update")
	if c := value(a, "copy"); c != nil {
		switch {
		case !o.minor11():
			p.fail(source.MappingKey(a, "copy"), "declare overlay: 1.1.0 to use copy", "action %d: copy is an Overlay 1.1 action; this overlay declares %s", n, o.Version)
		case !isString(c):
			p.fail(c, "write copy as a JSONPath string that selects one node", "action %d: copy must be a string, got %s", n, describe(c))
		default:
			act.Copy, act.copyAt = c.Value, c
			act.copyFrom = p.jsonPath(n, "copy", c)
		}
	}
	modifiers := 0
	for _, set := range []bool{act.Update != nil, value(a, "copy") != nil, act.Remove} {
		if set {
			modifiers++
		}
	}
	switch {
	case modifiers == 0:
		p.fail(a, "give the action an update, a copy, or remove: true", "action %d does nothing: it has no update, copy or remove: true", n)
	case modifiers > 1:
		p.fail(a, "split it into one action per change: an action that removes and adds would read differently in other tools",
			"action %d has more than one of update, copy and remove: true", n)
	}
	if len(p.errs) > before {
		return nil
	}
	return act
}

// jsonPath parses the JSONPath written at n, the value of field ("target" or "copy").
func (p *parser) jsonPath(n int, field string, at *yaml.Node) *compiledPath {
	if len(at.Value) > MaxTargetBytes {
		p.fail(at, "select with a shorter path; several actions may share one update",
			"action %d: limit exceeded: a %s of %d bytes, more than %d", n, field, len(at.Value), MaxTargetBytes)
		return nil
	}
	path, err := jsonpath.Parse(at.Value)
	if err != nil {
		p.fail(at, "write an RFC 9535 JSONPath, such as $.paths.*.post or $.paths['/v1/charges'].post",
			"action %d: %s %q is not a JSONPath: %s", n, field, at.Value, strings.TrimPrefix(err.Error(), "jsonpath: "))
		return nil
	}
	if _, msg := filterSearches(path); msg != "" {
		p.fail(at, "select the nodes by their path from the root; a filter may test values below the node it tests, and compare with one value of the document",
			"action %d: %s %q %s", n, field, at.Value, msg)
		return nil
	}
	metered, err := rewrite(at.Value)
	if err == nil {
		_, err = meterParser.Parse(metered)
	}
	if err != nil {
		p.fail(at, "select the nodes with a simpler path", "action %d: %s %q cannot be evaluated: %v", n, field, at.Value, err)
		return nil
	}
	return &compiledPath{path: path, metered: metered}
}

// meterParser checks that metered queries parse; it evaluates none.
var meterParser = newMeter().parser

// MaxFilterSearches caps the queries inside a target's filters that search (with *, ..,
// a slice, several selectors or a filter) rather than name one value.
const MaxFilterSearches = 8

// filterSearches returns how many queries inside the filters of p search below the node
// a filter tests, or why p would cost too much to evaluate whatever the document: a
// search of the whole document ($.*, $..) inside a filter runs once for each node the
// filter tests; so does a search nested in the filter of a search, once for each node the
// outer one finds; and more than one descendant segment (..) inside filters multiplies
// the same way. A search from the node tested costs at most the nodes below it, which
// selectNodes bounds for the document at hand.
func filterSearches(p *jsonpath.Path) (int, string) {
	c := &costScan{}
	c.query(p.String(), 0, 0) // canonical: names double-quoted, descendants as ..[
	switch {
	case c.err != "":
		return 0, c.err
	case c.descendants > 1:
		return 0, "has more than one descendant segment (..) inside filters"
	case c.searches > MaxFilterSearches:
		return 0, fmt.Sprintf("has %d searches inside filters, more than %d", c.searches, MaxFilterSearches)
	}
	return c.searches, ""
}

// costScan reads the canonical text of a JSONPath query for what makes it costly.
type costScan struct {
	searches, descendants int    // inside filters
	err                   string // why the query is refused
}

// query reads the query that starts at s[i] ("$" or "@"), inside depth filters, and
// returns where it ends, whether it searches, and whether a query inside its own
// filters does.
func (c *costScan) query(s string, i, depth int) (end int, search, inner bool) {
	root := s[i] == '$'
	for i++; i < len(s); {
		descendant := strings.HasPrefix(s[i:], "..[")
		if descendant {
			i += 2
		} else if s[i] != '[' {
			break
		}
		close := bracketEnd(s, i)
		sel, in := c.selectors(s[i+1:close], depth)
		search, inner = search || sel || descendant, inner || in
		if descendant && depth > 0 {
			c.descendants++
		}
		i = close + 1
	}
	if depth > 0 && search {
		if root {
			c.fail("searches the whole document (with $.* or $..) inside a filter, once for every node the filter tests")
		}
		if inner {
			c.fail("nests a search (with *, .., a slice or a filter) in the filter of another one inside a filter")
		}
		c.searches++
	}
	return i, search, inner
}

// selectors reads the selectors of one segment, the text between its brackets, and
// reports whether they may select more than one node, and whether a query inside a
// filter among them searches.
func (c *costScan) selectors(text string, depth int) (search, inner bool) {
	var parts []string
	start, level := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '"', '\'':
			i = skipString(text, i)
		case '[', '(':
			level++
		case ']', ')':
			level--
		case ',':
			if level == 0 {
				parts = append(parts, text[start:i])
				start = i + 1
			}
		}
	}
	parts = append(parts, text[start:])
	search = len(parts) > 1
	for _, part := range parts {
		switch part = strings.TrimSpace(part); {
		case strings.HasPrefix(part, "?"):
			search = true
			inner = c.filter(part[1:], depth+1) || inner
		case strings.HasPrefix(part, `"`), strings.HasPrefix(part, "'"):
		case part == "*" || strings.Contains(part, ":"):
			search = true
		}
	}
	return search, inner
}

// filter reads a filter's expression, inside depth filters, and reports whether a query
// in it searches.
func (c *costScan) filter(text string, depth int) (searched bool) {
	for i := 0; i < len(text); {
		switch ch := text[i]; {
		case ch == '"' || ch == '\'':
			i = skipString(text, i) + 1
		case ch == '@' || ch == '$':
			end, search, _ := c.query(text, i, depth)
			searched = searched || search
			i = end
		default:
			i++
		}
	}
	return searched
}

func (c *costScan) fail(msg string) {
	if c.err == "" {
		c.err = msg
	}
}

// bracketEnd returns the index of the bracket that closes the one at s[i], or the last
// index.
func bracketEnd(s string, i int) int {
	level := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			i = skipString(s, i)
		case '[':
			level++
		case ']':
			if level--; level == 0 {
				return i
			}
		}
	}
	return len(s) - 1
}

// skipString returns the index of the quote that ends the string literal at s[i].
func skipString(s string, i int) int {
	q := s[i]
	for i++; i < len(s) && s[i] != q; i++ {
		if s[i] == '\\' {
			i++
		}
	}
	return i
}

// resolve follows aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < 100; depth++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return resolve(n.Content[0])
	}
	return n
}

// value returns the value of key in mapping n, aliases followed, or nil.
func value(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return resolve(n.Content[i+1])
		}
	}
	return nil
}

func isString(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!str" }

// kindName names the kind of a node as JSON would: "an object", "an array", "a string".
func kindName(n *yaml.Node) string {
	n = resolve(n)
	if n == nil || n.Kind == 0 || n.Kind == yaml.DocumentNode {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "an array"
	}
	switch n.Tag {
	case "!!str":
		return "a string"
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "null"
	}
	return "a scalar"
}

// describe names a node's kind and, for a short scalar, its value: `the string "x"`.
func describe(n *yaml.Node) string {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" || len(n.Value) > 40 {
		return kindName(n)
	}
	if n.Tag == "!!str" {
		return fmt.Sprintf("%s %q", kindName(n), n.Value)
	}
	return kindName(n) + " " + n.Value
}
