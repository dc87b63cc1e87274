package load

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// A generator of random OpenAPI descriptions, written as YAML (block and flow styles
// mixed, block scalars, comments, blank lines, the scalars YAML resolves to other types)
// or as JSON, for comparing decodeTree with kin-openapi's loader.

// gnode is a node of a generated document.
type gnode struct {
	keys  []string // a mapping's keys, with vals
	vals  []*gnode
	items []*gnode // a sequence's items
	seq   bool
	yaml  string // a scalar as written in YAML
	json  string // and in JSON
	block bool   // a string to write as a block scalar when it can be
}

func (n *gnode) isMap() bool { return !n.seq && n.yaml == "" && n.json == "" }

type docGen struct {
	r    *rand.Rand
	json bool
	refs []string // the schemas defined, for $refs
}

func newDocGen(seed uint64, asJSON bool) *docGen {
	return &docGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), json: asJSON}
}

func (g *docGen) chance(p float64) bool { return g.r.Float64() < p }

func mapping(kv ...any) *gnode {
	n := &gnode{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil || kv[i+1] == (*gnode)(nil) {
			continue
		}
		n.keys = append(n.keys, kv[i].(string))
		n.vals = append(n.vals, kv[i+1].(*gnode))
	}
	return n
}

func (n *gnode) set(k string, v *gnode) *gnode {
	if v != nil {
		n.keys = append(n.keys, k)
		n.vals = append(n.vals, v)
	}
	return n
}

func seqOf(items ...*gnode) *gnode { return &gnode{seq: true, items: items} }

// str is a string scalar.
func str(s string) *gnode {
	j, _ := json.Marshal(s)
	return &gnode{yaml: string(j), json: string(j)}
}

// raw is a scalar written as text in YAML (resolved as YAML resolves it), and as js in
// JSON.
func raw(text, js string) *gnode { return &gnode{yaml: text, json: js} }

var words = []string{"pet", "id", "name", "owner", "created", "status", "tag", "kind", "value", "items", "x", "data", "next", "héllo", "with space", "a:b", "#hash", "-dash", "null", "true", "1", "0x1F", "2020-01-02"}

func (g *docGen) word() string { return words[g.r.IntN(len(words))] }

// plainish returns a string written in one of YAML's styles: plain when that reads back
// as the same string, single-quoted, double-quoted.
func (g *docGen) text(s string) *gnode {
	n := str(s)
	if g.json {
		return n
	}
	switch g.r.IntN(3) {
	case 0:
		if s != "" && !strings.ContainsAny(s, ":#,[]{}&*!|>'\"%@`-?\n ") && !strings.ContainsAny(s[:1], "0123456789.+~") &&
			s != "null" && s != "true" && s != "false" && s != "y" && s != "n" {
			n.yaml = s
		}
	case 1:
		if !strings.Contains(s, "\n") {
			n.yaml = "'" + strings.ReplaceAll(s, "'", "''") + "'"
		}
	}
	return n
}

// scalar returns a random scalar of any YAML type, some of them written in the forms
// YAML resolves to another type than JSON's.
func (g *docGen) scalar() *gnode {
	choices := []*gnode{
		raw("42", "42"), raw("-7", "-7"), raw("3.5", "3.5"), raw("1e3", "1e3"), raw("true", "true"),
		raw("false", "false"), raw("null", "null"), raw("0", "0"), raw("12345678901234567890", "12345678901234567890"),
		raw("1.5E-7", "1.5E-7"), raw("-0", "-0"),
	}
	if !g.json {
		choices = append(choices, raw("0x1F", ""), raw("~", ""), raw("2020-06-11T16:32:50-03:00", ""), raw("2021-01-01", ""),
			raw("!md hello", ""), raw("!!str 12", ""), raw("+12", ""), raw("0o17", ""), raw(".5", ""), raw("yes", ""),
			raw("'quoted'", ""), raw("\"dq \\t x\"", ""), raw("plain words here", ""))
	}
	if g.chance(0.3) {
		return g.text(g.word())
	}
	n := choices[g.r.IntN(len(choices))]
	return &gnode{yaml: n.yaml, json: n.json}
}

// value returns arbitrary data: an example, a default, an extension.
func (g *docGen) value(depth int) *gnode {
	switch r := g.r.IntN(10); {
	case depth > 2 || r < 5:
		return g.scalar()
	case r < 7:
		n := seqOf()
		for range g.r.IntN(4) {
			n.items = append(n.items, g.value(depth+1))
		}
		return n
	default:
		n := mapping()
		for i := range g.r.IntN(4) {
			k := g.word() + fmt.Sprint(i)
			if !g.json && g.chance(0.2) {
				k = fmt.Sprint(g.r.IntN(100)) // a key YAML resolves to a number
			}
			n.set(k, g.value(depth+1))
		}
		return n
	}
}

func (g *docGen) description() *gnode {
	lines := []string{"A " + g.word()}
	for range g.r.IntN(4) {
		if g.chance(0.3) {
			lines = append(lines, "")
		}
		lines = append(lines, "more about "+g.word())
	}
	n := g.text(strings.Join(lines, "\n"))
	n.block = len(lines) > 1 && g.chance(0.7)
	if n.block {
		n.yaml = strings.Join(lines, "\n")
	}
	return n
}

func (g *docGen) ref(section, name string) *gnode {
	return mapping("$ref", g.text("#/components/"+section+"/"+name))
}

// schema returns a random schema.
func (g *docGen) schema(depth int) *gnode {
	if len(g.refs) > 0 && g.chance(0.25) {
		name := g.refs[g.r.IntN(len(g.refs))]
		if g.chance(0.01) {
			name = "Missing" // a dangling $ref
		}
		n := g.ref("schemas", name)
		if g.chance(0.2) {
			n.set("description", g.text("next to a $ref"))
		}
		if g.chance(0.1) {
			n.set("x-note", g.value(0))
		}
		return n
	}
	n := mapping()
	types := []string{"string", "integer", "number", "boolean", "object", "array"}
	t := types[g.r.IntN(len(types))]
	if depth > 3 && (t == "object" || t == "array") {
		t = "string"
	}
	n.set("type", g.text(t))
	if g.chance(0.3) {
		n.set("description", g.description())
	}
	switch t {
	case "object":
		props := mapping()
		var required []*gnode
		for i := range 1 + g.r.IntN(4) {
			name := g.word() + fmt.Sprint(i)
			props.set(name, g.schema(depth+1))
			if g.chance(0.4) {
				required = append(required, g.text(name))
			}
		}
		n.set("properties", props)
		if len(required) > 0 {
			n.set("required", seqOf(required...))
		}
		switch g.r.IntN(4) {
		case 0:
			n.set("additionalProperties", raw("true", "true"))
		case 1:
			n.set("additionalProperties", g.schema(depth+1))
		}
	case "array":
		n.set("items", g.schema(depth+1))
	case "string":
		if g.chance(0.3) {
			var enum []*gnode
			for range 1 + g.r.IntN(4) {
				enum = append(enum, g.scalar())
			}
			n.set("enum", seqOf(enum...))
		}
		if g.chance(0.2) {
			n.set("format", g.text("date-time"))
		}
	case "integer", "number":
		if g.chance(0.3) {
			n.set("minimum", raw("0", "0"))
		}
	}
	if g.chance(0.2) {
		n.set("example", g.value(0))
	}
	if g.chance(0.1) {
		n.set("default", g.scalar())
	}
	if g.chance(0.1) && len(g.refs) > 1 {
		one := seqOf(g.ref("schemas", g.refs[0]), g.ref("schemas", g.refs[1]))
		n.set("oneOf", one)
		if g.chance(0.5) {
			n.set("discriminator", mapping("propertyName", g.text("kind"),
				"mapping", mapping("a", g.text("#/components/schemas/"+g.refs[0]), "b", g.text(g.refs[1]))))
		}
	}
	if g.chance(0.1) {
		n.set("x-"+g.word(), g.value(0))
	}
	return n
}

// document returns a random description.
func (g *docGen) document() *gnode {
	version := "3.0.3"
	if g.chance(0.4) {
		version = "3.1.0"
	}
	schemas := mapping()
	for i := range 1 + g.r.IntN(5) {
		name := fmt.Sprintf("S%d", i)
		schemas.set(name, g.schema(0))
		g.refs = append(g.refs, name)
	}
	params := mapping("limit", mapping("name", g.text("limit"), "in", g.text("query"), "schema", g.schema(2)))
	responses := mapping("NotFound", mapping("description", g.text("not found")))
	paths := mapping()
	for i := range 1 + g.r.IntN(4) {
		item := mapping()
		for _, method := range []string{"get", "post", "delete"} {
			if !g.chance(0.5) {
				continue
			}
			op := mapping("operationId", g.text(fmt.Sprintf("%s%d", method, i)))
			if g.chance(0.5) {
				op.set("summary", g.text("does "+g.word()))
			}
			if g.chance(0.5) {
				op.set("tags", seqOf(g.text(g.word()), g.text(g.word())))
			}
			var ps []*gnode
			if g.chance(0.5) {
				ps = append(ps, g.ref("parameters", "limit"))
			}
			if g.chance(0.5) {
				ps = append(ps, mapping("name", g.text("id"), "in", g.text("path"), "required", raw("true", "true"), "schema", g.schema(2)))
			}
			if len(ps) > 0 {
				op.set("parameters", seqOf(ps...))
			}
			if method == "post" {
				op.set("requestBody", mapping("content", mapping("application/json", mapping("schema", g.schema(1)))))
			}
			rs := mapping("200", mapping("description", g.description(),
				"headers", mapping("X-Rate", mapping("schema", g.schema(3))),
				"content", mapping("application/json", mapping("schema", g.schema(1), "example", g.value(0)))))
			if g.chance(0.5) {
				rs.set("404", g.ref("responses", "NotFound"))
			}
			if g.chance(0.2) {
				rs.set("x-codes", g.value(0))
			}
			op.set("responses", rs)
			if g.chance(0.2) {
				op.set("security", seqOf(mapping("oauth", seqOf(g.text("read"), g.text("write")))))
			}
			if g.chance(0.1) {
				op.set("x-retry", g.value(0))
			}
			item.set(method, op)
		}
		if len(item.keys) == 0 {
			item.set("get", mapping("responses", mapping("default", mapping("description", g.text("any")))))
		}
		paths.set(fmt.Sprintf("/p%d/{id}", i), item)
	}
	doc := mapping(
		"openapi", g.text(version),
		"info", mapping("title", g.text("T"), "version", g.text("1.0"), "description", g.description()),
	)
	if g.chance(0.5) {
		doc.set("servers", seqOf(mapping("url", g.text("https://api.example.com/{v}"),
			"variables", mapping("v", mapping("default", g.text("v1"), "enum", seqOf(g.text("v1"), g.text("v2")))))))
	}
	if g.chance(0.3) {
		doc.set("x-top", g.value(0))
	}
	doc.set("paths", paths)
	components := mapping(
		"schemas", schemas,
		"parameters", params,
		"responses", responses,
		"securitySchemes", mapping("oauth", mapping("type", g.text("oauth2"), "flows", mapping(
			"clientCredentials", mapping("tokenUrl", g.text("https://x.example/token"),
				"scopes", mapping("read", g.text("reads"), "write", g.text("writes")))))),
	)
	if g.chance(0.3) {
		components.set("x-owner", g.value(0))
	}
	doc.set("components", components)
	g.oddKeys(doc, "")
	return doc
}

// oddKeys adds, to a few of the mappings under n, keys that name no field but look like
// one: "-" and the Go names of the fields tagged "-" (Extensions, Origin), which the
// decoder leaves out; the empty key; "$ref" beside other fields; "x-" alone; another
// key of the mapping written in other case. Under parent, the key n is the value of, a
// mapping of elements (paths, schemas, properties...) gets an entry of an element's
// shape, and a mapping of strings none.
func (g *docGen) oddKeys(n *gnode, parent string) {
	for _, c := range n.items {
		g.oddKeys(c, parent)
	}
	for i, c := range n.vals {
		g.oddKeys(c, n.keys[i])
	}
	if !n.isMap() || !g.chance(0.06) && !(parent == "components" && g.chance(0.5)) {
		return
	}
	elements := false
	switch parent {
	case "scopes", "mapping", "security":
		return
	case "paths", "schemas", "properties", "parameters", "responses", "content", "headers",
		"securitySchemes", "variables", "examples", "links", "callbacks", "encoding":
		elements = true
	}
	keys := []string{"-", "", "x-", "Extensions", "Origin", "extensions", "origin", "Value", "Ref", "__origin__"}
	if !elements && !slices.ContainsFunc(n.vals, func(v *gnode) bool { return v.seq || v.isMap() }) {
		keys = append(keys, "$ref") // with objects beside it, the loader reads it itself
	}
	if len(n.keys) > 0 {
		k := n.keys[g.r.IntN(len(n.keys))]
		keys = append(keys, strings.ToUpper(k), strings.ToUpper(k[:min(1, len(k))])+k[min(1, len(k)):])
	}
	k := keys[g.r.IntN(len(keys))]
	if slices.Contains(n.keys, k) {
		return
	}
	var v *gnode
	switch {
	case k == "$ref":
		v = g.text("#/components/schemas/" + g.refs[g.r.IntN(len(g.refs))])
	case slices.Contains(n.keys, "$ref"):
		v = g.scalar() // objects beside a $ref leave the document to the loader
	case elements || g.chance(0.5):
		v = mapping("x-owner", g.text(g.word()), "description", g.text("beside"), "type", g.text("string"))
	default:
		v = g.value(0)
	}
	n.set(k, v)
}

// render writes the document as YAML or JSON.
func (g *docGen) render(doc *gnode) string {
	var b strings.Builder
	if g.json {
		g.writeJSON(&b, doc, 0)
		b.WriteString("\n")
		return b.String()
	}
	if g.chance(0.15) {
		g.writeFlow(&b, doc, 1) // a document that starts with "{"
		b.WriteString("\n")
		return b.String()
	}
	if g.chance(0.2) {
		b.WriteString("# a description\n\n")
	}
	g.writeBlockMapping(&b, doc, 0, 1+g.r.IntN(3))
	return b.String()
}

func (g *docGen) writeJSON(b *strings.Builder, n *gnode, indent int) {
	pad := "\n" + strings.Repeat(" ", indent+2)
	compact := g.chance(0.3)
	if compact {
		pad = ""
	}
	switch {
	case n.seq:
		b.WriteString("[")
		for i, c := range n.items {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(pad)
			g.writeJSON(b, c, indent+2)
		}
		b.WriteString("]")
	case n.isMap():
		b.WriteString("{")
		for i, k := range n.keys {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(pad)
			kj, _ := json.Marshal(k)
			b.Write(kj)
			b.WriteString(": ")
			g.writeJSON(b, n.vals[i], indent+2)
		}
		b.WriteString("}")
	default:
		b.WriteString(n.json)
	}
}

func (g *docGen) flowScalar(n *gnode) string {
	if n.block || strings.ContainsAny(n.yaml, ",[]{}#") && !strings.HasPrefix(n.yaml, "\"") && !strings.HasPrefix(n.yaml, "'") {
		return n.json // a double-quoted string
	}
	if n.json == "" && strings.HasPrefix(n.yaml, "plain") {
		return "\"" + n.yaml + "\""
	}
	return n.yaml
}

// writeFlow writes n in flow style, breaking lines, indented by indent, at random.
func (g *docGen) writeFlow(b *strings.Builder, n *gnode, indent int) {
	switch {
	case n.seq:
		b.WriteString("[")
		for i, c := range n.items {
			if i > 0 {
				b.WriteString(", ")
			}
			g.writeFlow(b, c, indent)
		}
		b.WriteString("]")
	case n.isMap():
		b.WriteString("{")
		for i, k := range n.keys {
			if i > 0 {
				b.WriteString(",")
				if g.chance(0.3) {
					b.WriteString("\n" + strings.Repeat(" ", indent+1))
				} else {
					b.WriteString(" ")
				}
			}
			kj, _ := json.Marshal(k)
			b.Write(kj)
			b.WriteString(": ")
			g.writeFlow(b, n.vals[i], indent)
		}
		b.WriteString("}")
	default:
		b.WriteString(g.flowScalar(n))
	}
}

func (g *docGen) writeKey(b *strings.Builder, k string) {
	if strings.ContainsAny(k, ":#{}[],&*!|>'\"%@` -?") || k == "" || strings.ContainsAny(k[:1], "0123456789.+~") ||
		k == "null" || k == "true" || k == "false" {
		if _, err := fmt.Sscan(k, new(int)); err == nil && g.chance(0.5) && !strings.ContainsAny(k, " :") {
			b.WriteString(k) // a key the parser resolves to a number
			return
		}
		kj, _ := json.Marshal(k)
		b.Write(kj)
		return
	}
	b.WriteString(k)
}

// writeBlockMapping writes a mapping's entries in block style at indent, step spaces
// deeper for what they hold.
func (g *docGen) writeBlockMapping(b *strings.Builder, n *gnode, indent, step int) {
	pad := strings.Repeat(" ", indent)
	for i, k := range n.keys {
		if g.chance(0.05) {
			b.WriteString(strings.Repeat(" ", g.r.IntN(indent+4)) + "# a comment\n")
		}
		if g.chance(0.05) {
			b.WriteString("\n")
		}
		if i > 0 || !strings.HasSuffix(b.String(), "- ") {
			b.WriteString(pad)
		}
		g.writeKey(b, k)
		b.WriteString(":")
		g.writeBlockValue(b, n.vals[i], indent, step)
	}
}

// writeBlockValue writes what follows "key:" or "-".
func (g *docGen) writeBlockValue(b *strings.Builder, v *gnode, indent, step int) {
	switch {
	case (v.seq || v.isMap()) && (g.chance(0.15) || len(v.keys) == 0 && len(v.items) == 0):
		b.WriteString(" ")
		g.writeFlow(b, v, indent+step)
		b.WriteString("\n")
	case v.seq:
		b.WriteString("\n")
		in := indent
		if g.chance(0.5) {
			in += step
		}
		for _, c := range v.items {
			b.WriteString(strings.Repeat(" ", in) + "-")
			if c.isMap() && len(c.keys) > 0 && !g.chance(0.15) {
				b.WriteString(" ")
				g.writeBlockMapping(b, c, in+2, step)
				continue
			}
			g.writeBlockValue(b, c, in+2, step)
		}
	case v.isMap():
		b.WriteString("\n")
		g.writeBlockMapping(b, v, indent+step, step)
	case v.block:
		b.WriteString(" |\n")
		for _, line := range strings.Split(v.yaml, "\n") {
			if line != "" {
				b.WriteString(strings.Repeat(" ", indent+step) + line)
			}
			b.WriteString("\n")
		}
	default:
		b.WriteString(" " + v.yaml + "\n")
	}
}
