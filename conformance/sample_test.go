package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
)

// sampler makes schema-valid sample values: a schema's own examples where they
// validate, otherwise values built from the schema (enums, formats, simple patterns,
// bounds, required properties). Values have the types encoding/json decodes into
// (map[string]any, []any, string, float64, bool), so kin-openapi reads them as it reads
// a request.
type sampler struct {
	v31 bool
	// request makes values to send (readOnly properties left out); otherwise values to
	// receive (writeOnly properties left out).
	request bool
}

// maxDepth is how deeply generated values nest; optional properties are filled only in
// the outer levels.
const (
	maxDepth      = 10
	optionalDepth = 2
	hardDepth     = 24
)

func (s sampler) options() []openapi3.SchemaValidationOption {
	opts := []openapi3.SchemaValidationOption{openapi3.VisitAsResponse()}
	if s.request {
		opts[0] = openapi3.VisitAsRequest()
	}
	if s.v31 {
		opts = append(opts, openapi3.EnableJSONSchema2020())
	}
	return opts
}

// check validates v against ref with kin-openapi.
func (s sampler) check(ref *openapi3.SchemaRef, v any) error {
	if ref == nil || ref.Value == nil {
		return nil
	}
	return ref.Value.VisitJSON(v, s.options()...)
}

// sample returns a valid value for ref: the first of examples that validates, else one
// built from the schema. The error says why no valid value was found.
func (s sampler) sample(ref *openapi3.SchemaRef, examples ...any) (any, error) {
	for _, ex := range examples {
		if ex == nil {
			continue
		}
		v, err := normalize(ex)
		if err == nil && s.check(ref, v) == nil {
			return v, nil
		}
	}
	v := s.build(ref, 0)
	if err := s.check(ref, v); err != nil {
		return v, fmt.Errorf("no valid sample: %s", oneLine(err.Error()))
	}
	return v, nil
}

// normalize turns a value decoded from YAML or JSON into what encoding/json gives.
func normalize(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(data, &out)
	return out, err
}

func (s sampler) build(ref *openapi3.SchemaRef, depth int) any {
	if ref == nil || ref.Value == nil {
		return "sample"
	}
	sc := ref.Value
	if sc.Always != nil {
		return "sample"
	}
	if depth > hardDepth {
		// A schema that requires itself has no finite instance; stop with an empty one.
		switch typeOf(sc) {
		case "object":
			return map[string]any{}
		case "array":
			return []any{}
		}
		return "sample"
	}
	if depth > 0 {
		for _, ex := range append([]any{sc.Example}, sc.Examples...) {
			if ex == nil {
				continue
			}
			if v, err := normalize(ex); err == nil && s.check(ref, v) == nil {
				return v
			}
		}
	}
	if sc.Const != nil {
		v, _ := normalize(sc.Const)
		return v
	}
	for _, e := range sc.Enum {
		if e != nil {
			v, _ := normalize(e)
			return v
		}
	}
	if len(sc.OneOf) > 0 || len(sc.AnyOf) > 0 {
		return s.union(ref, depth)
	}
	if len(sc.AllOf) > 0 {
		return s.allOf(ref, depth)
	}
	switch typeOf(sc) {
	case "string":
		return s.str(sc)
	case "integer":
		return number(sc, true)
	case "number":
		return number(sc, false)
	case "boolean":
		return true
	case "array":
		return s.array(sc, depth)
	case "object":
		return s.object(sc, depth)
	}
	return "sample"
}

// typeOf is the schema's type, null aside; inferred from its keywords when it states
// none.
func typeOf(sc *openapi3.Schema) string {
	if sc.Type != nil {
		for _, t := range sc.Type.Slice() {
			if t != "null" {
				return t
			}
		}
	}
	switch {
	case len(sc.Properties) > 0 || sc.AdditionalProperties.Schema != nil || len(sc.Required) > 0:
		return "object"
	case sc.Items != nil:
		return "array"
	case sc.Format != "" || sc.Pattern != "" || sc.MinLength > 0 || sc.MaxLength != nil:
		return "string"
	case sc.Min != nil || sc.Max != nil:
		return "number"
	}
	return ""
}

// union tries each alternative, with the discriminator set, and keeps the first that
// the whole schema accepts.
func (s sampler) union(ref *openapi3.SchemaRef, depth int) any {
	sc := ref.Value
	alts := sc.OneOf
	if len(alts) == 0 {
		alts = sc.AnyOf
	}
	var first any
	for i, alt := range alts {
		built := s.build(alt, depth+1)
		candidates := []any{built}
		if d := sc.Discriminator; d != nil && d.PropertyName != "" {
			if m, ok := built.(map[string]any); ok {
				// The variant's own value for the property (an enum or const) may be the
				// one that selects it; else the mapping's key or the schema's name.
				with := maps.Clone(m)
				with[d.PropertyName] = discriminatorValue(d, alt)
				if _, has := m[d.PropertyName]; has {
					candidates = append(candidates, with)
				} else {
					candidates = []any{with}
				}
			}
		}
		for _, v := range candidates {
			if len(sc.Properties) > 0 || len(sc.AllOf) > 0 {
				own := *sc
				own.OneOf, own.AnyOf, own.Discriminator = nil, nil, nil
				v = merge(s.build(&openapi3.SchemaRef{Value: &own}, depth), v)
			}
			if i == 0 && first == nil {
				first = v
			}
			if s.check(ref, v) == nil {
				return v
			}
		}
	}
	return first
}

// discriminatorValue is the value that selects alt: its key in the mapping, else the
// last segment of its $ref.
func discriminatorValue(d *openapi3.Discriminator, alt *openapi3.SchemaRef) string {
	keys := make([]string, 0, len(d.Mapping))
	for k := range d.Mapping {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if m := d.Mapping[k]; m.Ref != "" && m.Ref == alt.Ref {
			return k
		}
	}
	if alt.Ref != "" {
		return alt.Ref[strings.LastIndex(alt.Ref, "/")+1:]
	}
	return "sample"
}

func (s sampler) allOf(ref *openapi3.SchemaRef, depth int) any {
	sc := ref.Value
	own := *sc
	own.AllOf = nil
	var v any
	if typeOf(&own) != "" {
		v = s.build(&openapi3.SchemaRef{Value: &own}, depth)
	}
	for _, part := range sc.AllOf {
		v = merge(v, s.build(part, depth+1))
	}
	return v
}

// merge joins two objects; of anything else it keeps the first set.
func merge(a, b any) any {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	switch {
	case aok && bok:
		for k, v := range bm {
			if old, ok := am[k]; ok {
				am[k] = merge(old, v)
			} else {
				am[k] = v
			}
		}
		return am
	case a != nil:
		return a
	}
	return b
}

var formats = map[string]string{
	"date-time":     "2024-01-02T03:04:05Z",
	"date":          "2024-01-02",
	"time":          "03:04:05Z",
	"email":         "user@example.com",
	"idn-email":     "user@example.com",
	"uri":           "https://example.com/sample",
	"url":           "https://example.com/sample",
	"iri":           "https://example.com/sample",
	"uri-reference": "/sample",
	"uri-template":  "/sample/{id}",
	"uuid":          "123e4567-e89b-12d3-a456-426614174000",
	"ipv4":          "192.0.2.1",
	"ipv6":          "2001:db8::1",
	"hostname":      "example.com",
	"byte":          "c2FtcGxl",
	"binary":        "sample",
	"duration":      "P1D",
	"int32":         "1",
	"int64":         "1",
	"decimal":       "1.5",
	"number":        "1.5",
	"password":      "secret",
	"regex":         "^a$",
	"json-pointer":  "/a",
}

func (s sampler) str(sc *openapi3.Schema) any {
	v, ok := formats[sc.Format]
	if !ok {
		v = "sample"
	}
	if sc.Pattern != "" {
		if m, ok := fromPattern(sc.Pattern, int(sc.MinLength)); ok {
			v = m
		}
	}
	if n := uint64(len([]rune(v))); n < sc.MinLength {
		// Pad with the last character, which a pattern's final repetition likely
		// accepts, else with "x".
		pad := "x"
		if n > 0 && sc.Pattern != "" {
			pad = string([]rune(v)[n-1])
		}
		v += strings.Repeat(pad, int(sc.MinLength-n))
	}
	if sc.MaxLength != nil && uint64(len([]rune(v))) > *sc.MaxLength {
		v = string([]rune(v)[:*sc.MaxLength])
	}
	return v
}

// number picks 1 when the bounds allow it, else the nearest value they allow, a
// multiple of multipleOf when the schema asks for one.
func number(sc *openapi3.Schema, integer bool) any {
	lo, hi := math.Inf(-1), math.Inf(1)
	loEx, hiEx := false, false
	if sc.Min != nil {
		lo, loEx = *sc.Min, sc.ExclusiveMin.IsTrue()
	}
	if sc.ExclusiveMin.Value != nil && *sc.ExclusiveMin.Value >= lo {
		lo, loEx = *sc.ExclusiveMin.Value, true
	}
	if sc.Max != nil {
		hi, hiEx = *sc.Max, sc.ExclusiveMax.IsTrue()
	}
	if sc.ExclusiveMax.Value != nil && *sc.ExclusiveMax.Value <= hi {
		hi, hiEx = *sc.ExclusiveMax.Value, true
	}
	step := 1.0
	if sc.MultipleOf != nil && *sc.MultipleOf > 0 {
		step = *sc.MultipleOf
	} else if !integer {
		step = 0.5
	}
	inside := func(v float64) bool {
		return (v > lo || !loEx && v == lo) && (v < hi || !hiEx && v == hi)
	}
	v := 1.0
	if sc.MultipleOf != nil && *sc.MultipleOf > 0 {
		v = *sc.MultipleOf
	}
	if !inside(v) {
		switch {
		case !math.IsInf(lo, -1) && v <= lo:
			v = math.Ceil(lo/step) * step
			if !inside(v) {
				v += step
			}
		case !math.IsInf(hi, 1):
			v = math.Floor(hi/step) * step
			if !inside(v) {
				v -= step
			}
		}
	}
	if integer {
		v = math.Round(v)
	}
	return v
}

func (s sampler) array(sc *openapi3.Schema, depth int) any {
	n := max(1, int(min(sc.MinItems, 5)))
	if sc.MaxItems != nil && uint64(n) > *sc.MaxItems {
		n = int(*sc.MaxItems)
	}
	out := make([]any, 0, n)
	if len(sc.PrefixItems) > 0 {
		for _, p := range sc.PrefixItems {
			out = append(out, s.build(p, depth+1))
		}
		return out
	}
	if depth >= maxDepth {
		return out[:0]
	}
	for range n {
		out = append(out, s.build(sc.Items, depth+1))
	}
	if sc.UniqueItems && n > 1 {
		for i := range out {
			if str, ok := out[i].(string); ok {
				out[i] = fmt.Sprintf("%s%d", str, i)
			} else if f, ok := out[i].(float64); ok {
				out[i] = f + float64(i)
			}
		}
	}
	return out
}

func (s sampler) object(sc *openapi3.Schema, depth int) any {
	out := map[string]any{}
	names := make([]string, 0, len(sc.Properties))
	for name := range sc.Properties {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		p := sc.Properties[name]
		required := slices.Contains(sc.Required, name)
		if p != nil && p.Value != nil {
			if s.request && p.Value.ReadOnly || !s.request && p.Value.WriteOnly {
				continue
			}
		}
		if !required && (depth >= optionalDepth || depth >= maxDepth) {
			continue
		}
		if !required && depth > 0 && p != nil && p.Value != nil && p.Value.Deprecated {
			continue
		}
		v := s.build(p, depth+1)
		if !required && s.check(p, v) != nil {
			continue // an optional property with no valid sample (one that requires itself) is left out
		}
		out[name] = v
	}
	if len(out) == 0 && len(names) > 0 {
		// An object with no members cannot be written in every encoding (a deepObject
		// form field has nothing to write); give it its first property that has a
		// valid sample.
		for _, name := range names {
			p := sc.Properties[name]
			if p == nil || p.Value == nil || s.request && p.Value.ReadOnly || !s.request && p.Value.WriteOnly {
				continue
			}
			if v := s.build(p, depth+1); s.check(p, v) == nil {
				out[name] = v
				break
			}
		}
	}
	for _, name := range sc.Required {
		if _, ok := out[name]; !ok {
			if _, declared := sc.Properties[name]; !declared {
				out[name] = s.build(sc.AdditionalProperties.Schema, depth+1)
			}
		}
	}
	if len(out) < int(sc.MinProps) && sc.AdditionalProperties.Schema != nil {
		for i := len(out); i < int(sc.MinProps); i++ {
			out[fmt.Sprintf("key%d", i)] = s.build(sc.AdditionalProperties.Schema, depth+1)
		}
	}
	return out
}

// fromPattern returns a string that pattern matches, built from its syntax tree: the
// first alternative, the least repetition, the first character of a class. ok is false
// when the result does not match (anchors in odd places, lookarounds Go cannot parse).
func fromPattern(pattern string, minLen int) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	writePattern(&b, re.Simplify(), minLen)
	out := b.String()
	m, err := regexp.Compile(pattern)
	if err != nil || !m.MatchString(out) {
		return "", false
	}
	return out, true
}

func writePattern(b *strings.Builder, re *syntax.Regexp, minLen int) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(classRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture:
		writePattern(b, re.Sub[0], minLen)
	case syntax.OpPlus:
		writePattern(b, re.Sub[0], minLen)
	case syntax.OpStar, syntax.OpQuest:
		// none
	case syntax.OpRepeat:
		for range min(re.Min, 64) {
			writePattern(b, re.Sub[0], minLen)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			writePattern(b, sub, minLen)
		}
	case syntax.OpAlternate:
		writePattern(b, re.Sub[0], minLen)
	}
}

// classRune picks a readable character of a class given as ranges.
func classRune(ranges []rune) rune {
	for _, want := range []rune{'a', 'A', '0', '-', '_'} {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= want && want <= ranges[i+1] {
				return want
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < ranges[i]+256; r++ {
			if unicode.IsPrint(r) {
				return r
			}
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'a'
}

// oneLine keeps the first line of a message, without trailing space, cut at 300 bytes.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
