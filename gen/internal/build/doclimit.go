package build

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/internal/source"
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

// copyBudget returns how many bytes of the spec's text other than descriptions (names,
// URLs, media types, defaults, security scheme keys) a client of a spec of specBytes may
// copy, each place counted placeCost more: four times the spec and 4 MiB. Every place of
// the model that holds such a text writes it, and code around it, into the client; a spec
// that shares a long name, or hundreds of parameters, through $refs with thousands of
// operations would write gigabytes, and is refused (TestCopiedTextIsBounded). Public
// specs take at most a fifth of it (stripe.yaml 17%).
func copyBudget(specBytes int) int { return 4*specBytes + 4<<20 }

// placeCost is what copyBudget counts for a place besides its text: the code the client
// writes around it is a line or two.
const placeCost = 16

// minDocCut is the least length limitDocs cuts a text to: what "…" and a word take.
const minDocCut = 16

// docFields are the names of the model's fields that hold text from the spec for doc
// comments.
var docFields = map[string]bool{"Doc": true, "Description": true, "Summary": true}

// limitDocs cuts texts, the doc texts of a model, so that they add up to at most budget
// bytes (see docBudget), and reports whether it cut any.
func limitDocs(texts []*string, budget int) bool {
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

// copiedText is what the places of a model hold of the spec's text: the doc texts
// (docFields), each place once, and the bytes of all other strings, with the texts that
// take the most.
type copiedText struct {
	docs  []*string
	other int
	long  map[string]int // the places of each string of at least longText bytes
}

// longText is the length from which copiedText counts a string's places, to name the
// text that takes the most.
const longText = 64

// mostCopied returns the long text whose places take the most bytes, and their count.
func (c *copiedText) mostCopied() (text string, places int) {
	for s, n := range c.long {
		if len(s)*n > len(text)*places || len(s)*n == len(text)*places && s < text {
			text, places = s, n
		}
	}
	return text, places
}

// walkText returns the text the places of api hold. The model is a graph, its types
// shared and cyclic: a pointer is followed once, as the emitter writes what it points to
// once (a type, a decl), or, for the places created per operation, once each already.
func walkText(api *model.API) *copiedText {
	c := &copiedText{long: map[string]int{}}
	seen := map[uintptr]bool{}
	str := func(s string) {
		c.other += len(s) + placeCost
		if len(s) >= longText {
			c.long[s]++
		}
	}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			str(v.String())
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			walk(v.Elem())
		case reflect.Struct:
			for _, f := range fieldsOf(v.Type()) {
				fv := v.Field(f.index)
				switch {
				case f.doc:
					c.docs = append(c.docs, fv.Addr().Interface().(*string))
				case f.kind == reflect.String:
					str(fv.String())
				default:
					walk(fv)
				}
			}
		case reflect.Slice, reflect.Array:
			if v.Kind() == reflect.Slice && v.IsNil() {
				return
			}
			switch v.Type().Elem().Kind() {
			case reflect.String:
				for i := range v.Len() {
					str(v.Index(i).String())
				}
				return
			case reflect.Pointer, reflect.Struct, reflect.Slice, reflect.Array, reflect.Map, reflect.Interface:
			default:
				return
			}
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			// A map's values cannot be changed in place; the model's hold no docs.
			iter := v.MapRange()
			for iter.Next() {
				walk(iter.Key())
				walk(iter.Value())
			}
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		}
	}
	walk(reflect.ValueOf(api))
	return c
}

// A textField is a field of a model struct that holds text, or may lead to some.
type textField struct {
	index int
	kind  reflect.Kind
	doc   bool // a doc text (docFields)
}

var textFields sync.Map // reflect.Type → []textField

// fieldsOf returns the exported fields of struct type t that hold text or may lead to
// some, kept by type.
func fieldsOf(t reflect.Type) []textField {
	if fs, ok := textFields.Load(t); ok {
		return fs.([]textField)
	}
	var fs []textField
	for i := range t.NumField() {
		f := t.Field(i)
		switch k := f.Type.Kind(); {
		case !f.IsExported():
		case k == reflect.String:
			fs = append(fs, textField{index: i, kind: k, doc: docFields[f.Name]})
		case k == reflect.Pointer, k == reflect.Struct, k == reflect.Slice, k == reflect.Array, k == reflect.Map, k == reflect.Interface:
			fs = append(fs, textField{index: i, kind: k})
		}
	}
	textFields.Store(t, fs)
	return fs
}

// limitText holds the spec's text that api's places copy to the budgets: the doc texts
// are cut (with a warning), a client that would copy more of the other texts is refused.
func limitText(spec *load.Spec, api *model.API) error {
	size := len(spec.Files.Root())
	c := walkText(api)
	if budget := copyBudget(size); c.other > budget {
		text, places := c.mostCopied()
		msg := fmt.Sprintf("limit exceeded: the client would write %d bytes for the spec's names, URLs and values, more than %d (four times the spec and 4 MiB)", c.other, budget)
		if places > 1 {
			msg += fmt.Sprintf("; the text %s is copied into %d places", source.Quote(text), places)
		}
		return source.ErrorList{{Pos: spec.Files.File(), Msg: msg,
			Fix: "share less through $refs with many operations: a long name, URL or value, or a path item or response of many parameters or headers"}}.Err()
	}
	if budget := docBudget(size); limitDocs(c.docs, budget) {
		spec.Warnings.Add(&source.Error{Pos: spec.Files.File(), Msg: fmt.Sprintf(
			"the doc comments would copy more than %d bytes of the spec's descriptions (twice the spec and 1 MiB): the longest are cut short", budget),
			Fix: "describe a shared parameter, response or header briefly, and at length where it is defined once"})
	}
	return nil
}
