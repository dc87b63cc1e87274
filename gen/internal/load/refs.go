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
// a schema of the file where nothing is defined: a $ref ("#/components/schemas/Cat") or
// a bare component name ("Cat"). kin-openapi does not resolve mappings, and a value that
// selects nothing would leave its variant undecodable. Mappings to other files are left
// to the loader, and so are extensions written among the entries
// ("x-speakeasy-unknown-values: allow").
func (s *Spec) danglingMappings(errs *source.ErrorList) {
	for _, m := range s.Files.Mappings() {
		if strings.HasPrefix(m.Key, "x-") {
			continue
		}
		target := m.Value
		if !strings.Contains(target, "/") {
			target = "#/components/schemas/" + source.EscapePointer(target)
		}
		if !strings.HasPrefix(target, "#") || s.Files.Has(target) {
			continue
		}
		errs.Add(&source.Error{
			Pos: m.Pos,
			Msg: fmt.Sprintf("discriminator mapping %q: %q names no schema", m.Key, m.Value),
			Fix: "name a schema of components/schemas, by $ref or by name, or remove the entry",
		})
	}
}
