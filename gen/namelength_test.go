package gen

// The names of a generated client are as short as a hand-written SDK's: on stripe.yaml,
// the 99th percentile of its type and method names is at most 85 characters and the
// longest at most 105 (stripe-go's own types), and no name of the openai, github or
// stripe client ends in a digit its spec does not write (CreateFileRequest2, DateSent3).

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
)

// nameFigures are the lengths of a client's type and method names.
type nameFigures struct {
	count, median, p90, p99, longest int
	longestName                      string
}

// clientNames lists the type names and the Client method names of a generated file.
func clientNames(t testing.TB, src []byte) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "client.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					out = append(out, ts.Name.Name)
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil || len(d.Recv.List) != 1 {
				continue
			}
			if star, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "Client" {
					out = append(out, d.Name.Name)
				}
			}
		}
	}
	return out
}

// figuresOf measures the lengths of ids.
func figuresOf(ids []string) nameFigures {
	lens := make([]int, len(ids))
	fig := nameFigures{count: len(ids)}
	for i, id := range ids {
		lens[i] = len(id)
		if len(id) > fig.longest {
			fig.longest, fig.longestName = len(id), id
		}
	}
	slices.Sort(lens)
	at := func(p int) int {
		if len(lens) == 0 {
			return 0
		}
		return lens[min(len(lens)-1, (len(lens)*p+99)/100-1)]
	}
	fig.median, fig.p90, fig.p99 = at(50), at(90), at(99)
	return fig
}

// specDigitEnds collects the words of the spec's text that end in a digit ("v2", "utf8",
// "sha256"), and the last word of the Go name of each name it writes ("Error-2" gives
// "error2"), lower-cased, and the response statuses its keys write ("200": a name may
// end in the status of the response it stands for).
func specDigitEnds(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range names.Words(text) {
		if r := w[len(w)-1]; r >= '0' && r <= '9' {
			out[strings.ToLower(w)] = true
		}
	}
	for tok := range maps.Keys(tokens(text)) {
		if ws := names.Words(names.GoName(tok)); len(ws) > 0 {
			out[strings.ToLower(ws[len(ws)-1])] = true
		}
	}
	for _, m := range statusKey.FindAllStringSubmatch(text, -1) {
		out["#"+m[1]] = true
	}
	return out
}

// tokens are the names the spec's text writes: runs of letters, digits, "_", "-" and ".",
// as keys and values spell them ("Error-2").
func tokens(text string) map[string]bool {
	out := map[string]bool{}
	for _, t := range nameToken.FindAllString(text, -1) {
		out[t] = true
	}
	return out
}

var nameToken = regexp.MustCompile(`[A-Za-z0-9_.\-]+`)

// statusKey matches a response status written as a key, in YAML or JSON.
var statusKey = regexp.MustCompile(`(?m)(?:^\s*|")['"]?([1-5][0-9][0-9])['"]?\s*:`)

// trailingDigits is the run of digits that ends id.
func trailingDigits(id string) string {
	i := len(id)
	for i > 0 && id[i-1] >= '0' && id[i-1] <= '9' {
		i--
	}
	return id[i:]
}

// TestNameLengths generates the stripe, openai and github clients and measures their
// type and method names: stripe's must hold the figures of a hand-written SDK, and no
// name of the three may end in a digit the spec does not write at the end of a word.
func TestNameLengths(t *testing.T) {
	longtest.Heavy(t)
	for _, name := range []string{"stripe.yaml", "openai.yaml", "github.json"} {
		t.Run(name, func(t *testing.T) {
			path := corpus.Path(t, name)
			src, err := loadAndGenerate(t, path, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			ids := clientNames(t, src)
			fig := figuresOf(ids)
			t.Logf("%s: %d names: median %d, p90 %d, p99 %d, longest %d (%s)",
				name, fig.count, fig.median, fig.p90, fig.p99, fig.longest, fig.longestName)
			if name == "stripe.yaml" && (fig.p99 > 85 || fig.longest > 105) {
				t.Errorf("p99 %d (want ≤ 85), longest %d (want ≤ 105)", fig.p99, fig.longest)
			}
			words := specDigitEnds(text)
			var bad []string
			for _, id := range ids {
				ws := names.Words(id)
				last := ws[len(ws)-1]
				if !unicode.IsDigit(rune(last[len(last)-1])) || words[strings.ToLower(last)] || words["#"+trailingDigits(id)] {
					continue
				}
				bad = append(bad, id)
			}
			if len(bad) > 0 {
				t.Errorf("%d names end in a digit the spec does not write: %v", len(bad), bad[:min(len(bad), 20)])
			}
			if numbered := numberedNames(t, src, text); len(numbered) > 0 {
				t.Errorf("%d names are told apart by a number: %v", len(numbered), numbered)
			}
		})
	}
}

// numberedNames lists the names of a generated file that a number tells apart from
// another of their scope (the package, a struct's fields, the methods of a type): Foo2
// beside Foo, V1_2 beside V1, Foo3 beside Foo2 beside Foo; not a name whose end the
// spec's text writes (ConversationParam2 of a schema "ConversationParam-2").
func numberedNames(t testing.TB, src []byte, text string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "client.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	scopes := map[string]map[string]bool{} // "" for the package
	add := func(scope, name string) {
		if scopes[scope] == nil {
			scopes[scope] = map[string]bool{}
		}
		scopes[scope][name] = true
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					add("", s.Name.Name)
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, fl := range st.Fields.List {
							for _, n := range fl.Names {
								add(s.Name.Name+".", n.Name)
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						add("", n.Name)
					}
				}
			}
		case *ast.FuncDecl:
			scope := ""
			if d.Recv != nil && len(d.Recv.List) == 1 {
				scope = types.ExprString(d.Recv.List[0].Type) + "."
			}
			add(scope, d.Name.Name)
		}
	}
	written := map[string]bool{} // the Go names of the spec's names that end in a digit
	for tok := range tokens(text) {
		if name := names.GoName(tok); unicode.IsDigit(rune(name[len(name)-1])) {
			written[name] = true
			if unicode.IsDigit(rune(tok[0])) && len(names.Words(tok)) > 1 {
				written[strings.TrimPrefix(name, "X")] = true // a date or a version, as constants write it
			}
		}
	}
	spelled := func(name string) bool {
		for i := range len(name) {
			start := i == 0 || unicode.IsUpper(rune(name[i])) || unicode.IsDigit(rune(name[i])) && unicode.IsLetter(rune(name[i-1]))
			if start && written[name[i:]] {
				return true
			}
		}
		return false
	}
	var out []string
	for scope, inScope := range scopes {
		for name := range inScope {
			digits := trailingDigits(name)
			n, err := strconv.Atoi(digits)
			if digits == "" || err != nil || n < 2 || spelled(name) {
				continue
			}
			stem := strings.TrimSuffix(name, digits)
			first := inScope[stem] || strings.HasSuffix(stem, "_") && inScope[strings.TrimSuffix(stem, "_")]
			if first && (n == 2 || inScope[stem+strconv.Itoa(n-1)]) {
				out = append(out, scope+name)
			}
		}
	}
	slices.Sort(out)
	return out
}
