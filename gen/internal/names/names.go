// Package names turns spec text into Go identifiers and keeps the identifiers of one scope
// unique. Every Go identifier the generator writes is decided with it, during the build
// stage; the emitter does no name arithmetic of its own.
package names

import (
	"go/token"
	"go/types"
	"maps"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// EmptyName is what GoName returns for text with nothing usable in it.
const EmptyName = "Empty"

// MaxNameLen caps the identifier GoName makes from one piece of spec text; a longer one
// drops the words it repeats, then is cut, and the Namer marks cut names that collide with a numeric suffix. A name joined from
// several pieces (an inline type named after its schema and property) can be longer: each
// piece is capped, not the whole.
const MaxNameLen = 100

// initialisms are written in capitals, as Go code writes them (ID, URL, HTTP).
var initialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "CSV": true, "DNS": true,
	"EOF": true, "GUID": true, "HTML": true, "HTTP": true, "HTTPS": true, "ID": true, "IP": true,
	"JSON": true, "JWT": true, "LHS": true, "OK": true, "OS": true, "PDF": true, "QPS": true, "RAM": true, "RHS": true,
	"RPC": true, "SDK": true, "SLA": true, "SMTP": true, "SQL": true, "SSH": true, "SSO": true, "TCP": true, "TLS": true,
	"TTL": true, "UDP": true, "UI": true, "UID": true, "URI": true, "URL": true, "UTC": true, "UTF8": true,
	"UUID": true, "VM": true, "XML": true, "XMPP": true, "XSRF": true, "XSS": true,
}

// symbolWords names symbols when a name consists of nothing else ("+" → "Plus").
var symbolWords = map[rune]string{
	'+': "Plus", '-': "Minus", '*': "Star", '/': "Slash", '\\': "Backslash", '.': "Dot",
	',': "Comma", ':': "Colon", ';': "Semicolon", '!': "Bang", '?': "Question", '@': "At",
	'#': "Hash", '$': "Dollar", '%': "Percent", '^': "Caret", '&': "And", '|': "Pipe",
	'~': "Tilde", '=': "Eq", '<': "Lt", '>': "Gt", '(': "LParen", ')': "RParen",
	'[': "LBracket", ']': "RBracket", '{': "LBrace", '}': "RBrace", '_': "Underscore",
	'\'': "Quote", '"': "DoubleQuote", '`': "Backtick",
}

// Words splits spec text into words: at every character that cannot be part of a Go
// identifier, and at case changes ("getUserByID" → get User By ID, "HTTPServer" → HTTP
// Server). Digits stay with the letters before them ("v2", "utf8").
func Words(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	runes := []rune(strings.ToValidUTF8(s, " "))
	for i, r := range runes {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 {
			prev := cur[len(cur)-1]
			switch {
			case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
				// fooBar, v2Api
				flush()
			case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1]) &&
				!initialismPlural(cur, r, runes[i+1:]):
				// HTTPServer: the S starts a word
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// initialismPlural reports whether cur+r followed by rest reads as the plural of an
// initialism ("UUIDs", "IDsByName"), which stays one word.
func initialismPlural(cur []rune, r rune, rest []rune) bool {
	if rest[0] != 's' || (len(rest) > 1 && unicode.IsLower(rest[1])) {
		return false
	}
	return initialisms[string(cur)+string(r)]
}

// GoName turns spec text into an exported Go identifier: "get-user_by ID" → "GetUserByID",
// "pet_ids" → "PetIDs", "1st" → "X1st", "" → "Empty". Text that starts with a digit or a
// letter without case gets an "X" in front.
func GoName(s string) string {
	words := Words(s)
	if len(words) == 0 {
		words = symbolNames(s)
	}
	if len(words) == 0 {
		return EmptyName
	}
	var b strings.Builder
	for _, w := range words {
		b.WriteString(titleWord(w))
	}
	if b.Len() > MaxNameLen {
		// Too long to keep whole: a word the name already said goes first.
		b.Reset()
		said := map[string]bool{}
		for _, w := range words {
			if lw := strings.ToLower(w); !said[lw] {
				said[lw] = true
				b.WriteString(titleWord(w))
			}
		}
	}
	name := b.String()
	if r, _ := utf8.DecodeRuneInString(name); !unicode.IsUpper(r) {
		name = "X" + name
	}
	return truncate(name)
}

// LowerName turns spec text into an unexported Go identifier: "Pet ID" → "petID",
// "URL" → "url", "type" → "type_". Keywords and predeclared names ("string", "len") get a
// trailing underscore, as do names that would be "_" alone.
func LowerName(s string) string {
	words := Words(s)
	if len(words) == 0 {
		words = symbolNames(s)
	}
	if len(words) == 0 {
		return "empty"
	}
	var b strings.Builder
	for i, w := range words {
		if i == 0 {
			b.WriteString(lowerWord(w))
			continue
		}
		b.WriteString(titleWord(w))
	}
	name := b.String()
	// A capital without a lower case ("ϓ") would export the name.
	if r, _ := utf8.DecodeRuneInString(name); !unicode.IsLetter(r) || unicode.IsUpper(r) {
		name = "x" + name
	}
	name = truncate(name)
	if isReservedWord(name) {
		name += "_"
	}
	return name
}

func symbolNames(s string) []string {
	var words []string
	for _, r := range s {
		if w, ok := symbolWords[r]; ok {
			words = append(words, w)
		}
	}
	return words
}

// titleWord writes one word capitalised, or in capitals when it is an initialism
// (plurals included: "ids" → "IDs").
func titleWord(w string) string {
	up := strings.ToUpper(w)
	if initialisms[up] {
		return up
	}
	if len(up) > 2 && strings.HasSuffix(up, "S") && initialisms[up[:len(up)-1]] {
		return up[:len(up)-1] + "s"
	}
	r, n := utf8.DecodeRuneInString(w)
	return string(unicode.ToUpper(r)) + strings.ToLower(w[n:])
}

// lowerWord writes the first word of an unexported name.
func lowerWord(w string) string {
	up := strings.ToUpper(w)
	if initialisms[up] {
		return strings.ToLower(w)
	}
	if len(up) > 2 && strings.HasSuffix(up, "S") && initialisms[up[:len(up)-1]] {
		return strings.ToLower(up[:len(up)-1]) + "s"
	}
	return strings.ToLower(w)
}

func truncate(name string) string {
	if len(name) <= MaxNameLen {
		return name
	}
	cut := MaxNameLen
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut]
}

// isReservedWord reports Go keywords, predeclared identifiers (types.Universe) and "_".
func isReservedWord(s string) bool {
	return s == "_" || token.IsKeyword(s) || types.Universe.Lookup(s) != nil
}

// IsValidIdent reports whether s can name a Go declaration: an identifier that is not a
// keyword and not the blank identifier.
func IsValidIdent(s string) bool {
	return token.IsIdentifier(s) && s != "_"
}

// Namer hands out unique identifiers within one scope (a package's top level, a struct's
// fields, a method's parameters). Names are given in call order, so callers must ask in a
// stable order (sorted by a stable key): then the result is deterministic.
type Namer struct {
	owner map[string]string // name → what holds it, for messages
	next  map[string]int    // base name → the next suffix to try, so a crowd of equal names stays linear
}

// predeclared holds the keywords and predeclared identifiers every scope of unexported
// names starts with.
var predeclared = sync.OnceValue(func() map[string]string {
	owner := map[string]string{"_": "the blank identifier"}
	for _, k := range types.Universe.Names() {
		owner[k] = "a predeclared identifier"
	}
	for tok := token.BREAK; tok <= token.VAR; tok++ {
		if tok.IsKeyword() {
			owner[tok.String()] = "a Go keyword"
		}
	}
	return owner
})

// NewNamer returns a Namer holding the Go keywords, the predeclared identifiers and
// reserved: for a scope whose names may be unexported (a package's top level, a
// method's parameters).
func NewNamer(reserved ...string) *Namer {
	n := &Namer{owner: maps.Clone(predeclared())}
	n.Reserve(reserved...)
	return n
}

// NewExportedNamer returns a Namer holding only reserved: for a scope whose names all
// come from GoName, which are exported and so can never be keywords or predeclared
// identifiers (struct fields, union variants, a client's methods).
func NewExportedNamer(reserved ...string) *Namer {
	n := &Namer{owner: make(map[string]string, len(reserved)+8)}
	n.Reserve(reserved...)
	return n
}

// Reserve marks names as taken by the generator itself.
func (n *Namer) Reserve(names ...string) {
	for _, name := range names {
		if _, ok := n.owner[name]; !ok {
			n.owner[name] = "a name retrygen generates"
		}
	}
}

// Taken reports whether name is already held.
func (n *Namer) Taken(name string) bool {
	_, ok := n.owner[name]
	return ok
}

// Unique takes name, or the first free of name2, name3, ... ("V1" continues V1_2, V1_3
// so the suffix stays readable). A name that is not a valid identifier is first passed
// through GoName.
func (n *Namer) Unique(name string) string {
	return n.UniqueFor(name, "")
}

// UniqueFor is Unique, recording what the name is for (e.g. `operation "listPets"`).
func (n *Namer) UniqueFor(name, owner string) string {
	if !IsValidIdent(name) {
		name = GoName(name)
	}
	if owner == "" {
		owner = "a generated name"
	}
	if !n.Taken(name) {
		n.owner[name] = owner
		return name
	}
	sep := ""
	if last, _ := utf8.DecodeLastRuneInString(name); unicode.IsDigit(last) {
		sep = "_"
	}
	if n.next == nil {
		n.next = map[string]int{}
	}
	for i := max(2, n.next[name]); ; i++ {
		cand := name + sep + strconv.Itoa(i)
		if !n.Taken(cand) {
			n.owner[cand] = owner
			n.next[name] = i + 1
			return cand
		}
	}
}
