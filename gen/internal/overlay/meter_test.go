package overlay

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/theory/jsonpath"
)

// selectWork evaluates target on the document text and returns what it selects (each
// node's value, dumped), the work it took, and its error.
func selectWork(t *testing.T, doc, target string) ([]string, int, error) {
	t.Helper()
	p := mustParse(t, target)
	d := NewDocument("api.yaml", tree(t, doc), 1_000_000)
	before := d.work
	ms, err := d.selectNodes(p.target)
	var got []string
	for _, m := range ms {
		got = append(got, dump(m.node))
	}
	return got, before - d.work, err
}

// chain writes a mapping nested depth deep: {a: {a: ... {a: 1}}}.
func chain(depth int) string {
	return strings.Repeat("{a: ", depth) + "1" + strings.Repeat("}", depth)
}

// Filters select with the metered functions what RFC 9535 says they select, as
// jsonpath's own evaluation does.
func TestMeteredFiltersSelectAsJSONPath(t *testing.T) {
	const doc = `items:
  - {name: Pet, n: 1, tags: [a, b], o: {x: 1}, s: "line\nbreak"}
  - {name: pet, n: 1.0, tags: [a], o: {x: 1, y: 2}}
  - {name: Dog, n: 2, tags: [], o: {x: 1}, v: null}
  - {name: "ca\u0000t", n: -3, tags: [a, b], note: "x\"y\\z"}
  - plain
  - 7
ref: {x: 1}
min: 1
`
	for _, target := range []string{
		"$.items[?@.n == 1]", "$.items[?@.n != 1]", "$.items[?@.n < 2]", "$.items[?@.n <= 1]",
		"$.items[?@.n > 1]", "$.items[?@.n >= -3]", "$.items[?@.name < 'P']", "$.items[?@.name >= 'd']",
		"$.items[?@.o == $.ref]", "$.items[?@.o != $.ref]",
		"$.items[?@.v == null]", "$.items[?@.missing == @.other]", "$.items[?@.missing != null]",
		"$.items[?@.n == $.min && @.name == 'Pet' || @.n == 2]", "$.items[?!(@.n == 1)]",
		"$.items[?length(@.tags) == 2]", "$.items[?length(@) == 5]", "$.items[?length(@.name) > 3]",
		"$.items[?match(@.name, '[Pp]et')]", "$.items[?search(@.name, 'e')]",
		"$.items[?search(@.s, 'line.break')]", "$.items[?match(@.name, 'ca.t')]", "$.items[?match(@.name, '(')]",
		"$.items[?!match(@.name, 'Pet')]", "$.items[?count(@.tags[?@ == 'a']) == 1]", "$.items[?value(@.o.x) == 1]",
		"$.items[?@.note == 'x\"y\\\\z']", "$.items[?@.name == \"ca\\u0000t\"]", "$.items[?@ == 7]",
		"$.items[?@.tags[?match(@, 'b')]]", "$..[?@.x == 1 && length(@) == 2]", "$.items[0,2]['name','n']",
		"$.items[1:3]", "$.items[::-1].name", "$..tags[?@ == 'b']",
	} {
		t.Run(target, func(t *testing.T) {
			d := NewDocument("api.yaml", tree(t, doc), 1000)
			d.mirrored()
			gotValues, want := selections(d, mustSelect(t, d, target), jsonpath.MustParse(target))
			if !slices.Equal(gotValues, want) {
				t.Errorf("selects %v, want %v", gotValues, want)
			}
		})
	}
}

// mustSelect evaluates target on d.
func mustSelect(t *testing.T, d *Document, target string) []match {
	t.Helper()
	ms, err := d.selectNodes(mustParse(t, target).target)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// What a filter does is counted in the query's work: comparisons by the size of what
// they compare, regular expressions by their size and the strings they match, length()
// by the string's length, every node a filter tests by the terms of the filter. A
// hostile filter is refused with the error of a query that takes too much work.
func TestFilterWorkIsCounted(t *testing.T) {
	deep := fmt.Sprintf("x: %s\ny: %s\n", chain(4500), chain(4500))
	big := fmt.Sprintf("big: %q\nitems: [%s]\n", strings.Repeat("x", 1<<20), strings.Repeat("{a: 1}, ", 2000))
	var paths strings.Builder
	paths.WriteString("paths:\n")
	for i := range 600 {
		fmt.Fprintf(&paths, "  /p%d: {get: {operationId: op%d, summary: The operation number %d}}\n", i, i, i)
	}
	hugePattern := strings.Repeat(`\\pL{1,1000}`, 70)
	segments := "$..[?@" + strings.Repeat(".a", 1500) + "]"
	for _, tt := range []struct {
		name, doc, target string
		want              string // in the error
	}{
		{"deep equality", deep, `$..[?@ == $["x"]]`, "limit exceeded"},
		{"deep equality nested", deep, `$..[?@[?@ == $["x"]]]`, "limit exceeded"},
		{"deep order", deep, `$..[?@ < $["x"] || @ >= $["y"]]`, "limit exceeded"},
		{"length of a large string", big, `$..[?length($.big) > 1]`, "limit exceeded"},
		{"search with a large program", paths.String(), `$..[?search(@, "` + hugePattern + `")]`, "more than 20000 instructions"},
		{"match with a large program", paths.String(), `$..[?match(@, $.paths['/p1'].get.summary) || match(@, "` + hugePattern + `")]`, "more than 20000 instructions"},
		{"a long pattern", paths.String(), `$..[?search(@, "` + strings.Repeat("ab", 600) + `")]`, "a regular expression too large: 1200 bytes, more than 1000"},
		{"many segments", big, segments, "limit exceeded"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, work, err := selectWork(t, tt.doc, tt.target)
			t.Logf("%d steps", work)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
			if work > MaxQueryWork+1<<20 {
				t.Errorf("%d steps, more than %d", work, MaxQueryWork)
			}
		})
	}
}

// The work counted is at least the work done: two chains of depth n compared from each
// node of one are n²/2 steps; a regular expression is compiled once.
func TestFilterWorkIsAtLeastTheWorkDone(t *testing.T) {
	const n = 1000
	_, work, err := selectWork(t, fmt.Sprintf("x: %s\ny: %s\n", chain(n), chain(n)), `$.y..[?@ == $["x"]]`)
	if err != nil {
		t.Fatal(err)
	}
	if work < n*n/2 {
		t.Errorf("comparing chains of %d: %d steps counted, want at least %d", n, work, n*n/2)
	}

	var doc strings.Builder
	doc.WriteString("items:\n")
	for i := range 1000 {
		fmt.Fprintf(&doc, "  - item number %d\n", i)
	}
	d := NewDocument("api.yaml", tree(t, doc.String()), 100_000)
	mustSelect(t, d, `$.items[?search(@, "num.er [0-9]+")]`)
	if len(d.meter.patterns) != 1 {
		t.Errorf("%d patterns compiled, want 1", len(d.meter.patterns))
	}
}

// A filter's metered query reads as its target, with the standard functions and the
// comparisons counted.
func TestRewrite(t *testing.T) {
	for target, want := range map[string]string{
		"$.paths.*.post": `$.paths.*.post`,
		"$..[?@.a == 1]": `$..[?tick_(3) && (cmp_(@.a, "==", 1))]`,
		`$[? search(@, 'a\u0007') && !match(@.b, "\"") ]`:            `$[?tick_(4) && (search_(@, 'a\u0007') && !match_(@.b, "\""))]`,
		"$[?(@.a || @['b']) && count(@.c[?@.d > length(@.e)]) >= 2]": `$[?tick_(7) && ((@.a || @['b']) && cmp_(count(@.c[?tick_(5) && (cmp_(@.d, ">", length_(@.e)))]), ">=", 2))]`,
		"$[?value(@..x) != null]":                                    `$[?tick_(4) && (cmp_(value(@..x), "!=", null))]`,
		"$[0:2,-1,'a',*]":                                            `$[0:2,-1,'a',*]`,
		"$[ 1 : 3 : 1 ]..[?!@.a]..*":                                 `$[1 : 3 : 1 ]..[?tick_(2) && (!@.a)]..*`,
		"$[?@ == -1.5e3 || @ == true]":                               `$[?tick_(3) && (cmp_(@, "==", -1.5e3) || cmp_(@, "==", true))]`,
		"$.ünï[?!(@.x<1)]":                                           `$.ünï[?tick_(3) && (!(cmp_(@.x, "<", 1)))]`,
	} {
		got, err := rewrite(target)
		if err != nil || got != want {
			t.Errorf("%s:\ngot  %s (%v)\nwant %s", target, got, err, want)
		}
		if _, err := meterParser.Parse(got); err != nil {
			t.Errorf("%s: %v", got, err)
		}
	}
}

// FuzzRewrite holds the metered query of any target the JSONPath library parses to it: the
// rewrite accepts it or refuses it with an error (the library accepts some texts RFC 9535
// does not, such as "[?!!]"), its metered form parses, and, for filters of comparisons,
// logic, length, count and value (match and search follow RFC 9535 where the library does
// not), selects what the library selects.
func FuzzRewrite(f *testing.F) {
	for _, seed := range []string{
		"$.items[?@.n == 1]", "$.items[?@.o == $.ref]", "$.items[?@.n == $.min && @.name == 'Pet' || @.n == 2]",
		"$.items[?!(@.n == 1)]", "$.items[?length(@.tags) == 2]", "$.items[?count(@.tags[?@ == 'a']) == 1]",
		"$..[?@.x == 1 && length(@) == 2]", "$.items[?value(@.o.x) == 1]", "$.items[1:3]", "$..tags[?@ == 'b']",
		"$.items[?@.n <= 1]", "$.items[?@.name >= 'd']", "$.items[?@.tags[?@ == 'b']]",
	} {
		f.Add(seed)
	}
	const doc = `items:
  - {name: Pet, n: 1, tags: [a, b], o: {x: 1}}
  - {name: pet, n: 1.0, tags: [a], o: {x: 1, y: 2}}
  - {name: Dog, n: 2, tags: [], o: {x: 1}, v: null}
  - plain
  - 7
ref: {x: 1}
min: 1
`
	f.Fuzz(func(t *testing.T, target string) {
		path, err := jsonpath.Parse(target)
		if err != nil || len(target) > 200 {
			return
		}
		metered, err := rewrite(target)
		if err != nil {
			return
		}
		if _, err := meterParser.Parse(metered); err != nil {
			t.Fatalf("%q: its metered form %q does not parse: %v", target, metered, err)
		}
		if strings.Contains(target, "match") || strings.Contains(target, "search") || strings.ContainsAny(target, "<>") {
			return
		}
		d := NewDocument("api.yaml", tree(t, doc), 1000)
		d.mirrored()
		ms, err := d.selectNodes(&compiledPath{path: path, metered: metered})
		if err != nil {
			return // over the work budget
		}
		got, want := selections(d, ms, path)
		if !slices.Equal(got, want) {
			t.Fatalf("%q selects %v, the library %v", target, got, want)
		}
	})
}

// selections returns the values of ms, a metered selection in d, and of what the library's
// path selects in d's mirror, each sorted and once: the library selects a node once for
// each path to it, a selection here is in document order, once.
func selections(d *Document, ms []match, path *jsonpath.Path) (got, want []string) {
	for _, m := range ms {
		got = append(got, fmt.Sprint(d.mirrorOf(m.node)))
	}
	for _, v := range path.Select(d.root) {
		want = append(want, fmt.Sprint(v))
	}
	slices.Sort(got)
	slices.Sort(want)
	return slices.Compact(got), slices.Compact(want)
}
