package load

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
)

// checkServers refuses a server whose URL, or a value of one of its variables (the
// default, an enum value), holds a control character: NUL, CR, LF, ESC, the other C0
// and C1 controls, DEL. Such a URL reaches the generated client, where it would be a
// request line or header split in two, or a constant nobody can read. It checks the
// servers of the document, of every path item and webhook and of their operations.
func (s *Spec) checkServers(errs *source.ErrorList) {
	check := func(servers openapi3.Servers, pointer string) {
		for i, sv := range servers {
			if sv != nil {
				s.checkServer(sv, pointer+"/"+strconv.Itoa(i), errs)
			}
		}
	}
	check(s.Doc.Servers, "#/servers")
	items := func(group string, m map[string]*openapi3.PathItem) {
		for _, name := range source.SortedKeys(m) {
			item := m[name]
			if item == nil {
				continue
			}
			at := "#/" + group + "/" + source.EscapePointer(name)
			check(item.Servers, at+"/servers")
			for method, op := range item.Operations() {
				if op != nil && op.Servers != nil {
					check(*op.Servers, at+"/"+strings.ToLower(method)+"/servers")
				}
			}
		}
	}
	if s.Doc.Paths != nil {
		items("paths", s.Doc.Paths.Map())
	}
	items("webhooks", s.Doc.Webhooks)
}

// checkServer checks one server, at pointer in the document.
func (s *Spec) checkServer(sv *openapi3.Server, pointer string, errs *source.ErrorList) {
	add := func(origin *openapi3.Origin, field, what, value string) {
		r, ok := controlIn(value)
		if !ok {
			return
		}
		pos := s.Files.PosOfField(origin, field)
		if !pos.IsValid() || pos.Line == 0 {
			pos = s.Files.PosOfPointer(pointer)
		}
		errs.Add(&source.Error{Pos: pos, Pointer: pointer,
			Msg: fmt.Sprintf("%s %q holds the control character %U, which no URL may hold", what, value, r),
			Fix: "remove it; a URL writes such a byte percent-encoded, e.g. %00"})
	}
	add(sv.Origin, "url", "server URL", sv.URL)
	for _, name := range source.SortedKeys(sv.Variables) {
		v := sv.Variables[name]
		if v == nil {
			continue
		}
		what := fmt.Sprintf("server %q: variable %q:", sv.URL, name)
		add(v.Origin, "default", what+" default", v.Default)
		for _, e := range v.Enum {
			add(v.Origin, "enum", what+" enum value", e)
		}
	}
}

// controlIn returns the first control character of s, if it has one.
func controlIn(s string) (rune, bool) {
	for _, r := range s {
		if unicode.IsControl(r) {
			return r, true
		}
	}
	return 0, false
}
