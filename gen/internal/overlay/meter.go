package overlay

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/theory/jsonpath"
	"github.com/theory/jsonpath/registry"
	"github.com/theory/jsonpath/spec"
)

// The work of filters is metered. jsonpath evaluates a filter on each node it tests with
// no count of what that costs: a comparison of two objects walks both, a regular
// expression is compiled anew on each call, length() counts the characters of a string.
// So a target is evaluated as a metered query, the same query written with functions of
// this package's own that charge what they do to the query's work (see MaxQueryWork):
//
//   - each filter starts with tick_(N), which charges N, the filter's own terms (its
//     queries' segments, its functions and comparisons), for each node it tests, and
//     stops every filter of the query once the work is spent;
//   - each comparison A op B is cmp_(A, "op", B), which compares as RFC 9535 says,
//     charging each value it walks, a string by its length;
//   - length, match and search are length_, match_ and search_, which charge by the
//     length of the string, and for the regular expressions by the size of their
//     programs too; an expression is compiled once per document, and refused when its
//     program would be larger than MaxPatternInsts.
//
// count() and value() cost no more than the query of their argument, which the rest of
// the metering (searches, segments) counts.

// Limits on regular expressions in filters.
const (
	// MaxPatternBytes caps the length of a regular expression of match() or search().
	MaxPatternBytes = 1000
	// MaxPatternInsts caps the instructions of its compiled program: repetitions such
	// as (a{1000}){1000} make a short expression a large program.
	MaxPatternInsts = 20_000
	// bytesPerStep is how many bytes of a string (times the instructions of a regular
	// expression, for match and search) make one step of work.
	bytesPerStep = 64
)

// metered names the functions of metered queries: what each standard function becomes.
var metered = map[string]string{"length": "length_", "match": "match_", "search": "search_"}

// rewrite returns the metered query of the JSONPath text, which parses: the same text
// with the functions and comparisons of its filters written as this package's, and each
// filter started with its tick_. (The text as the user wrote it, not jsonpath's
// canonical form, which writes a negated function call without its "!".)
func rewrite(text string) (string, error) {
	r := &rewriter{s: text}
	r.peek()
	out := r.query()
	if r.err == nil && r.peek() != 0 {
		r.fail("unexpected %q", r.s[r.i:])
	}
	return out, r.err
}

// rewriter reads a JSONPath and writes its metered query.
type rewriter struct {
	s    string
	i    int
	cost int // the terms of the filter being read
	err  error
}

func (r *rewriter) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
	r.i = len(r.s)
}

// peek skips blank space and returns the next byte, 0 at the end.
func (r *rewriter) peek() byte {
	for r.i < len(r.s) && strings.IndexByte(" \t\n\r", r.s[r.i]) >= 0 {
		r.i++
	}
	if r.i < len(r.s) {
		return r.s[r.i]
	}
	return 0
}

// consume reads tok if it comes next.
func (r *rewriter) consume(tok string) bool {
	r.peek()
	if strings.HasPrefix(r.s[r.i:], tok) {
		r.i += len(tok)
		return true
	}
	return false
}

// query reads a query, from its "$" or "@": segments in brackets, or shorthands such as
// .name, .*, ..name.
func (r *rewriter) query() string {
	var b strings.Builder
	b.WriteByte(r.s[r.i])
	r.i++
	for r.err == nil {
		at := r.i
		switch r.peek(); {
		case strings.HasPrefix(r.s[r.i:], ".."):
			b.WriteString("..")
			r.i += 2
			b.WriteString(r.shorthand())
		case strings.HasPrefix(r.s[r.i:], "."):
			b.WriteString(".")
			r.i++
			b.WriteString(r.shorthand())
		case strings.HasPrefix(r.s[r.i:], "["):
			b.WriteString(r.segment())
		default:
			r.i = at
			return b.String()
		}
		r.cost++
	}
	return b.String()
}

// shorthand reads what follows "." or "..": a name, "*", or a segment in brackets.
func (r *rewriter) shorthand() string {
	if r.i < len(r.s) && r.s[r.i] == '[' {
		return r.segment()
	}
	start := r.i
	for r.i < len(r.s) && (r.s[r.i] == '*' || isNameByte(r.s[r.i])) {
		r.i++
	}
	return r.s[start:r.i]
}

// isNameByte reports whether c may be part of a member name written without quotes
// (any byte of a character past ASCII included).
func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// segment reads the selectors between brackets.
func (r *rewriter) segment() string {
	var b strings.Builder
	b.WriteByte('[')
	r.i++
	for r.err == nil {
		b.WriteString(r.selector())
		switch {
		case r.consume(","):
			b.WriteByte(',')
		case r.consume("]"):
			return b.String() + "]"
		default:
			r.fail("unexpected %q", r.s[r.i:])
		}
	}
	return b.String()
}

// selector reads one selector: a name, an index, a slice, a wildcard or a filter.
func (r *rewriter) selector() string {
	switch c := r.peek(); {
	case c == '"' || c == '\'':
		return r.str()
	case c == '?':
		r.i++
		outer := r.cost
		r.cost = 1
		expr := r.or()
		cost := r.cost
		r.cost = outer
		return fmt.Sprintf("?tick_(%d) && (%s)", cost, expr)
	default:
		start := r.i
		for r.i < len(r.s) && strings.IndexByte("-0123456789:* \t\n\r", r.s[r.i]) >= 0 {
			r.i++
		}
		if r.i == start {
			r.fail("unexpected %q", r.s[r.i:])
		}
		return r.s[start:r.i]
	}
}

// or reads a logical expression.
func (r *rewriter) or() string {
	parts := []string{r.and()}
	for r.err == nil && r.consume("||") {
		parts = append(parts, r.and())
	}
	return strings.Join(parts, " || ")
}

func (r *rewriter) and() string {
	parts := []string{r.basic()}
	for r.err == nil && r.consume("&&") {
		parts = append(parts, r.basic())
	}
	return strings.Join(parts, " && ")
}

// basic reads a parenthesized or negated expression, a test or a comparison.
func (r *rewriter) basic() string {
	if r.peek() == '!' {
		r.i++
		return "!" + r.basic()
	}
	if r.consume("(") {
		expr := r.or()
		if !r.consume(")") {
			r.fail("unclosed parenthesis")
		}
		return "(" + expr + ")"
	}
	left := r.comparable()
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if r.consume(op) {
			r.cost++
			return fmt.Sprintf("cmp_(%s, %q, %s)", left, op, r.comparable())
		}
	}
	return left
}

// comparable reads a query, a literal or a function call.
func (r *rewriter) comparable() string {
	switch c := r.peek(); {
	case c == '@' || c == '$':
		return r.query()
	case c == '"' || c == '\'':
		return r.str()
	case c == '-' || c >= '0' && c <= '9':
		start := r.i
		for r.i < len(r.s) && strings.IndexByte("-+.0123456789eE", r.s[r.i]) >= 0 {
			r.i++
		}
		return r.s[start:r.i]
	case c >= 'a' && c <= 'z':
		start := r.i
		for r.i < len(r.s) && (r.s[r.i] >= 'a' && r.s[r.i] <= 'z' || r.s[r.i] == '_' || r.s[r.i] >= '0' && r.s[r.i] <= '9') {
			r.i++
		}
		name := r.s[start:r.i]
		if name == "true" || name == "false" || name == "null" {
			return name
		}
		return r.call(name)
	}
	r.fail("unexpected %q", r.s[r.i:])
	return ""
}

// call reads the arguments of a call of the function name.
func (r *rewriter) call(name string) string {
	if !r.consume("(") {
		r.fail("%s is not called", name)
	}
	r.cost++
	if m, ok := metered[name]; ok {
		name = m
	}
	var args []string
	for r.err == nil && !r.consume(")") {
		if len(args) > 0 && !r.consume(",") {
			r.fail("unexpected %q", r.s[r.i:])
		}
		args = append(args, r.or())
	}
	return name + "(" + strings.Join(args, ", ") + ")"
}

// str reads a quoted string, as it is written.
func (r *rewriter) str() string {
	end := skipString(r.s, r.i)
	if end >= len(r.s) {
		r.fail("unclosed string")
		return ""
	}
	start := r.i
	r.i = end + 1
	return r.s[start:r.i]
}

// meter holds what the metered functions of one document share: the query being
// evaluated, whose work they charge, and the regular expressions compiled.
type meter struct {
	q        *query
	patterns map[string]*pattern
	parser   *jsonpath.Parser
	paths    map[string]*jsonpath.Path // metered queries, by text
}

// pattern is a regular expression of match() or search(), compiled, or why not.
type pattern struct {
	re    *regexp.Regexp
	insts int
	err   error // an expression too large; nil for one that is not valid, which matches nothing
}

// newMeter returns a meter with a parser for metered queries.
func newMeter() *meter {
	m := &meter{patterns: map[string]*pattern{}, paths: map[string]*jsonpath.Path{}}
	reg := registry.New()
	for _, f := range []struct {
		name  string
		typ   spec.FuncType
		args  int
		check func([]spec.PathValue) spec.PathValue
	}{
		{"tick_", spec.FuncLogical, 1, m.tick},
		{"cmp_", spec.FuncLogical, 3, m.compare},
		{"length_", spec.FuncValue, 1, m.length},
		{"match_", spec.FuncLogical, 2, func(a []spec.PathValue) spec.PathValue { return m.match(a, true) }},
		{"search_", spec.FuncLogical, 2, func(a []spec.PathValue) spec.PathValue { return m.match(a, false) }},
	} {
		if err := reg.Register(f.name, f.typ, valueArgs(f.args), f.check); err != nil {
			panic(err) // the names are this package's own
		}
	}
	m.parser = jsonpath.NewParser(jsonpath.WithRegistry(reg))
	return m
}

// valueArgs checks that a function has n arguments, each a value.
func valueArgs(n int) spec.Validator {
	return func(args []spec.FuncExprArg) error {
		if len(args) != n {
			return fmt.Errorf("expected %d arguments but found %d", n, len(args))
		}
		for i, a := range args {
			if !a.ConvertsTo(spec.FuncValue) {
				return fmt.Errorf("cannot convert argument %d to Value", i+1)
			}
		}
		return nil
	}
}

// path returns the metered query written text, parsed.
func (m *meter) path(text string) (*jsonpath.Path, error) {
	if p, ok := m.paths[text]; ok {
		return p, nil
	}
	p, err := m.parser.Parse(text)
	if err != nil {
		return nil, err
	}
	m.paths[text] = p
	return p, nil
}

// charge takes n steps from the query's work, and reports whether any remains.
func (m *meter) charge(n int) bool {
	m.q.work -= n
	return m.q.work >= 0 && m.q.err == nil
}

// tick charges a filter's terms for one node it tests: tick_(N).
func (m *meter) tick(args []spec.PathValue) spec.PathValue {
	n, _ := number(spec.ValueFrom(args[0]).Value())
	return spec.Logical(m.charge(int(n)))
}

// valueOf returns what a value argument holds, and whether it holds anything.
func valueOf(v spec.PathValue) (any, bool) {
	if vt := spec.ValueFrom(v); vt != nil {
		return vt.Value(), true
	}
	return nil, false
}

// compare compares as RFC 9535 says: cmp_(A, "op", B). Nothing (a query that selects
// nothing) equals only nothing; < compares two numbers or two strings, else is false.
func (m *meter) compare(args []spec.PathValue) spec.PathValue {
	left, lok := valueOf(args[0])
	op, _ := spec.ValueFrom(args[1]).Value().(string)
	right, rok := valueOf(args[2])
	equal := func() bool { return lok == rok && (!lok || m.equal(left, right, 0)) }
	less := func(a, b any) bool { return lok && rok && m.less(a, b) }
	var res bool
	switch op {
	case "==":
		res = equal()
	case "!=":
		res = !equal()
	case "<":
		res = less(left, right)
	case ">":
		res = less(right, left)
	case "<=":
		res = less(left, right) || equal()
	case ">=":
		res = less(right, left) || equal()
	}
	return spec.Logical(res && m.charge(0))
}

// equal compares two values of the tree or literals, charging each node it walks.
func (m *meter) equal(a, b any, depth int) bool {
	if !m.charge(1) || depth > maxDepth {
		return false
	}
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !m.equal(av, bv, depth+1) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !m.equal(a[i], b[i], depth+1) {
				return false
			}
		}
		return true
	case string:
		b, ok := b.(string)
		return ok && m.charge(min(len(a), len(b))/bytesPerStep) && a == b
	}
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x == y
	}
	return a == b // booleans and null
}

// less reports whether a < b, both numbers or both strings.
func (m *meter) less(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x < y
	}
	x, ok := a.(string)
	y, ok2 := b.(string)
	return ok && ok2 && m.charge(min(len(x), len(y))/bytesPerStep) && x < y
}

// number returns a number of the tree or a literal as a float64.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int64:
		return float64(v), true
	case int:
		return float64(v), true
	case float64:
		return v, true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(rv.Uint()), true
	case reflect.Float32:
		return rv.Float(), true
	}
	return math.NaN(), false
}

// length is RFC 9535's length(), charging a string by its length.
func (m *meter) length(args []spec.PathValue) spec.PathValue {
	v, _ := valueOf(args[0])
	switch v := v.(type) {
	case string:
		if !m.charge(len(v) / bytesPerStep) {
			return nil
		}
		return spec.Value(utf8.RuneCountInString(v))
	case []any:
		return spec.Value(len(v))
	case map[string]any:
		return spec.Value(len(v))
	}
	return nil
}

// match is RFC 9535's match() (whole, the whole string) and search(): whether the
// regular expression of the second argument matches the string of the first. It charges
// the string's length times the expression's program size.
func (m *meter) match(args []spec.PathValue, whole bool) spec.PathValue {
	s, _ := valueOf(args[0])
	expr, _ := valueOf(args[1])
	str, ok := s.(string)
	source, ok2 := expr.(string)
	if !ok || !ok2 {
		return spec.LogicalFalse
	}
	if whole {
		source = `\A(?:` + source + `)\z`
	}
	p := m.compile(source)
	if p.re == nil || !m.charge(1+len(str)*p.insts/bytesPerStep) {
		return spec.LogicalFalse
	}
	return spec.Logical(p.re.MatchString(str))
}

// errPattern is wrapped by the errors of regular expressions too large to compile.
var errPattern = errors.New("a regular expression too large")

// compile compiles a regular expression as RFC 9485 reads it ("." matches any character
// but line breaks), once per document, charging its size. An expression larger than
// the limits is an error of the query; one that is not valid matches nothing.
func (m *meter) compile(source string) *pattern {
	if p, ok := m.patterns[source]; ok {
		if p.err != nil && m.q.err == nil {
			m.q.err = p.err
		}
		return p
	}
	p := &pattern{}
	m.patterns[source] = p
	if !m.charge(1 + len(source)) {
		return p
	}
	if len(source) > MaxPatternBytes {
		p.err = fmt.Errorf("limit exceeded: %w: %d bytes, more than %d", errPattern, len(source), MaxPatternBytes)
		m.q.err = p.err
		return p
	}
	re, err := syntax.Parse(source, syntax.Perl|syntax.DotNL)
	if err != nil {
		return p
	}
	if n := programSize(re); n > MaxPatternInsts {
		p.err = fmt.Errorf("limit exceeded: %w: its program would have more than %d instructions", errPattern, MaxPatternInsts)
		m.q.err = p.err
		return p
	}
	replaceDot(re)
	compiled, err := regexp.Compile(re.String())
	if err != nil {
		return p
	}
	prog, _ := syntax.Compile(re.Simplify())
	p.re, p.insts = compiled, len(prog.Inst)
	m.charge(p.insts)
	return p
}

// programSize estimates, from above, the instructions of the program of re, without
// writing out its repetitions: at most MaxPatternInsts+1.
func programSize(re *syntax.Regexp) int {
	n := 1
	for _, sub := range re.Sub {
		n += programSize(sub)
	}
	switch re.Op {
	case syntax.OpLiteral:
		n += len(re.Rune)
	case syntax.OpRepeat:
		times := re.Max
		if times < 0 {
			times = re.Min + 1
		}
		n *= max(times, 1)
	}
	return min(n, MaxPatternInsts+1)
}

// anyButLineBreaks is what "." matches in RFC 9485.
var anyButLineBreaks, _ = syntax.Parse("[^\n\r]", syntax.Perl)

// replaceDot makes each "." of re match any character but line breaks.
func replaceDot(re *syntax.Regexp) {
	if re.Op == syntax.OpAnyChar {
		*re = *anyButLineBreaks
		return
	}
	for _, sub := range re.Sub {
		replaceDot(sub)
	}
}
