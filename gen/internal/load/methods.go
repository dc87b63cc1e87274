package load

import (
	"cmp"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
)

// methodOrder is the order of operations within one path.
var methodOrder = []string{
	http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete,
	http.MethodOptions, http.MethodHead, http.MethodPatch, http.MethodTrace,
}

// Method is one operation of a path item.
type Method struct {
	Method  string // e.g. "GET" or "COPY"
	Pointer string // from the path item, e.g. "/get" or "/additionalOperations/COPY"
}

// Methods lists the operations item defines in a stable order: GET PUT POST DELETE
// OPTIONS HEAD PATCH TRACE, then any others sorted.
func Methods(item *openapi3.PathItem) []Method {
	var out []Method
	for _, m := range methodOrder {
		if item.GetOperation(m) != nil {
			out = append(out, Method{m, "/" + strings.ToLower(m)})
		}
	}
	var rest []Method
	for m := range item.Operations() {
		if slices.Contains(methodOrder, m) {
			continue
		}
		ptr := "/" + strings.ToLower(m)
		if _, ok := item.AdditionalOperations[m]; ok && m != openapi3.MethodQuery {
			ptr = "/additionalOperations/" + source.EscapePointer(m)
		}
		rest = append(rest, Method{m, ptr})
	}
	slices.SortFunc(rest, func(a, b Method) int { return cmp.Compare(a.Method, b.Method) })
	return append(out, rest...)
}
