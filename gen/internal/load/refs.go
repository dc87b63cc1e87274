package load

import (
	"bytes"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// withoutRefs returns the file's text with the key of each `$ref` that errs locate
// written as an extension of the same length ("$ref" as "x-rr"; a quoted key, however it
// spells "$ref", escapes included, as "x-" and as many r's), so that nothing else moves.
func withoutRefs(text []byte, errs source.ErrorList) []byte {
	out := slices.Clone(text)
	for _, e := range errs {
		if start, end, ok := refKey(out, offsetOf(out, e.Pos.Line, e.Pos.Col)); ok {
			copy(out[start:], "x-")
			copy(out[start+2:end], bytes.Repeat([]byte("r"), end-start-2))
		}
	}
	return out
}

// refKey returns where the `$ref` key written at text[at] is, without its quotes, and
// whether one is: `$ref`, or a quoted scalar on one line that reads "$ref".
func refKey(text []byte, at int) (start, end int, ok bool) {
	if bytes.HasPrefix(text[at:], []byte("$ref")) {
		return at, at + len("$ref"), true
	}
	if at >= len(text) || text[at] != '"' && text[at] != '\'' {
		return 0, 0, false
	}
	q := text[at]
	for i := at + 1; i < len(text) && text[i] != '\n'; i++ {
		switch {
		case q == '"' && text[i] == '\\':
			i++ // an escape: the next byte is not the closing quote
		case text[i] == q:
			key := string(text[at : i+1])
			if q == '"' {
				v, err := strconv.Unquote(key)
				return at + 1, i, err == nil && v == "$ref"
			}
			return at + 1, i, key == "'$ref'"
		}
	}
	return 0, 0, false
}

// offsetOf returns the byte offset of line:col (columns count characters, and a byte
// order mark before the first line is not one) in text, or len(text) past its end.
func offsetOf(text []byte, line, col int) int {
	at := 0
	if bytes.HasPrefix(text, []byte("\uFEFF")) {
		at = len("\uFEFF")
	}
	for ; line > 1 && at < len(text); line-- {
		i := bytes.IndexByte(text[at:], '\n')
		if i < 0 {
			return len(text)
		}
		at += i + 1
	}
	for ; col > 1 && at < len(text); col-- {
		_, n := utf8.DecodeRune(text[at:])
		at += n
	}
	return at
}

// danglingRefs reports every `$ref` of the root file that names a place inside it where
// nothing is defined. kin-openapi stops at the first it meets, so that one mistake would
// hide the others.
func (s *Spec) danglingRefs() source.ErrorList {
	var errs source.ErrorList
	for _, ref := range s.Files.Refs() {
		if !strings.HasPrefix(ref.Value, "#") || s.Files.Has(ref.Value) {
			continue
		}
		if _, err := url.Parse(ref.Value); err != nil {
			continue
		}
		errs.Add(&source.Error{
			Pos: ref.Pos,
			Msg: fmt.Sprintf("unresolved $ref %s: nothing is defined there", source.Quote(ref.Value)),
			Fix: "correct the $ref, or define what it names",
		})
	}
	return errs
}

// danglingMappings reports every discriminator mapping entry of the root file that names
// no schema of the file: a $ref ("#/components/schemas/Cat") or a bare component name
// ("Cat") where nothing is defined, a $ref to another kind of component, or a
// description where a $ref belongs. kin-openapi does not resolve mappings, and a value
// that selects nothing would leave its variant undecodable. Beside a single variant,
// which is decoded whatever the value says, it changes nothing in the client: a warning,
// with the overlay that removes it. Mappings to other files are left to the loader, and
// so are extensions written among the entries ("x-speakeasy-unknown-values: allow").
func (s *Spec) danglingMappings(errs *source.ErrorList) {
	for _, m := range s.Files.Mappings() {
		if strings.HasPrefix(m.Key, "x-") {
			continue
		}
		why := s.mappingProblem(m.Value)
		if why == "" {
			continue
		}
		e := &source.Error{
			Pos: m.Pos,
			Msg: fmt.Sprintf("discriminator mapping %s: %s %s", source.Quote(m.Key), source.Quote(m.Value), why),
			Fix: "name a schema of components/schemas, by $ref or by name, or remove the entry",
		}
		if m.Variants == 1 {
			e.Msg += "; beside a single variant, it changes nothing in the client"
			e.Fix = fmt.Sprintf("remove the entry with an overlay action {target: %q, remove: true}", m.Path)
			s.Warnings.Add(e)
			continue
		}
		errs.Add(e)
	}
}

// mappingProblem says why a discriminator mapping value names no schema, or "".
func (s *Spec) mappingProblem(value string) string {
	if strings.ContainsAny(value, " \t\n") {
		return "is a description where a $ref or a schema's name belongs"
	}
	target := value
	if !strings.Contains(target, "/") {
		target = "#/components/schemas/" + source.EscapePointer(target)
	}
	if !strings.HasPrefix(target, "#") {
		return ""
	}
	if !s.Files.Has(target) {
		return "names no schema"
	}
	if rest, ok := strings.CutPrefix(target, "#/components/"); ok {
		if section, _, _ := strings.Cut(rest, "/"); section != "schemas" && sectionObjects[section] != "" {
			return "names " + sectionObjects[section] + ", not a schema"
		}
	}
	return ""
}

// textWithoutRefs returns the text to decode again with the $refs that errs locate left
// out: their keys written as "x-rf", an extension of the same length, so that nothing
// else moves. data is the root file's bytes.
func (s *Spec) textWithoutRefs(data []byte, errs source.ErrorList) []byte {
	if s.doc == nil {
		text, _ := yamlSafeJSON(withoutRefs(data, errs))
		return text
	}
	at := map[source.Pos]bool{}
	for _, e := range errs {
		at[e.Pos] = true
	}
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if depth > 10000 {
			return
		}
		for i, c := range n.Content {
			if n.Kind == yaml.MappingNode && i%2 == 0 && c.Value == "$ref" && at[s.nodePos(c)] {
				c.Value = "x-rf"
			}
			walk(c, depth+1)
		}
	}
	walk(s.doc.Root, 0)
	text, _, _ := writeText(s.doc)
	return text
}
