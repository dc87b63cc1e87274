package gen

// Hostile specs (docs/reliability.md, group D) beyond the fields TestInjection covers: every
// place of a spec whose text can reach the generated client, each with every payload.

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/internal/build"
	"github.com/retrygen/retrygen/gen/internal/emit"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/internal/longtest"
)

// hostileTemplate is a JSON spec in which each place that spec text can reach carries a
// marker «field»; hostileSpecText fills them. «field|ref» is the same text escaped as a
// JSON pointer token, for $refs.
const hostileTemplate = `{
  "openapi": "3.0.3",
  "info": {
    "title": "T«info.title»",
    "version": "1«info.version»",
    "description": "«info.description»",
    "contact": {"name": "«info.contact»", "url": "https://example.com/«info.contact»"},
    "license": {"name": "L«info.license»"}
  },
  "servers": [{
    "url": "https://api.example.com/«server.url»{v}",
    "description": "«server.description»",
    "variables": {"v": {"default": "v«server.variable»", "enum": ["v«server.variable»", "w"], "description": "«server.variable.description»"}}
  }],
  "tags": [{"name": "t«tag.name»", "description": "«tag.description»"}],
  "security": [{"key«security.name»": []}],
  "paths": {
    "/items/{id}/x«path.key»": {
      "parameters": [
        {"name": "id", "in": "path", "required": true, "description": "«path.parameter.description»", "schema": {"type": "string"}}
      ],
      "get": {
        "operationId": "getItem«operation.operationId»",
        "tags": ["t«tag.name»"],
        "summary": "«operation.summary»",
        "description": "«operation.description»",
        "parameters": [
          {"name": "q«query.name»", "in": "query", "description": "«parameter.description»", "schema": {"type": "string", "default": "«parameter.default»"}},
          {"name": "H«header.name»", "in": "header", "schema": {"type": "string"}},
          {"name": "c«cookie.name»", "in": "cookie", "schema": {"type": "string"}}
        ],
        "responses": {
          "200": {"description": "«response.description»", "content": {"application/json«response.mediatype»": {"schema": {"$ref": "#/components/schemas/Item«schema.name|ref»"}}}},
          "404": {"description": "not found", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}
        }
      },
      "post": {
        "operationId": "putItem",
        "x-idempotency-key": "Key«idempotency.header»",
        "x-retry": {"initialDelay": "1s«xretry.initialDelay»", "jitter": "full«xretry.jitter»", "statusCodes": ["503«xretry.status»"]},
        "requestBody": {"description": "«requestBody.description»", "required": true, "content": {"application/json«request.mediatype»": {"schema": {"$ref": "#/components/schemas/Item«schema.name|ref»"}}}},
        "responses": {"204": {"description": "ok"}}
      }
    }
  },
  "components": {
    "securitySchemes": {"key«security.name»": {"type": "apiKey", "in": "header", "name": "K«security.header»", "description": "«security.description»"}},
    "schemas": {
      "Item«schema.name»": {
        "type": "object", "title": "«schema.title»", "description": "«schema.description»",
        "required": ["p«property.name»"],
        "properties": {
          "p«property.name»": {"type": "string", "description": "«property.description»", "default": "«schema.default»", "example": "«schema.example»"},
          "e": {"type": "string", "enum": ["«enum.value»", "fixed"]},
          "pet": {"$ref": "#/components/schemas/Pet"}
        }
      },
      "Problem": {"type": "object", "properties": {"detail": {"type": "string"}}},
      "Pet": {
        "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
        "discriminator": {"propertyName": "kind«discriminator.property»", "mapping": {"cat«discriminator.value»": "#/components/schemas/Cat", "dog": "#/components/schemas/Dog"}}
      },
      "Cat": {"type": "object", "required": ["kind«discriminator.property»"], "properties": {"kind«discriminator.property»": {"type": "string"}}},
      "Dog": {"type": "object", "required": ["kind«discriminator.property»"], "properties": {"kind«discriminator.property»": {"type": "string"}}},
      "Shape": {"oneOf": [
        {"type": "object", "title": "«variant.title»", "properties": {"a": {"type": "string"}}},
        {"type": "object", "title": "Other", "properties": {"b": {"type": "integer"}}}
      ]}
    }
  }
}
`

var hostileMarker = regexp.MustCompile(`«([a-zA-Z.]+)(\|ref)?»`)

// hostileField is one place of hostileTemplate.
type hostileField struct {
	name string
	// base is what the field holds when it carries no payload.
	base string
	// twin returns the harmless text to compare the client made with payload p against:
	// one for which the generator takes the same decisions (nil: always base).
	twin func(p string) string
	// literal: the payload reaches a string literal of the client, which must hold it
	// exactly (percent-decoded, for a path).
	literal bool
	// allowed are literals the field may produce that do not hold the payload.
	allowed []string
	// ident: the payload shapes identifiers; a program cannot refer to the client's
	// names when the field carries one.
	ident bool
	// checked: the generator validates the text and refuses most payloads, so the field
	// is tried on its own rather than in a group.
	checked bool
}

func (f hostileField) twinOf(p string) string {
	if f.twin == nil {
		return f.base
	}
	return f.twin(p)
}

// tagTwin keeps what decides how a property is encoded and where its field goes:
// whether its wire name can be written in a json tag, and how the name sorts among the
// other properties of its schema.
func tagTwin(prefix string, others ...string) func(string) string {
	return func(p string) string {
		name := prefix + p
		for _, c := range []string{"X", "z", ",", "z,"} {
			if build.ValidTagName(prefix+c) != build.ValidTagName(name) {
				continue
			}
			same := true
			for _, o := range others {
				same = same && strings.Compare(prefix+c, o) == strings.Compare(name, o)
			}
			if same {
				return c
			}
		}
		return p // a name another property has: nothing harmless behaves alike
	}
}

// mediaTwin keeps what decides how a body is encoded: the kind of media type, and
// whether it is a wildcard.
func mediaTwin(p string) string {
	ct := "application/json" + p
	switch {
	case build.IsJSONMedia(ct) && !strings.Contains(ct, "*"):
		return ""
	case build.IsJSONMedia(ct):
		return "; a=*"
	case strings.Contains(ct, "*"):
		return "*"
	}
	return "X"
}

// pathTwin keeps what decides how a path is cut: braces, the query and its separators,
// and percent escapes. Everything else becomes X.
func pathTwin(p string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case strings.ContainsRune("{}?&=;%/#", r):
			return r
		case r >= '0' && r <= '9', r >= 'a' && r <= 'f', r >= 'A' && r <= 'F':
			return r
		}
		return 'X'
	}, p)
}

var hostileFields = []hostileField{
	{name: "info.title", base: "X"},
	{name: "info.version", base: "X"},
	{name: "info.description", base: "X"},
	{name: "info.contact", base: "X"},
	{name: "info.license", base: "X"},
	{name: "server.url", base: "X", literal: true},
	{name: "server.description", base: "X"},
	{name: "server.variable", base: "X", literal: true},
	{name: "server.variable.description", base: "X"},
	{name: "tag.name", base: "X"},
	{name: "tag.description", base: "X"},
	{name: "security.name", base: "X", literal: true, ident: true, checked: true},
	{name: "security.header", base: "X", literal: true, checked: true},
	{name: "security.description", base: "X"},
	{name: "operation.operationId", base: "X", literal: true, ident: true},
	{name: "operation.summary", base: "X"},
	{name: "operation.description", base: "X"},
	{name: "path.parameter.description", base: "X"},
	{name: "parameter.description", base: "X"},
	{name: "parameter.default", base: "X"},
	{name: "query.name", base: "X", literal: true, ident: true},
	{name: "header.name", base: "X", literal: true, ident: true, checked: true},
	{name: "cookie.name", base: "X", literal: true, ident: true, checked: true},
	{name: "path.key", base: "X", twin: pathTwin, literal: true},
	{name: "response.description", base: "X"},
	{name: "response.mediatype", base: "", twin: mediaTwin, literal: true, ident: true},
	{name: "requestBody.description", base: "X"},
	{name: "request.mediatype", base: "", twin: mediaTwin, literal: true, ident: true, allowed: []string{"application/octet-stream"}},
	{name: "idempotency.header", base: "", literal: true, checked: true},
	{name: "xretry.initialDelay", base: "", checked: true},
	{name: "xretry.jitter", base: "", checked: true},
	{name: "xretry.status", base: "", checked: true},
	{name: "schema.name", base: "X", ident: true, checked: true},
	{name: "schema.title", base: "X"},
	{name: "schema.description", base: "X"},
	{name: "schema.default", base: "X"},
	{name: "schema.example", base: "X"},
	{name: "property.name", base: "X", twin: tagTwin("p", "e", "pet"), literal: true, ident: true},
	{name: "property.description", base: "X"},
	{name: "enum.value", base: "X", twin: func(p string) string {
		if p == "fixed" {
			return p // the other value: a duplicate is dropped
		}
		return "X"
	}, literal: true},
	{name: "discriminator.property", base: "X", twin: tagTwin("kind"), literal: true, ident: true},
	{name: "discriminator.value", base: "X", literal: true},
	{name: "variant.title", base: "X", ident: true},
}

// hostileFieldByName returns the field of hostileFields with that name.
func hostileFieldByName(name string) hostileField {
	for _, f := range hostileFields {
		if f.name == name {
			return f
		}
	}
	panic("no hostile field " + name)
}

// hostilePayloads are TestInjection's payloads and more: lone delimiters, directives,
// every line break Go or a YAML parser knows, invalid UTF-8, names Go reserves, URL
// syntax and a 10 kB line without spaces.
var hostilePayloads = func() []string {
	extra := []string{
		"", "\x00", "\"", "`", "'", "\\", "*/", "/*", "//", "\n", "\r", "\u2028", "\u2029", "\u0085",
		"\xff\xfe invalid utf-8 \xc0", "a\tb\vc\fd", "\x1b[31mred\x1b[0m",
		"\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c",
		"func", "type", "import", "package main", "init", "_", "nil", "string", "iota",
		"%", "%00", "%2e%2e/%2F", "../../etc/passwd", "?a=b&c=d#f", "a b+c", "{{.}}", "${X}",
		"<script>alert(1)</script>", "\"); os.Exit(3); (\"",
		"\n}\n\nfunc init() { os.WriteFile(\"pwn\", nil, 0o644) }\n\nfunc _() {\n",
		"//go:build ignore\n//go:generate rm -rf /\n//line evil.go:1\n//export Evil",
		strings.Repeat("x", 10240),
	}
	var out []string
	for _, p := range append(slices.Clone(injectionPayloads), extra...) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}()

// jsonStringText escapes s for the inside of a JSON string, leaving bytes that are not
// UTF-8 as they are, so that the loader meets them.
func jsonStringText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// hostileSpecText fills the template: each field named in values gets its value, the
// others their base.
func hostileSpecText(values map[string]string) []byte {
	return []byte(hostileMarker.ReplaceAllStringFunc(hostileTemplate, func(m string) string {
		sub := hostileMarker.FindStringSubmatch(m)
		v, ok := values[sub[1]]
		if !ok {
			v = hostileFieldByName(sub[1]).base
		}
		if sub[2] != "" {
			v = source.EscapePointer(v)
		}
		return jsonStringText(v)
	}))
}

// generateFile loads the spec text as a file named name in dir and generates a client.
func generateFile(dir, name string, text []byte, pkg string) ([]byte, error) {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, text, 0o644); err != nil {
		return nil, err
	}
	spec, err := Load(path, LoadOptions{})
	if err != nil {
		return nil, err
	}
	return Generate(spec, GenerateOptions{Package: pkg, Command: name})
}

// locatedError returns nil when err refuses the spec naming the file and a line or a
// JSON pointer for every problem, as users see them, and else says what is wrong.
func locatedError(err error) error {
	var fe *emit.FormatError
	if errors.As(err, &fe) {
		return fmt.Errorf("internal error: %v", err)
	}
	var list ErrorList
	var one *Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = ErrorList{one}
	default:
		return fmt.Errorf("not a spec error (%T): %v", err, err)
	}
	for _, e := range list {
		if e.Pos.File == "" || e.Pos.Line == 0 && e.Pointer == "" {
			return fmt.Errorf("unlocated: %q", e.Error())
		}
	}
	return nil
}

// clientChecks are the checks of the oracle that need only the client made with a
// payload: it parses, declares no init function, writes every comment as // lines free
// of control characters, and every string literal unquotes.
func clientChecks(t testing.TB, src []byte) (*ast.File, error) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "client.go", src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("does not parse: %v", err)
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "init" {
			return nil, errors.New("declares func init")
		}
	}
	for _, c := range f.Comments {
		for _, line := range c.List {
			if !strings.HasPrefix(line.Text, "//") {
				return nil, fmt.Errorf("block comment %.60q", line.Text)
			}
			if i := strings.IndexFunc(line.Text, func(r rune) bool { return r != '\t' && dropRuneForTest(r) }); i >= 0 {
				return nil, fmt.Errorf("comment keeps control character %U: %.60q", []rune(line.Text[i:])[0], line.Text)
			}
			if !utf8.ValidString(line.Text) {
				return nil, fmt.Errorf("comment is not UTF-8: %.60q", line.Text)
			}
		}
	}
	if _, err := literalValues(f); err != nil {
		return nil, err
	}
	return f, nil
}

// dropRuneForTest lists what must never be in a comment: C0 and C1 controls, DEL, the
// byte order mark, line and paragraph separators, and bidirectional formatting.
func dropRuneForTest(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r == 0xFEFF, r == 0x2028, r == 0x2029:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}

// literalValues lists the unquoted string literals of f, with repeats. A struct tag counts
// as the values it holds (`discriminator:"kind"` holds kind), and a JSON list of strings
// among them as those strings.
func literalValues(f *ast.File) ([]string, error) {
	var out []string
	var bad error
	tags := map[*ast.BasicLit]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if fd, ok := n.(*ast.Field); ok && fd.Tag != nil {
			tags[fd.Tag] = true
		}
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			v, err := strconv.Unquote(lit.Value)
			if err != nil && bad == nil {
				bad = fmt.Errorf("literal %.60s does not unquote: %v", lit.Value, err)
			}
			if !tags[lit] {
				out = append(out, v)
				return true
			}
			values, err := tagValues(v)
			if err != nil && bad == nil {
				bad = fmt.Errorf("tag %.60s: %v", lit.Value, err)
			}
			out = append(out, values...)
		}
		return true
	})
	return out, bad
}

// tagValues returns the values of the struct tag tag, a JSON list of strings as those
// strings.
func tagValues(tag string) ([]string, error) {
	var out []string
	for tag = strings.TrimLeft(tag, " "); tag != ""; tag = strings.TrimLeft(tag, " ") {
		_, rest, ok := strings.Cut(tag, ":")
		if !ok {
			return nil, fmt.Errorf("no value in %q", tag)
		}
		quoted, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil, err
		}
		tag = rest[len(quoted):]
		value, _ := strconv.Unquote(quoted)
		var list []any
		if strings.HasPrefix(value, "[") && json.Unmarshal([]byte(value), &list) == nil {
			for _, x := range list {
				if s, ok := x.(string); ok {
					out = append(out, s)
				}
			}
			continue
		}
		out = append(out, value)
	}
	return out, nil
}

// hostileTwin is what the oracle compares with: the twin client's syntax tree shape and
// its string literals.
type hostileTwin struct {
	shape []string
	lits  map[string]bool
}

func newHostileTwin(f *ast.File) (*hostileTwin, error) {
	lits, err := literalValues(f)
	if err != nil {
		return nil, err
	}
	tw := &hostileTwin{shape: astShape(f), lits: map[string]bool{}}
	for _, v := range lits {
		tw.lits[v] = true
	}
	return tw, nil
}

// compareWithTwin is the rest of the oracle: the client made with the payload in fields
// has the syntax tree of the one made with their twins (comments, names and literal
// values aside), and the literals the payload adds hold it exactly. Fields that reach no
// literal must add none.
func compareWithTwin(fields []hostileField, payload string, got *ast.File, twin *hostileTwin) error {
	if g, w := astShape(got), twin.shape; !slices.Equal(g, w) {
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		return fmt.Errorf("syntax tree differs from the twin's at node %d of %d/%d", i, len(g), len(w))
	}
	literal, carried, path := false, false, false
	var allowed []string
	for _, f := range fields {
		literal = literal || f.literal
		carried = carried || f.carries(payload)
		path = path || f.name == "path.key"
		allowed = append(allowed, f.allowed...)
	}
	gotLits, _ := literalValues(got)
	holds := func(v string) bool {
		if strings.Contains(v, payload) {
			return true
		}
		u, err := url.PathUnescape(v)
		return path && err == nil && strings.Contains(u, payload)
	}
	for _, v := range gotLits {
		switch {
		case twin.lits[v] || slices.Contains(allowed, v):
		case !literal:
			return fmt.Errorf("payload of a field that reaches no literal made literal %.80q", v)
		case !holds(v) && !(path && strings.ContainsAny(payload, "{}?#")):
			return fmt.Errorf("literal %.80q does not hold the payload", v)
		}
	}
	if carried && !slices.ContainsFunc(gotLits, holds) {
		return errors.New("no literal holds the payload")
	}
	return nil
}

// carries reports whether payload p in f must appear, exactly, in a literal.
func (f hostileField) carries(p string) bool {
	switch {
	case !f.literal || p == f.twinOf(p):
		return false
	case f.name == "path.key" && strings.ContainsAny(p, "{}?#"):
		return false // cut into parameters and query; a fragment is not sent
	case f.name == "request.mediatype" && strings.Contains(p, "*"):
		return false // a wildcard is sent as application/octet-stream
	}
	return true
}

// hostileRun generates clients from hostileTemplate, remembering the twins it made.
type hostileRun struct {
	t     testing.TB
	dir   string
	twins map[string]*hostileTwin // by spec text; nil when the twin is refused
}

// hostileOutcome is what one payload in some fields gave.
type hostileOutcome struct {
	accepted bool
	err      error  // a deviation from the oracle
	src      []byte // the client, when the spec was accepted
}

// try generates with payload in fields and applies the oracle, comparing with the
// client made with the fields' twins.
func (r *hostileRun) try(fields []hostileField, payload string) hostileOutcome {
	r.t.Helper()
	values, twinValues := map[string]string{}, map[string]string{}
	for _, f := range fields {
		values[f.name] = payload
		twinValues[f.name] = f.twinOf(payload)
	}
	src, err := generateFile(r.dir, "spec.json", hostileSpecText(values), "client")
	if err != nil {
		if lerr := locatedError(err); lerr != nil {
			return hostileOutcome{err: lerr}
		}
		return hostileOutcome{}
	}
	f, err := clientChecks(r.t, src)
	if err != nil {
		return hostileOutcome{accepted: true, err: err, src: src}
	}
	twinText := hostileSpecText(twinValues)
	twin, ok := r.twins[string(twinText)]
	if !ok {
		twinSrc, err := generateFile(r.dir, "twin.json", twinText, "client")
		if err == nil {
			tf, err := parser.ParseFile(token.NewFileSet(), "twin.go", twinSrc, parser.ParseComments)
			if err != nil {
				return hostileOutcome{accepted: true, err: fmt.Errorf("twin does not parse: %v", err), src: src}
			}
			if twin, err = newHostileTwin(tf); err != nil {
				return hostileOutcome{accepted: true, err: fmt.Errorf("twin: %v", err), src: src}
			}
		}
		// A twin may be refused where the payload is not (a path parameter only the
		// payload declares): then there is nothing to compare with.
		r.twins[string(twinText)] = twin
	}
	if twin == nil {
		return hostileOutcome{accepted: true, src: src}
	}
	return hostileOutcome{accepted: true, err: compareWithTwin(fields, payload, f, twin), src: src}
}

// bisect tries payload in all of fields at once; when that fails the oracle or is
// refused, it tries each half, down to single fields, so that every outcome given to
// report belongs to one field.
func (r *hostileRun) bisect(fields []hostileField, payload string, report func(hostileField, hostileOutcome)) {
	o := r.try(fields, payload)
	if len(fields) > 1 && (o.err != nil || !o.accepted) {
		r.bisect(fields[:len(fields)/2], payload, report)
		r.bisect(fields[len(fields)/2:], payload, report)
		return
	}
	for _, f := range fields {
		report(f, o)
	}
}

// hostileUnits groups the fields for TestHostileFields: the fields whose text the
// generator checks (and may refuse) one by one; the others in two groups, those that
// reach only comments and names and those that reach literals, each group tried with
// the payload in all its fields at once.
func hostileUnits() [][]hostileField {
	var units [][]hostileField
	var comments, literals []hostileField
	for _, f := range hostileFields {
		switch {
		case f.checked:
			units = append(units, []hostileField{f})
		case f.literal:
			literals = append(literals, f)
		default:
			comments = append(comments, f)
		}
	}
	return append(units, comments, literals)
}

// TestHostileFields puts every payload in every field of hostileTemplate. Each client
// must pass the oracle of docs/reliability.md (group D) against its twin, or the spec must be
// refused with a located error. A group of fields that fails or is refused is tried
// again half by half, so that every result belongs to one field. Then, per payload,
// one spec carries it in all the fields that accepted it, and that client must
// type-check.
func TestHostileFields(t *testing.T) {
	longtest.Heavy(t)
	r := &hostileRun{t: t, dir: t.TempDir(), twins: map[string]*hostileTwin{}}
	for _, f := range hostileFields {
		if o := r.try([]hostileField{f}, f.base); !o.accepted || o.err != nil {
			t.Fatalf("%s: the template does not generate: %v", f.name, o.err)
		}
	}
	accepted, rejected, deviations := 0, 0, 0
	acceptedBy := map[string][]string{} // payload → fields
	for i, p := range hostilePayloads {
		if !utf8.ValidString(p) {
			// Not UTF-8: the document is refused as a whole, whichever field holds it.
			o := r.try(hostileFields, p)
			if o.accepted || o.err != nil {
				deviations++
				t.Errorf("payload %d %.40q, not UTF-8: accepted %v, %v", i, p, o.accepted, o.err)
				continue
			}
			rejected += len(hostileFields)
			continue
		}
		for _, unit := range hostileUnits() {
			r.bisect(unit, p, func(f hostileField, o hostileOutcome) {
				switch {
				case o.err != nil:
					deviations++
					t.Errorf("%s, payload %d %.40q: %v", f.name, i, p, o.err)
				case o.accepted:
					accepted++
					acceptedBy[p] = append(acceptedBy[p], f.name)
				default:
					rejected++
				}
			})
		}
	}
	tried := len(hostilePayloads) * len(hostileFields)
	if accepted+rejected+deviations != tried {
		t.Errorf("counted %d outcomes for %d tries", accepted+rejected+deviations, tried)
	}
	t.Logf("%d payloads × %d fields = %d tries: %d passed the oracle, %d refused with a located error, %d deviations",
		len(hostilePayloads), len(hostileFields), tried, accepted, rejected, deviations)

	checked := 0
	for i, p := range hostilePayloads {
		if len(acceptedBy[p]) == 0 {
			continue
		}
		values := map[string]string{}
		for _, name := range acceptedBy[p] {
			values[name] = p
		}
		src, err := generateFile(r.dir, "all.json", hostileSpecText(values), "client")
		if err != nil {
			if lerr := locatedError(err); lerr != nil {
				t.Errorf("payload %d %.40q in %d fields at once: %v", i, p, len(values), lerr)
			}
			continue
		}
		if err := typeCheckClient(src); err != nil {
			t.Errorf("payload %d %.40q in %d fields at once: client does not type-check: %v", i, p, len(values), err)
		}
		checked++
	}
	t.Logf("%d clients with a payload in every field that accepts it type-check", checked)
}

// TestHeaderWireNames (D7): header and cookie parameter names and idempotency-key
// headers that are not RFC 9110 tokens are refused with a located error; the odd names
// that are tokens are kept exactly, in quoted literals.
func TestHeaderWireNames(t *testing.T) {
	dir := t.TempDir()
	fields := []struct{ field, prefix, msg string }{
		{"header.name", "H", "is not a valid HTTP field name"},
		{"cookie.name", "c", "is not a valid cookie name"},
		{"idempotency.header", "Key", "x-idempotency-key must be a header name"},
	}
	// Each is appended to the field's prefix (H, c, Key), which is a token.
	bad := []string{":Y", " Y", "\r\nInjected: 1", "\nY", "\rY", "(Y)", "\"Y", ",Y", ";Y", "=Y",
		"/Y", "@Y", "[Y]", "{Y}", "\\Y", "?Y", "é", "\x00Y", "\tY", "\u202eY", "\x7f", strings.Repeat("Y", 300)}
	for _, f := range fields {
		for _, suffix := range bad {
			_, err := generateFile(dir, "spec.json", hostileSpecText(map[string]string{f.field: suffix}), "client")
			if err == nil {
				t.Errorf("%s %q: accepted", f.field, f.prefix+suffix)
				continue
			}
			if lerr := locatedError(err); lerr != nil {
				t.Errorf("%s %q: %v", f.field, f.prefix+suffix, lerr)
			}
			if !strings.Contains(err.Error(), f.msg) {
				t.Errorf("%s %q: got %v, want %q", f.field, f.prefix+suffix, err, f.msg)
			}
		}
		for _, suffix := range []string{"`", "'", "!#$%&'*+-.^_`|~", "-Y_Z.1"} {
			src, err := generateFile(dir, "spec.json", hostileSpecText(map[string]string{f.field: suffix}), "client")
			if err != nil {
				t.Errorf("%s %q: %v", f.field, f.prefix+suffix, err)
				continue
			}
			file, err := clientChecks(t, src)
			if err != nil {
				t.Errorf("%s %q: %v", f.field, f.prefix+suffix, err)
				continue
			}
			if lits, _ := literalValues(file); !slices.Contains(lits, f.prefix+suffix) {
				t.Errorf("%s %q: no literal holds the wire name exactly", f.field, f.prefix+suffix)
			}
		}
	}
	// Media types become Content-Type and Accept values: control characters are refused.
	for _, field := range []string{"request.mediatype", "response.mediatype"} {
		for _, suffix := range []string{"\r\nInjected: 1", "\nY", "\x00", "\x7f", "; charset=\x1b"} {
			_, err := generateFile(dir, "spec.json", hostileSpecText(map[string]string{field: suffix}), "client")
			if err == nil || !strings.Contains(err.Error(), "is not a valid header value") {
				t.Errorf("%s %q: err = %v, want a refused media type", field, suffix, err)
				continue
			}
			if lerr := locatedError(err); lerr != nil {
				t.Errorf("%s %q: %v", field, suffix, lerr)
			}
		}
	}
	// Empty names.
	for _, replace := range []string{`"name": "HX"`, `"name": "cX"`, `"x-idempotency-key": "Key"`} {
		empty := strings.Replace(replace, "HX", "", 1)
		empty = strings.Replace(empty, "cX", "", 1)
		empty = strings.Replace(empty, "Key", "", 1)
		text := strings.Replace(string(hostileSpecText(nil)), replace, empty, 1)
		if text == string(hostileSpecText(nil)) {
			t.Fatalf("template has no %s", replace)
		}
		if _, err := generateFile(dir, "empty.json", []byte(text), "client"); err == nil {
			t.Errorf("%s: empty name accepted", replace)
		} else if lerr := locatedError(err); lerr != nil {
			t.Errorf("%s: %v", replace, lerr)
		}
	}
}

// typeCheckClient type-checks one generated file against the repository's runtime
// package and the standard library.
func typeCheckClient(src []byte) error {
	imp, err := clientImporter()
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "client_gen.go", src, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	var first error
	conf := types.Config{Importer: imp, Error: func(err error) {
		if first == nil {
			first = err
		}
	}}
	conf.Check("retrygen.test/client", fset, []*ast.File{f}, nil)
	return first
}

// runtimeImporter serves the runtime packages, type-checked from this repository's
// source, and the standard library from export data.
type runtimeImporter struct {
	mu  sync.Mutex
	std types.Importer
	own map[string]*types.Package // by import path
}

func (r *runtimeImporter) Import(path string) (*types.Package, error) {
	if pkg, ok := r.own[path]; ok {
		return pkg, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.std.Import(path)
}

var clientImporter = sync.OnceValues(func() (types.Importer, error) {
	imp := &runtimeImporter{std: importer.Default(), own: map[string]*types.Package{}}
	// In dependency order: runtime imports its internal packages, and runtime/wire and
	// runtime/webhook import them.
	for _, dir := range []string{"runtime/internal/membody", "runtime/internal/giveup", "runtime/internal/sent", "runtime/internal/shown", "runtime/internal/outer", "runtime/internal/dedupe", "runtime", "runtime/wire", "runtime/webhook"} {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		var parsed []*ast.File
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			parsed = append(parsed, f)
		}
		path := "github.com/retrygen/retrygen/" + dir
		conf := types.Config{Importer: imp}
		pkg, err := conf.Check(path, fset, parsed, nil)
		if err != nil {
			return nil, fmt.Errorf("type-check %s: %w", dir, err)
		}
		imp.own[path] = pkg
	}
	return imp, nil
})
