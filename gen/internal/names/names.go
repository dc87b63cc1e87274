// Package names turns spec text into Go identifiers and keeps the identifiers of one scope
// unique. Every Go identifier the generator writes is decided with it, during the build
// stage; the emitter does no name arithmetic of its own.
package names

import (
	"go/token"
	"go/types"
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
// Server). Digits stay with the letters before them ("v2", "utf8"). Bytes that are not
// UTF-8 split words as other characters do. The words are parts of s, not copies.
func Words(s string) []string {
	return AppendWords(nil, s)
}

// AppendWords appends the words of s to words and returns the extended slice, as
// strconv's Append functions do: a caller that keeps the words briefly can split into
// an array of its own.
func AppendWords(words []string, s string) []string {
	start := -1 // where the current word starts in s, or -1 between words
	var prev rune
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
			i += n
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			split := unicode.IsLower(prev) || unicode.IsDigit(prev) // fooBar, v2Api
			if !split && unicode.IsUpper(prev) {
				// HTTPServer: the S starts a word
				next, _ := utf8.DecodeRuneInString(s[i+n:])
				split = unicode.IsLower(next) && !initialismPlural(s[start:i+n], s[i+n:])
			}
			if split {
				words = append(words, s[start:i])
				start = -1
			}
		}
		if start < 0 {
			start = i
		}
		prev = r
		i += n
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	return words
}

// initialismPlural reports whether word (the current word up to a capital) followed by
// rest, which starts with a lower case letter, reads as the plural of an initialism
// ("UUIDs", "IDsByName"), which stays one word.
func initialismPlural(word, rest string) bool {
	if rest[0] != 's' {
		return false
	}
	if after, _ := utf8.DecodeRuneInString(rest[1:]); len(rest) > 1 && unicode.IsLower(after) {
		return false
	}
	return initialisms[word]
}

// GoName turns spec text into an exported Go identifier: "get-user_by ID" → "GetUserByID",
// "pet_ids" → "PetIDs", "1st" → "X1st", "" → "Empty". Text that starts with a digit or a
// letter without case gets an "X" in front.
func GoName(s string) string {
	var buf [16]string
	words := AppendWords(buf[:0], s)
	if len(words) == 0 {
		words = symbolNames(s)
	}
	if len(words) == 0 {
		return EmptyName
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, w := range words {
		writeTitle(&b, w)
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
	var buf [16]string
	words := AppendWords(buf[:0], s)
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
		writeTitle(&b, w)
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

// writeTitle writes titleWord(w) to b, without building strings for an ASCII word.
func writeTitle(b *strings.Builder, w string) {
	var up [maxInitialism + 1]byte // an initialism, or its plural
	for i := range len(w) {
		if w[i] >= utf8.RuneSelf {
			// The upper case of a letter outside ASCII can be in ASCII ("ıd" → "ID").
			b.WriteString(titleWord(w))
			return
		}
		if i < len(up) {
			up[i] = upperASCII(w[i])
		}
	}
	if len(w) <= len(up) {
		u := up[:len(w)]
		if initialisms[string(u)] {
			b.Write(u)
			return
		}
		if len(u) > 2 && u[len(u)-1] == 'S' && initialisms[string(u[:len(u)-1])] {
			b.Write(u[:len(u)-1])
			b.WriteByte('s')
			return
		}
	}
	b.WriteByte(upperASCII(w[0]))
	for i := 1; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
}

// maxInitialism is the length of the longest initialism.
const maxInitialism = 5

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
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
	base  map[string]string // the names every such scope starts with (predeclared), shared and never written
	owner map[string]string // the scope's own names → what holds them, for messages
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
	n := &Namer{base: predeclared(), owner: make(map[string]string, len(reserved)+8)}
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
		if !n.Taken(name) {
			n.owner[name] = "a name retrygen generates"
		}
	}
}

// Taken reports whether name is already held.
func (n *Namer) Taken(name string) bool {
	if _, ok := n.owner[name]; ok {
		return true
	}
	_, ok := n.base[name]
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
