package load

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/retrygen/retrygen/gen/internal/source"
)

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
			Msg: fmt.Sprintf("unresolved $ref %q: nothing is defined there", ref.Value),
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
			Msg: fmt.Sprintf("discriminator mapping %q: %q %s", m.Key, m.Value, why),
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
