package build

import (
	"cmp"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// This file names the types the build makes of inline schemas, and the other
// package-level names an operation brings (<Op>Params, <Op>Responses, <Op>Headers).
//
// A name depends on where the schema is, never on which other names exist:
//
//   - An inline schema is named after the nearest named thing — a component schema, the
//     operation (for its request body, responses and parameters) — followed by the path
//     of properties down to it. Each step drops the words the name before it already
//     says ("PaymentIntent" + "payment_method_options" is PaymentIntentMethodOptions);
//     the items of an array take the singular of its name (Permissions → Permission),
//     else Item; the values of a map Value; a union's variant its title or the word its
//     shape or single value gives.
//   - Below an operation, the body's own type is <Op>Request (<Op>Response for a
//     response), and the types inside it start with <Op> alone.
//   - A schema with a title is named after the title when that is no longer than its
//     place's name and no component or fixed name has it; schemas with the same title and
//     content that the title names are one type.
//   - A step adds only the words the name does not already end with; a step that adds
//     nothing is the word of the shape (MessageObject's object is MessageObjectEnum).
//
// Every name is a list of candidates, from the shortest to the one that says most of
// the place: the short name, then a longer one that names the place (the media type of
// a body, where a parameter is sent, the Request or Response word, the property's whole
// name), then the short name followed by the word of the schema's shape (Object, Enum,
// Union), then the step, Of and the type that holds it (OwnerNameOfPet). A candidate is
// granted when no other place asks for it at the same rank and no component, fixed name
// or name granted before has it; the places that ask for the same candidate all move to
// their next one, by the same rule, but for a title, which goes to the place whose name
// it shortens most. So adding a schema or an operation renames nothing but a place whose
// name is exactly the new one's (docs/design.md says where titles make more of it), and
// the number that ends a name is the last resort, for places that only the number tells
// apart.

// site is where a schema is met: the names an inline named type gets there and a
// description of the place for its doc comment (`property "owner" of Pet`).
type site struct {
	// names are the candidates of the name of an inline type made here, preferred first
	// ("PetOwner").
	names []string
	// bases start the candidates of the places inside it (its properties, items,
	// variants), in the same order; nil for names.
	bases []string
	// step is the last word of the place ("PaymentSettings"), whose words the step
	// inside it does not repeat; "" at a named thing, whose last word is used.
	step  string
	where string
	// shapeAfter, when set, is the name that the word of the shape follows in the first
	// candidate, for a step that repeats the end of the name it would follow.
	shapeAfter string
	// of is the last candidate, after the word of the shape: the step, Of, and the name
	// of the type that holds it ("" when the names say it all).
	of string
}

// at is a site of the candidates cands.
func at(where string, cands ...string) site { return site{names: cands, where: where} }

// name is the preferred candidate.
func (s site) name() string { return s.names[0] }

// childBases are what the names of the places inside a type made at s start with.
func (s site) childBases() []string {
	if len(s.bases) > 0 {
		return s.bases
	}
	return s.names
}

// said is what the step inside s need not repeat: the words of s's own step, else the
// last word of the name it starts from ("Pet" + "pet_type" is PetType).
func (s site) said() []string {
	if s.step != "" {
		return names.Words(s.step)
	}
	var buf [16]string
	words := names.AppendWords(buf[:0], s.childBases()[0])
	if len(words) == 0 {
		return nil
	}
	return []string{words[len(words)-1]}
}

// inside is the site a decl was made at, for the names of the places inside it: a
// component's name is its own.
func (b *builder) inside(d *model.Decl) site {
	if at, ok := b.bases[d]; ok {
		return at
	}
	return site{names: []string{d.GoName}}
}

// refSite is the site of a schema a $ref names at a place other than the component
// schemas: named after the last step of the reference, or its last three.
func refSite(ref string) site {
	steps := strings.Split(strings.TrimPrefix(ref[strings.IndexByte(ref, '#')+1:], "/"), "/")
	var long strings.Builder
	for _, st := range steps[max(0, len(steps)-3):] {
		long.WriteString(names.GoName(source.UnescapePointer(st)))
	}
	last := ref
	if i := strings.LastIndexAny(ref, "/#"); i >= 0 {
		last = ref[i+1:]
	}
	return at("schema at "+ref, names.GoName(source.UnescapePointer(last)), long.String())
}

// items is the site of the items of an array met at s: the singular of its name
// ("Permissions" → "Permission"), else the name followed by Item (the items of a
// response body are <Op>ResponseItem).
func (s site) items() site {
	var cands []string
	if s.shapeAfter != "" {
		cands = append(cands, join(s.shapeAfter, "Item")) // GitTree's tree: GitTreeItem
	}
	for _, name := range s.names {
		switch one := singular(name); {
		case repeatsEnd(one):
			// ValidationError's errors: ValidationErrorItem
			words := names.Words(name)
			cands = append(cands, join(strings.TrimSuffix(name, words[len(words)-1]), "Item"))
		case one != name:
			cands = append(cands, one)
		default:
			cands = append(cands, join(name, "Item"))
		}
	}
	cands = append(cands, join(s.names[0], "Item"))
	return site{names: nonEmpty(cands, s.names[0]+"Item"), step: singular(s.step), where: "items of the " + s.where}
}

// values is the site of the values of a map met at s.
func (s site) values(where string) site {
	var cands []string
	for _, name := range s.names {
		cands = append(cands, join(name, "Value"))
	}
	return site{names: nonEmpty(cands, s.names[0]+"Value"), where: where}
}

// member is the site of the property or variant named word of a type made at s: the
// first candidate drops the words s's step already says; the others keep word whole.
func (s site) member(word, where string) site {
	bases := s.childBases()
	trimmed := trimSaid(s.said(), word)
	var cands []string
	for _, base := range bases {
		cands = append(cands, join(base, trimmed))
	}
	if trimmed != word {
		cands = append(cands, join(bases[len(bases)-1], word))
	}
	// The last resort before a number says which name holds which step: Pet's
	// owner_name is OwnerNameOfPet, PetOwner's name NameOfPetOwner.
	m := site{step: word, where: where, of: word + "Of" + bases[0]}
	switch {
	case join(bases[0], trimmed) == "":
		// The step says nothing the name does not end with (MessageObject's object):
		// the word of the shape says it first (MessageObjectEnum).
		m.shapeAfter = bases[0]
	case slices.Contains(s.names, cands[0]):
		// The name of the type that holds it: a variant's property named as the
		// variant (the static of the variant Static) is …StaticObject.
		m.shapeAfter = cands[0]
	}
	m.names = nonEmpty(slices.DeleteFunc(cands, func(c string) bool { return slices.Contains(s.names, c) }), bases[0]+word)
	return m
}

// variant is the site of a union's variant labelled label, made at s. The places
// inside the variant start as the union's do (the label is the variant's own name,
// not a step of the path), then with the label.
//
// The label drops the words the union's whole name says (a title repeats its place);
// the last candidate says which variant it is, by its place in the list ("Second").
func (s site) variant(label string, i int, where string) site {
	bases := s.childBases()
	if label == "" {
		return site{names: slices.Clone(bases), where: where, step: s.step}
	}
	trimmed := trimSaid(names.Words(bases[0]), label)
	v := site{where: where, step: s.step}
	for _, base := range bases {
		v.names = append(v.names, join(base, trimmed))
	}
	if trimmed != label {
		v.names = append(v.names, join(bases[len(bases)-1], label))
	}
	if i < len(ordinals) {
		for _, base := range bases {
			v.names = append(v.names, join(base, ordinals[i]+label))
		}
	}
	v.names = nonEmpty(v.names, bases[0]+label)
	v.bases = append(slices.Clone(bases), v.names...)
	return v
}

// join writes word after base, less the words base already ends with ("Static" after
// "ChunkingStrategyStatic" adds nothing, "ReaderResource" after "TerminalReader" adds
// Resource); "" when word adds nothing.
func join(base, word string) string {
	var bbuf, wbuf [16]string
	bw, ww := names.AppendWords(bbuf[:0], base), names.AppendWords(wbuf[:0], word)
	for k := min(len(bw), len(ww)); k > 0; k-- {
		if !slices.EqualFunc(bw[len(bw)-k:], ww[:k], strings.EqualFold) {
			continue
		}
		rest, ok := cutWords(word, ww[:k])
		switch {
		case !ok:
		case rest == "":
			return ""
		case rest[0] < '0' || rest[0] > '9':
			return base + rest
		}
		break
	}
	return base + word
}

// cutWords is strings.CutPrefix(s, strings.Join(words, "")).
func cutWords(s string, words []string) (string, bool) {
	rest := s
	for _, w := range words {
		var ok bool
		if rest, ok = strings.CutPrefix(rest, w); !ok {
			return s, false
		}
	}
	return rest, true
}

// repeatsEnd reports a name whose last two words are one ("ValidationErrorError").
func repeatsEnd(name string) bool {
	var buf [16]string
	w := names.AppendWords(buf[:0], name)
	return len(w) > 1 && strings.EqualFold(w[len(w)-1], w[len(w)-2])
}

// nonEmpty is cands without the ones that add nothing, else fallback.
func nonEmpty(cands []string, fallback string) []string {
	out := slices.DeleteFunc(cands, func(c string) bool { return c == "" })
	if len(out) == 0 {
		return []string{fallback}
	}
	return out
}

// ordinals name a union's variants by their place, the last resort before a number.
var ordinals = []string{"First", "Second", "Third", "Fourth", "Fifth", "Sixth", "Seventh", "Eighth", "Ninth", "Tenth",
	"Eleventh", "Twelfth", "Thirteenth", "Fourteenth", "Fifteenth", "Sixteenth", "Seventeenth", "Eighteenth", "Nineteenth", "Twentieth"}

// shortOp is an operation's name as the types below its request and responses start
// it: a word that only repeats the one before it in the singular is dropped, as a path
// parameter names one of what the path lists ("PostCustomersCustomerSubscriptions" →
// PostCustomersSubscriptions).
func shortOp(op string) string {
	var buf [16]string
	words := names.AppendWords(buf[:0], op)
	var b strings.Builder
	for i, w := range words {
		if i > 0 && !strings.EqualFold(w, words[i-1]) && strings.EqualFold(singular(words[i-1]), w) {
			continue
		}
		b.WriteString(w)
	}
	return b.String()
}

// trimSaid drops from word the words of said, in any case and place (said
// "PaymentSettings", word "PaymentMethodOptions" → "MethodOptions"); word when nothing
// would be left.
func trimSaid(saidWords []string, word string) string {
	var buf [16]string
	var b strings.Builder
	for _, w := range names.AppendWords(buf[:0], word) {
		if !slices.ContainsFunc(saidWords, func(s string) bool { return sameLower(s, w) }) {
			b.WriteString(w)
		}
	}
	if b.Len() == 0 {
		return word
	}
	out := b.String()
	if r := out[0]; r >= '0' && r <= '9' {
		return word // a name cannot go on with a digit after a dropped word
	}
	return out
}

// sameLower reports strings.ToLower(a) == strings.ToLower(b), which strings.EqualFold
// is not: it folds more ("ſ" and "s" are one to it, not in the lower case).
func sameLower(a, b string) bool {
	if len(a) != len(b) {
		if isASCII(a) && isASCII(b) {
			return false
		}
		return lowerEqual(a, b)
	}
	for i := range len(a) {
		ca, cb := a[i], b[i]
		if ca >= utf8.RuneSelf || cb >= utf8.RuneSelf {
			return lowerEqual(a, b)
		}
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if 'A' <= cb && cb <= 'Z' {
			cb += 'a' - 'A'
		}
		if ca != cb {
			return false
		}
	}
	return true
}

func lowerEqual(a, b string) bool {
	//lint:ignore SA6005 the lower case, not EqualFold's folding, is what is compared
	return strings.ToLower(a) == strings.ToLower(b)
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// singular writes the last word of name in the singular when it reads as an English
// plural ("Permissions" → "Permission", "Entries" → "Entry", "Addresses" → "Address");
// name as it is when it does not.
func singular(name string) string {
	var buf [16]string
	words := names.AppendWords(buf[:0], name)
	if len(words) == 0 {
		return name
	}
	last := words[len(words)-1]
	stem := strings.TrimSuffix(name, last)
	lower := strings.ToLower(last)
	switch {
	case len(lower) < 4 || strings.ToUpper(last) == last:
		return name // "Bus", an initialism ("IDs" is kept: its singular reads as a field)
	case strings.HasSuffix(lower, "ies"):
		return stem + last[:len(last)-3] + "y"
	case strings.HasSuffix(lower, "sses"), strings.HasSuffix(lower, "ches"), strings.HasSuffix(lower, "shes"), strings.HasSuffix(lower, "xes"):
		return stem + last[:len(last)-2]
	case strings.HasSuffix(lower, "ss"), strings.HasSuffix(lower, "us"), strings.HasSuffix(lower, "is"):
		return name
	case strings.HasSuffix(lower, "s"):
		return stem + last[:len(last)-1]
	}
	return name
}

// shapeWord is the word that says what a declaration is, the last candidate of its
// name before a number.
func shapeWord(k model.DeclKind) string {
	switch k {
	case model.StructDecl:
		return "Object"
	case model.EnumDecl:
		return "Enum"
	case model.UnionDecl:
		return "Union"
	}
	return "Type"
}

// kindOf is the kind of declaration a shape makes.
func kindOf(sh shape) model.DeclKind {
	d := &model.Decl{}
	setKind(d, sh)
	return d.Kind
}

// declKindOf is the kind of declaration the schema sr makes.
func declKindOf(sr *openapi3.SchemaRef) model.DeclKind {
	if sr == nil || sr.Value == nil {
		return model.AliasDecl
	}
	return kindOf(shapeOf(sr.Value))
}

// combinerWord is the keyword by which s stands for another schema: AllOf, OneOf or
// AnyOf.
func combinerWord(s *openapi3.Schema) string {
	switch {
	case len(s.AllOf) > 0:
		return "AllOf"
	case len(s.OneOf) > 0:
		return "OneOf"
	}
	return "AnyOf"
}

// claim is a package-level name the build asked for, decided once every place has
// asked (see resolveNames).
type claim struct {
	target *string
	cands  []string
	owner  string
	titled bool // cands[0] is a title's, cands[1] the place's own name
}

// claimName sets *target to the first of cands and asks for it; resolveNames decides.
func (b *builder) claimName(target *string, owner string, cands ...string) *claim {
	// Ranks stay aligned across places: a candidate repeated at the next rank is kept,
	// so that two places that part at rank 1 compare their own rank-1 names.
	var list []string
	for _, c := range cands {
		if c == "" && len(list) > 0 {
			c = list[len(list)-1]
		}
		if c != "" {
			list = append(list, c)
		}
	}
	*target = list[0]
	c := &claim{target: target, cands: list, owner: owner}
	b.claims = append(b.claims, c)
	return c
}

// claimSite asks for the name of a decl made at the site s, first (a title's) before
// the site's own.
func (b *builder) claimSite(d *model.Decl, s site, first string) *claim {
	cands := []string{first}
	if s.shapeAfter != "" {
		cands = append(cands, join(s.shapeAfter, shapeWord(d.Kind)))
	}
	cands = append(cands, s.names...)
	// The word of the shape, even after the same word, rather than a number.
	cands = append(cands, cmp.Or(join(s.name(), shapeWord(d.Kind)), s.name()+shapeWord(d.Kind)))
	if s.of != "" {
		cands = append(cands, s.of)
	}
	c := b.claimName(&d.GoName, s.where, cands...)
	c.titled = first != ""
	return c
}

// resolveNames grants the names asked for: rank by rank, a candidate that one place
// alone asks for and that nothing holds yet; the places that shared one try their next.
// A title is the exception: when only places named by their titles ask for it, it goes
// to the one whose own name it shortens most (see titleOrder), so that a title met again
// elsewhere with other content takes the name from none but a longer place.
// A place that runs out of candidates takes its last with a number, in the order of its
// first candidate and its place, so that the number too depends on the places that ask
// for that name only.
func (b *builder) resolveNames() {
	pending := b.claims
	b.claims = nil
	for rank := 0; len(pending) > 0; rank++ {
		asking := map[string][]*claim{}
		for _, c := range pending {
			if rank < len(c.cands) {
				asking[c.cands[rank]] = append(asking[c.cands[rank]], c)
			}
		}
		var next []*claim
		var spent []*claim
		for _, c := range pending {
			switch {
			case rank >= len(c.cands):
				spent = append(spent, c)
				continue
			case b.pkg.Taken(c.cands[rank]):
				next = append(next, c)
				continue
			}
			group := asking[c.cands[rank]]
			win := group[0]
			if len(group) > 1 {
				win = nil
				if rank == 0 && !slices.ContainsFunc(group, func(c *claim) bool { return !c.titled }) {
					win = slices.MinFunc(group, titleOrder)
				}
			}
			if c == win {
				*c.target = b.pkg.UniqueFor(c.cands[rank], c.owner)
			} else {
				next = append(next, c)
			}
		}
		slices.SortStableFunc(spent, func(x, y *claim) int {
			return strings.Compare(x.cands[0]+"\x00"+x.owner, y.cands[0]+"\x00"+y.owner)
		})
		for _, c := range spent {
			*c.target = b.pkg.UniqueFor(c.cands[len(c.cands)-1], c.owner)
		}
		pending = next
	}
}

// titleOrder orders the places that ask for one title: the one whose own name (its next
// candidate) is the longest first, then by their candidates in sort order, then by their
// place.
func titleOrder(x, y *claim) int {
	if d := len(y.cands[1]) - len(x.cands[1]); d != 0 {
		return d
	}
	if d := slices.Compare(x.cands, y.cands); d != 0 {
		return d
	}
	return strings.Compare(x.owner, y.owner)
}

// typeKey tells types apart by what they are, not by name: a named type by its
// declaration, so that two types that ask for the same name (decided only once every
// place has asked) stay two.
func typeKey(t *model.Type) string {
	switch {
	case t == nil:
		return "<nil>"
	case t.Kind == model.KindNamed:
		return fmt.Sprintf("%p", t.Decl)
	case t.Kind == model.KindBuiltin:
		return string(t.Builtin)
	}
	return strconv.Itoa(int(t.Kind)) + "(" + typeKey(t.Elem) + ")"
}

// ref stands for d's name in a doc comment written before the name is decided;
// fixDocs writes the name in its place.
func (b *builder) ref(d *model.Decl) string {
	if b.refIndex == nil {
		b.refIndex = map[*model.Decl]int{}
	}
	i, ok := b.refIndex[d]
	if !ok {
		i = len(b.refDecls)
		b.refIndex[d] = i
		b.refDecls = append(b.refDecls, d)
	}
	return "\x00" + strconv.Itoa(i) + "\x00"
}

// fixDocs writes the decided names in the doc comments ref marked.
func (b *builder) fixDocs() {
	fix := func(s string) string {
		if !strings.Contains(s, "\x00") {
			return s
		}
		parts := strings.Split(s, "\x00")
		for i := 1; i < len(parts); i += 2 {
			if n, err := strconv.Atoi(parts[i]); err == nil && n < len(b.refDecls) {
				parts[i] = b.refDecls[n].GoName
			}
		}
		return strings.Join(parts, "")
	}
	for _, d := range b.decls {
		d.Doc = fix(d.Doc)
	}
}

// nameEnumValues names every enum constant after its type, once types have their names:
// the type's name and the value's, else the value's with its letter case in words, so
// that the values "add" and "Add" are Add and AddCapitalized. In an enum whose values
// only signs tell apart, every sign before a digit is a word: Etc/GMT+1, Etc/GMT-1 and
// Etc/GMT-13 are EtcGMTPlus1, EtcGMTMinus1 and EtcGMTMinus13. A constant that meets a
// type's name (Pet's kind_dog beside kind: dog) adds the word Value. A 3.1 const
// member's title stands for its value in all of this. Only values that spell one name
// apart ("Foo Bar", "Foo-Bar") are numbered.
func (b *builder) nameEnumValues() {
	n := 0
	for _, d := range b.decls {
		n += len(d.Values)
	}
	values := make([]*model.EnumValue, 0, n)
	spelled, cases, owners := make([]string, 0, n), make([]string, 0, n), make([]string, 0, n)
	texts := make([]string, 0, n) // the title or value each of spelled is the name of
	for _, d := range b.decls {
		if len(d.Values) == 0 {
			continue
		}
		signed := signsTellApart(d.Values)
		start := len(values)
		for _, v := range d.Values {
			if v.GoName != "" {
				continue
			}
			text, _ := v.Value.(string) // what the name spells, for the word of its case
			name := d.GoName + enumSuffix(v.Value)
			if signed && text != "" {
				name = d.GoName + enumSuffix(spellSigns(text))
			}
			if title := strings.TrimSpace(b.valueTitles[v]); title != "" && !slices.Contains(spelled[start:], d.GoName+enumSuffix(title)) {
				// A 3.1 const member's title names it (GUILD_TEXT: ChannelTypesGuildText);
				// of two members of one title, the second is named by its value.
				name, text = d.GoName+enumSuffix(title), title
			}
			values, spelled, texts = append(values, v), append(spelled, name), append(texts, text)
		}
		if distinct(spelled[start:]) {
			cases = append(cases, make([]string, len(values)-start)...)
		} else {
			cases = append(cases, caseWords(texts[start:], spelled[start:])...)
		}
		owner := "a value of " + d.GoName
		for range values[start:] {
			owners = append(owners, owner)
		}
	}
	goNames := grantBy(b.pkg, len(values), func(i int) string { return owners[i] }, func(i, rank int) (string, bool) {
		switch rank {
		case 0, 3:
			return spelled[i], true
		case 1:
			return spelled[i] + cases[i], true
		case 2:
			return spelled[i] + "Value", true
		}
		return "", false
	})
	for i, name := range goNames {
		values[i].GoName = name
	}
}

// signsTellApart reports an enum two of whose string values spell one name but for
// the signs before their digits ("+1", "-1").
func signsTellApart(values []*model.EnumValue) bool {
	if !slices.ContainsFunc(values, func(v *model.EnumValue) bool {
		str, ok := v.Value.(string)
		return ok && spellSigns(str) != str
	}) {
		return false
	}
	signed := map[string]string{} // a value's name → its name with its signs in words
	for _, v := range values {
		str, ok := v.Value.(string)
		if !ok {
			continue
		}
		name, words := enumSuffix(str), enumSuffix(spellSigns(str))
		if other, ok := signed[name]; ok && other != words {
			return true
		}
		signed[name] = words
	}
	return false
}

// grant names places in the scope of namer, each from its candidates, preferred first
// (see grantBy).
func grant(namer *names.Namer, cands [][]string, owners []string) []string {
	return grantBy(namer, len(cands), func(i int) string { return owners[i] }, func(i, rank int) (string, bool) {
		if rank < len(cands[i]) {
			return cands[i][rank], true
		}
		return "", false
	})
}

// grantBy names n places in the scope of namer, owner(i) saying what place i is, each
// from its candidates, cand(i, rank) the one of place i at rank (false past its last): rank by
// rank, a candidate that one place alone asks for and that namer does not hold yet is
// granted, and the places that shared one try their next. A place out of candidates
// takes its last with a number, in the order of the places. So a place's name depends
// on the places that ask for the same names, not on the order they ask in.
func grantBy(namer *names.Namer, n int, owner func(i int) string, cand func(i, rank int) (string, bool)) []string {
	out := make([]string, n)
	pending := make([]int, n)
	for i := range pending {
		pending[i] = i
	}
	asked := make([]string, n) // the candidates of the pending places at this rank
	has := make([]bool, n)
	for rank := 0; len(pending) > 0; rank++ {
		asked, has = asked[:len(pending)], has[:len(pending)]
		for k, i := range pending {
			asked[k], has[k] = cand(i, rank)
			if has[k] {
				out[i] = asked[k] // the last candidate, kept for a place that runs out
			}
		}
		shared := sharedAt(asked, has)
		next := pending[:0] // filtered in place: a place is read before its slot is written
		for k, i := range pending {
			switch {
			case !has[k]:
				out[i] = namer.UniqueFor(out[i], owner(i))
			case shared(k) || namer.Taken(asked[k]):
				next = append(next, i)
			default:
				out[i] = namer.UniqueFor(asked[k], owner(i))
			}
		}
		pending = next
	}
	return out
}

// sharedAt reports, for the k-th of asked that has[k], whether another of asked that
// has one is the same.
func sharedAt(asked []string, has []bool) func(k int) bool {
	if len(asked) <= 16 { // a look through the others, rather than a map
		return func(k int) bool {
			for j := range asked {
				if j != k && has[j] && asked[j] == asked[k] {
					return true
				}
			}
			return false
		}
	}
	count := make(map[string]int, len(asked))
	for k, c := range asked {
		if has[k] {
			count[c]++
		}
	}
	return func(k int) bool { return count[asked[k]] > 1 }
}

// distinct reports whether no two of list are the same.
func distinct(list []string) bool {
	if len(list) <= 16 { // a look through the others, rather than a map
		for i := range list {
			if slices.Contains(list[:i], list[i]) {
				return false
			}
		}
		return true
	}
	seen := make(map[string]bool, len(list))
	for _, s := range list {
		if seen[s] {
			return false
		}
		seen[s] = true
	}
	return true
}

// spellSigns writes in words a sign before a digit ("Etc/GMT-1" → "Etc/GMT Minus 1",
// "+1" → " Plus 1"), which names drop.
func spellSigns(s string) string {
	if !signedDigit(s) {
		return s
	}
	var b strings.Builder
	for i := range len(s) {
		digit := i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'
		switch {
		case s[i] == '+' && digit:
			b.WriteString(" Plus ")
		case s[i] == '-' && digit:
			b.WriteString(" Minus ")
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// caseWords is, for each of texts whose name in spelled another of texts spells too,
// the word of its letter case (see caseWord); "" for the others.
func caseWords(texts, spelled []string) []string {
	out := make([]string, len(texts))
	shared := func(i int) bool {
		return slices.Contains(spelled[:i], spelled[i]) || slices.Contains(spelled[i+1:], spelled[i])
	}
	if len(spelled) > 16 { // a map, rather than a look through the others for each
		count := make(map[string]int, len(spelled))
		for _, n := range spelled {
			count[n]++
		}
		shared = func(i int) bool { return count[spelled[i]] > 1 }
	}
	for i, t := range texts {
		if shared(i) {
			out[i] = caseWord(t)
		}
	}
	return out
}

// signedDigit reports a sign before a digit in s.
func signedDigit(s string) bool {
	for i := 1; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' && (s[i-1] == '+' || s[i-1] == '-') {
			return true
		}
	}
	return false
}

// caseWord says how s writes its letters when not all in lower case, which names do not
// tell: "Upper" ("ADD"), "Capitalized" ("Add"), "MixedCase" ("aDd"); "" for "add".
func caseWord(s string) string {
	lower, upper := strings.ToLower(s), strings.ToUpper(s)
	switch {
	case s == lower:
		return ""
	case s == upper:
		return "Upper"
	}
	r, n := utf8.DecodeRuneInString(s)
	if unicode.IsUpper(r) && s[n:] == strings.ToLower(s[n:]) {
		return "Capitalized"
	}
	return "MixedCase"
}

// titled is what the title of an inline schema gives its name.
type titled struct {
	name string // the title's Go name
	key  string // the title's Go name and the content, by which the places find the one type
}

// scanTitles finds the inline schemas whose title can name them: those whose title's Go
// name no component and no fixed name has.
func (b *builder) scanTitles() {
	var titledSchemas []*openapi3.Schema
	seen := map[*openapi3.Schema]bool{}
	var walk func(sr *openapi3.SchemaRef)
	walk = func(sr *openapi3.SchemaRef) {
		if sr == nil || sr.Value == nil || sr.Ref != "" || seen[sr.Value] {
			return
		}
		seen[sr.Value] = true
		if sr.Value.Title != "" {
			titledSchemas = append(titledSchemas, sr.Value)
		}
		schemasInside(sr.Value, walk)
	}
	if doc := b.spec.Doc; doc.Components != nil {
		for _, sr := range doc.Components.Schemas {
			if sr != nil && sr.Value != nil && sr.Ref == "" {
				seen[sr.Value] = true // the component itself has its name
				schemasInside(sr.Value, walk)
			}
		}
	}
	placedSchemas(b.spec.Doc, walk)
	b.nameTitles(titledSchemas)
}

// schemasInside calls visit with each schema written directly inside s: its properties,
// items, additional properties, the members of its allOf, anyOf and oneOf, and its not.
func schemasInside(s *openapi3.Schema, visit func(*openapi3.SchemaRef)) {
	for _, p := range s.Properties {
		visit(p)
	}
	visit(s.Items)
	visit(s.AdditionalProperties.Schema)
	for _, group := range [][]*openapi3.SchemaRef{s.AllOf, s.AnyOf, s.OneOf} {
		for _, m := range group {
			visit(m)
		}
	}
	visit(s.Not)
}

// placedSchemas calls visit with the schema of every parameter, request body and
// response of doc, in its components and its operations; not the component schemas.
func placedSchemas(doc *openapi3.T, visit func(*openapi3.SchemaRef)) {
	params := func(ps openapi3.Parameters) {
		for _, p := range ps {
			if p != nil && p.Value != nil {
				visit(p.Value.Schema)
			}
		}
	}
	content := func(c openapi3.Content) {
		for _, mt := range c {
			if mt != nil {
				visit(mt.Schema)
			}
		}
	}
	if doc.Components != nil {
		for _, pr := range doc.Components.Parameters {
			params(openapi3.Parameters{pr})
		}
		for _, rr := range doc.Components.Responses {
			if rr != nil && rr.Value != nil {
				content(rr.Value.Content)
			}
		}
		for _, rb := range doc.Components.RequestBodies {
			if rb != nil && rb.Value != nil {
				content(rb.Value.Content)
			}
		}
	}
	if doc.Paths == nil {
		return
	}
	for _, item := range doc.Paths.Map() {
		if item == nil {
			continue
		}
		params(item.Parameters)
		for _, kop := range item.Operations() {
			params(kop.Parameters)
			if kop.RequestBody != nil && kop.RequestBody.Value != nil {
				content(kop.RequestBody.Value.Content)
			}
			if kop.Responses != nil {
				for _, rr := range kop.Responses.Map() {
					if rr != nil && rr.Value != nil {
						content(rr.Value.Content)
					}
				}
			}
		}
	}
}

// nameTitles gives each of schemas whose title's Go name no component and no fixed name
// has that name, and the key by which the places of one title and content find one type.
func (b *builder) nameTitles(schemas []*openapi3.Schema) {
	b.titles = map[*openapi3.Schema]titled{}
	var named []*openapi3.Schema
	var titleNames []string
	for _, s := range schemas {
		if name := names.GoName(s.Title); !b.componentNames[name] && !b.pkg.Taken(name) {
			named = append(named, s)
			titleNames = append(titleNames, name)
		}
	}
	keys, ok := newContentKeys().all(named)
	for i, s := range named {
		if ok[i] {
			b.titles[s] = titled{name: titleNames[i], key: titleNames[i] + "\x00" + keys[i]}
		}
	}
}

// contentKeys gives schemas keys that are equal exactly when the schemas' JSON is, and
// none to a schema that does not marshal. A schema's key is its JSON with each inline
// schema in it written as a $ref that stands for that schema's key, so that a schema is
// marshalled once, not again inside every schema that holds it. Its methods may be
// called from several goroutines: the $refs stand for keys by the order they are met,
// which then varies, but equal keys still have one $ref.
type contentKeys struct {
	mu  sync.Mutex
	key map[*openapi3.Schema]string // a schema's key, "" for none
	ref map[string]string           // a key → the $ref that stands for it
}

func newContentKeys() *contentKeys {
	return &contentKeys{key: map[*openapi3.Schema]string{}, ref: map[string]string{}}
}

// all is the keys of schemas, and whether each has one, marshalled by as many
// goroutines as there are processors to run them.
func (k *contentKeys) all(schemas []*openapi3.Schema) ([]string, []bool) {
	keys, ok := make([]string, len(schemas)), make([]bool, len(schemas))
	var next atomic.Int64
	work := func() {
		inside := map[*openapi3.Schema]bool{}
		for i := int(next.Add(1) - 1); i < len(schemas); i = int(next.Add(1) - 1) {
			keys[i], ok[i] = k.within(schemas[i], inside)
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(schemas)/64) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return keys, ok
}

// of is the key of s.
func (k *contentKeys) of(s *openapi3.Schema) (string, bool) {
	return k.within(s, map[*openapi3.Schema]bool{})
}

// within is the key of s, met inside the schemas inside holds, one goroutine's.
func (k *contentKeys) within(s *openapi3.Schema, inside map[*openapi3.Schema]bool) (string, bool) {
	k.mu.Lock()
	key, done := k.key[s]
	k.mu.Unlock()
	if done {
		return key, key != ""
	}
	if inside[s] {
		return "", false // a schema inside itself does not marshal
	}
	inside[s] = true
	defer delete(inside, s)
	c := *s
	ok := true
	inline := func(sr *openapi3.SchemaRef) *openapi3.SchemaRef {
		if sr == nil || sr.Ref != "" || sr.Value == nil {
			return sr // marshalled as it is: a $ref, or null
		}
		key, good := k.within(sr.Value, inside)
		if !good {
			ok = false
			return sr
		}
		k.mu.Lock()
		ref, found := k.ref[key]
		if !found {
			// No $ref of a document starts with a NUL.
			ref = "\x00" + strconv.Itoa(len(k.ref))
			k.ref[key] = ref
		}
		k.mu.Unlock()
		return &openapi3.SchemaRef{Ref: ref}
	}
	inlines := func(srs openapi3.SchemaRefs) openapi3.SchemaRefs {
		if len(srs) == 0 {
			return srs
		}
		out := make(openapi3.SchemaRefs, len(srs))
		for i, sr := range srs {
			out[i] = inline(sr)
		}
		return out
	}
	// The schemas inside that the JSON holds: all of them, unless the schema is a
	// boolean one; an additionalProperties of true or false holds none.
	if s.Always == nil {
		c.OneOf, c.AnyOf, c.AllOf = inlines(s.OneOf), inlines(s.AnyOf), inlines(s.AllOf)
		c.Not, c.Items = inline(s.Not), inline(s.Items)
		if len(s.Properties) > 0 {
			c.Properties = make(openapi3.Schemas, len(s.Properties))
			for name, p := range s.Properties {
				c.Properties[name] = inline(p)
			}
		}
		if s.AdditionalProperties.Has == nil {
			c.AdditionalProperties.Schema = inline(s.AdditionalProperties.Schema)
		}
	}
	key = ""
	if ok {
		if data, err := json.Marshal(c); err == nil {
			key = string(data)
		}
	}
	k.mu.Lock()
	k.key[s] = key
	k.mu.Unlock()
	return key, key != ""
}

// firstWord is the first of the words of s, or "".
func firstWord(s string) string {
	var buf [16]string
	if words := names.AppendWords(buf[:0], s); len(words) > 0 {
		return words[0]
	}
	return ""
}
