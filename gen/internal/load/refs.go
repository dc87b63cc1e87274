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
