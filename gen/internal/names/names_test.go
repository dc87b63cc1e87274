package names

import (
	"go/token"
	"go/types"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

func TestGoName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"get-user_by ID", "GetUserByID"},
		{"listPets", "ListPets"},
		{"ListPets", "ListPets"},
		{"HTTPServer", "HTTPServer"},
		{"xmlHttpRequest", "XMLHTTPRequest"},
		{"pet_ids", "PetIDs"},
		{"UUIDs", "UUIDs"},
		{"userIDsByName", "UserIDsByName"},
		{"APIsList", "APIsList"},
		{"url", "URL"},
		{"api_key", "APIKey"},
		{"Id", "ID"},
		{"json-schema", "JSONSchema"},
		{"v2Api", "V2API"},
		{"utf8Decoder", "UTF8Decoder"},
		{"1st", "X1st"},
		{"200", "X200"},
		{"1Foo", "X1Foo"},
		{"Foo Bar", "FooBar"},
		{"Foo-Bar", "FooBar"},
		{" Foo", "Foo"},
		{" Foo ", "Foo"},
		{"foo.bar/baz", "FooBarBaz"},
		{"type", "Type"},
		{"func", "Func"},
		{"string", "String"},
		{"café", "Café"},
		{"ünïcode", "Ünïcode"},
		{"名前", "X名前"},
		{"", EmptyName},
		{"   ", EmptyName},
		{"\xff\xfe", EmptyName},
		{"+", "Plus"},
		{"-", "Minus"},
		{">=", "GtEq"},
		{"_", "Underscore"},
		{"x+y", "XY"},
		{"X() {}\nfunc init() {", "XFuncInit"},
		{"A struct{}; func init(){}//", "AStructFuncInit"},
		{"a\u202eb", "AB"},
		{"emoji😀name", "EmojiName"},
		{strings.Repeat("a", 300), "A" + strings.Repeat("a", MaxNameLen-1)},
	}
	for _, tt := range tests {
		if got := GoName(tt.in); got != tt.want {
			t.Errorf("GoName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLowerName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Pet ID", "petID"},
		{"petId", "petID"},
		{"URL", "url"},
		{"URLPath", "urlPath"},
		{"IDs", "ids"},
		{"ID", "id"},
		{"type", "type_"},
		{"string", "string_"},
		{"len", "len_"},
		{"nil", "nil_"},
		{"Type", "type_"},
		{"1st", "x1st"},
		{"", "empty"},
		{"_", "underscore"},
		{"名前", "名前"},
	}
	for _, tt := range tests {
		if got := LowerName(tt.in); got != tt.want {
			t.Errorf("LowerName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWords(t *testing.T) {
	got := strings.Join(Words("getHTTPResponse_v2 by-ID"), " ")
	if want := "get HTTP Response v2 by ID"; got != want {
		t.Errorf("Words = %q, want %q", got, want)
	}
}

func TestNamer(t *testing.T) {
	n := NewNamer("Client", "NewClient")
	steps := []struct{ in, want string }{
		{"Pet", "Pet"},
		{"Pet", "Pet2"},
		{"Pet", "Pet3"},
		{"Pet2", "Pet2_2"}, // Pet2 was taken by the second Pet
		{"Client", "Client2"},
		{"V1", "V1"},
		{"V1", "V1_2"},
		{"string", "string2"}, // predeclared
		{"func", "Func"},      // a keyword is not an identifier: it goes through GoName
		{"get-user", "GetUser"},
		{"GetUser", "GetUser2"}, // what GoName makes of get_user: resolved by suffix
	}
	for _, s := range steps {
		if got := n.Unique(s.in); got != s.want {
			t.Errorf("Unique(%q) = %q, want %q", s.in, got, s.want)
		}
	}

}

// TestNamerCrowd gives 30,000 equal names: each gets the next suffix, and taken
// suffixes are skipped.
func TestNamerCrowd(t *testing.T) {
	n := NewNamer()
	n.Reserve("Pet5")
	for i := 1; i <= 30000; i++ {
		want := "Pet"
		if i > 1 {
			want += strconv.Itoa(i)
		}
		if i >= 5 {
			want = "Pet" + strconv.Itoa(i+1)
		}
		if got := n.Unique("Pet"); got != want {
			t.Fatalf("name %d = %q, want %q", i, got, want)
		}
	}
}

// BenchmarkNamerCrowd names 10,000 equal names per iteration.
func BenchmarkNamerCrowd(b *testing.B) {
	for b.Loop() {
		n := NewNamer()
		for range 10000 {
			n.Unique("Pet")
		}
	}
}

// TestNamerDeterministic checks that the same requests in the same order give the same
// names in a fresh Namer.
func TestNamerDeterministic(t *testing.T) {
	in := []string{"a", "A", "a-b", "a_b", "AB", "type", "1", "1", "", ""}
	run := func() []string {
		n := NewNamer()
		var out []string
		for _, s := range in {
			out = append(out, n.Unique(GoName(s)))
		}
		return out
	}
	first := strings.Join(run(), ",")
	for range 5 {
		if got := strings.Join(run(), ","); got != first {
			t.Fatalf("names changed between runs: %s, then %s", first, got)
		}
	}
	seen := map[string]bool{}
	for _, name := range strings.Split(first, ",") {
		if seen[name] {
			t.Errorf("duplicate name %q in %s", name, first)
		}
		seen[name] = true
	}
}

// FuzzNames checks that every name is a valid, non-keyword identifier, whatever the
// input: GoName's exported, LowerName's neither a keyword nor predeclared.
func FuzzNames(f *testing.F) {
	for _, s := range []string{"", "get-user_by ID", "1st", "type", "\x00", "a\u202eb", "名前", "+", "X() {}\nfunc init() {", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g := GoName(s)
		if !token.IsIdentifier(g) || !token.IsExported(g) {
			t.Errorf("GoName(%q) = %q: not an exported identifier", s, g)
		}
		l := LowerName(s)
		if !token.IsIdentifier(l) || token.IsExported(l) || types.Universe.Lookup(l) != nil {
			t.Errorf("LowerName(%q) = %q: not a usable unexported identifier", s, l)
		}
		n := NewNamer()
		a, b := n.Unique(g), n.Unique(g)
		if a == b || !token.IsIdentifier(b) {
			t.Errorf("Unique(%q) twice = %q, %q", g, a, b)
		}
	})
}

func TestSpellOperators(t *testing.T) {
	for _, c := range []struct {
		in       string
		temporal bool
		want     string
	}{
		{"DateSent<", true, "DateSentBefore"},
		{"DateSent>", true, "DateSentAfter"},
		{"DateSent<=", true, "DateSentOrBefore"},
		{"DateSent>=", true, "DateSentOrAfter"},
		{"DateSent", true, "DateSent"},
		{"Price<", false, "PriceLessThan"},
		{"Price>=", false, "PriceAtLeast"},
		{"Status!=", false, "StatusNot"},
		{"Status=", false, "StatusEquals"},
		{"start_time>", true, "StartTimeAfter"},
		{"<", false, "Lt"},
		{"<=", false, "LtEq"},
	} {
		if got := GoName(SpellOperators(c.in, c.temporal)); got != c.want {
			t.Errorf("GoName(SpellOperators(%q, %v)) = %q, want %q", c.in, c.temporal, got, c.want)
		}
	}
	if got := LowerName(SpellOperators("DateSent<", true)); got != "dateSentBefore" {
		t.Errorf("LowerName: got %q", got)
	}
}

// wordsByRunes is Words as it was first written, over a slice of runes of the text made
// valid UTF-8: the reference the byte-wise Words is held to.
func wordsByRunes(s string) []string {
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
				flush()
			case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1]) &&
				!(runes[i+1] == 's' && (i+2 >= len(runes) || !unicode.IsLower(runes[i+2])) && initialisms[string(cur)+string(r)]):
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// wordPieces are what the texts of TestWordsAsByRunes are made of: initialisms and their
// plurals, case changes, digits, separators, letters whose case maps outside their
// script, and bytes that are not UTF-8.
var wordPieces = []string{"a", "b", "s", "S", "x", "Z", "ID", "Ids", "IDs", "UUID", "HTTP", "Http", "URL", "s", "Server",
	"v2", "2", "9a", "_", "-", " ", ".", "{", "ı", "ſ", "ß", "É", "é", "ǅ", "Ϊ", "名", "٣", "\u00a0", "\ufffd",
	"\xff", "\xed\xa0\x80", "\xe2\x82", "\xc3"}

// TestWordsAsByRunes holds Words to the rune-slice reference on texts made of pieces that
// exercise every rule, so that splitting by bytes changes no word.
func TestWordsAsByRunes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(wordPieces[r.IntN(len(wordPieces))])
		}
		s := b.String()
		if got, want := Words(s), wordsByRunes(s); !slices.Equal(got, want) {
			t.Fatalf("Words(%q) = %q, want %q", s, got, want)
		}
	}
}

// FuzzWords holds Words to the rune-slice reference on any text.
func FuzzWords(f *testing.F) {
	for _, s := range []string{"getHTTPResponse_v2 by-ID", "UUIDsByName", "IDs", "\xffAb", "ıd", "HTTPSs"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Words(s), wordsByRunes(s); !slices.Equal(got, want) {
			t.Fatalf("Words(%q) = %q, want %q", s, got, want)
		}
	})
}

// TestWriteTitle holds writeTitle to titleWord on every initialism, its plural and other
// spellings, and on words outside ASCII; maxInitialism is the longest initialism's length.
func TestWriteTitle(t *testing.T) {
	words := []string{"a", "Ab", "aB", "id", "Id", "ids", "IDS", "IDs", "idss", "https", "HTTPSs", "ascii", "asciis",
		"v2", "2a", "utf8", "Utf8s", "ıd", "ſsh", "éa", "Ǆa", "名前", "ab9Z"}
	for k := range initialisms {
		if len(k) > maxInitialism {
			t.Errorf("initialism %q is longer than maxInitialism %d", k, maxInitialism)
		}
		words = append(words, k, strings.ToLower(k), strings.ToLower(k)+"s", k+"s", k+"S", k+"x", "x"+k)
	}
	for _, w := range words {
		var b strings.Builder
		writeTitle(&b, w)
		if got, want := b.String(), titleWord(w); got != want {
			t.Errorf("writeTitle(%q) = %q, titleWord gives %q", w, got, want)
		}
	}
}
