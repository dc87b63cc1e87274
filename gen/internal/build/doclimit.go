package build

import (
	"reflect"
	"slices"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/model"
)

// A client's doc comments copy the spec's text: a description written once in a shared
// component (a parameter, a response, a header reached by $ref) is copied into every
// method, parameter struct and header set that uses it. limitDocs holds the text the doc
// comments copy in all to docBudget of the spec's size, so that the client stays in
// proportion to the spec whatever it shares: over the budget, every doc text longer than
// the longest length that fits is cut there, at a word, and ends with "…". Real
// descriptions stay far below it (TestDocsOfRealSpecsAreWhole).

// docBudget returns how many bytes of text a client of a spec of specBytes may copy into
// its doc comments: twice the spec and a mebibyte.
func docBudget(specBytes int) int { return 2*specBytes + 1<<20 }

// minDocCut is the length under which limitDocs never cuts a text: a short description
// copied many times costs no more than the places that copy it, which the limits on
// operations and fields bound.
const minDocCut = 256

// docFields are the names of the model's fields that hold text from the spec for doc
// comments.
var docFields = map[string]bool{"Doc": true, "Description": true, "Summary": true}

// limitDocs cuts the doc texts of api so that they add up to at most budget bytes (see
// docBudget), and reports whether it cut any.
func limitDocs(api *model.API, budget int) bool {
	texts := docTexts(api)
	total := 0
	for _, t := range texts {
		total += len(*t)
	}
	if total <= budget {
		return false
	}
	lengths := make([]int, len(texts))
	for i, t := range texts {
		lengths[i] = len(*t)
	}
	slices.Sort(lengths)
	cut := fitCut(lengths, budget)
	for _, t := range texts {
		if len(*t) > cut {
			*t = cutText(*t, cut)
		}
	}
	return true
}

// fitCut returns the greatest length, at least minDocCut, such that the texts of the
// sorted lengths, each cut to it, add up to at most budget.
func fitCut(lengths []int, budget int) int {
	// With the texts cut to c, the total is the sum of those shorter than c plus c for
	// each other: walking the lengths up, the cut is found between two of them.
	sum := 0
	for i, l := range lengths {
		rest := len(lengths) - i
		if sum+l*rest > budget {
			return max((budget-sum)/rest, minDocCut)
		}
		sum += l
	}
	return lengths[len(lengths)-1]
}

// cutText cuts s to at most n bytes, at the last space before it when there is one in
// its second half, and adds "…".
func cutText(s string, n int) string {
	n -= len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	s = s[:n]
	for i := len(s) - 1; i > len(s)/2; i-- {
		if s[i] == ' ' || s[i] == '\n' {
			s = s[:i]
			break
		}
	}
	return s + "…"
}

// docTexts returns the doc texts of api (docFields), each place once: the model is a
// graph, its types shared and cyclic, so pointers already visited are skipped.
func docTexts(api *model.API) []*string {
	var out []*string
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			walk(v.Elem())
		case reflect.Struct:
			t := v.Type()
			for i := range t.NumField() {
				f := v.Field(i)
				if !t.Field(i).IsExported() {
					continue
				}
				if docFields[t.Field(i).Name] && f.Kind() == reflect.String {
					out = append(out, f.Addr().Interface().(*string))
					continue
				}
				walk(f)
			}
		case reflect.Slice, reflect.Array:
			if v.Kind() == reflect.Slice && v.IsNil() {
				return
			}
			if k := v.Type().Elem().Kind(); k != reflect.Pointer && k != reflect.Struct && k != reflect.Slice && k != reflect.Map && k != reflect.Interface {
				return
			}
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			if v.Type().Elem().Kind() != reflect.Pointer {
				return // a map's values cannot be changed in place; the model's hold no docs
			}
			for _, k := range v.MapKeys() {
				walk(v.MapIndex(k))
			}
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		}
	}
	walk(reflect.ValueOf(api))
	return out
}
