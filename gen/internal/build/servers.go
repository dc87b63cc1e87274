package build

import (
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// serverConsts declares the document's servers as constants ServerURL, ServerURL2, ...;
// a server with variables also gets a function that fills them, named after the
// constant with "For" (ServerURLFor).
func (b *builder) serverConsts() []*model.ServerConst {
	var out []*model.ServerConst
	for i, s := range b.spec.Doc.Servers {
		if s == nil || s.URL == "" {
			continue
		}
		name := "ServerURL"
		if i > 0 {
			name += strconv.Itoa(i + 1)
		}
		c := &model.ServerConst{
			GoName:      b.pkg.UniqueFor(name, "server "+strconv.Quote(s.URL)),
			URL:         s.URL,
			Description: s.Description,
		}
		if len(s.Variables) > 0 {
			c.FuncName = b.pkg.UniqueFor(c.GoName+"For", "server "+strconv.Quote(s.URL))
			args := names.NewNamer("ctx", "error", "string")
			for _, k := range source.SortedKeys(s.Variables) {
				v := s.Variables[k]
				if v == nil {
					continue
				}
				c.Vars = append(c.Vars, model.ServerVar{
					Name:        k,
					GoName:      args.Unique(names.LowerName(k)),
					Default:     v.Default,
					Enum:        v.Enum,
					Description: v.Description,
				})
			}
		}
		out = append(out, c)
	}
	return out
}

// operationServer sets op.Server from the operation's servers, else its path item's.
// Only a server without variables can be used as is; one with variables is filled with
// its defaults. A list of several uses the first, with a warning.
func (b *builder) operationServer(op *model.Operation, item *openapi3.PathItem, kop *openapi3.Operation) {
	servers := item.Servers
	if kop.Servers != nil && len(*kop.Servers) > 0 {
		servers = *kop.Servers
	}
	if len(servers) == 0 || servers[0] == nil {
		return
	}
	s := servers[0]
	u := s.URL
	for k, v := range s.Variables {
		if v != nil {
			u = strings.ReplaceAll(u, "{"+k+"}", v.Default)
		}
	}
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		b.warnOp(op, kop.Origin, "server %q is not an absolute http or https URL; the operation uses the client's base URL", s.URL)
		return
	}
	if len(servers) > 1 {
		b.warnOp(op, kop.Origin, "the operation lists %d servers; it uses the first, %q", len(servers), s.URL)
	}
	op.Server = strings.TrimSuffix(u, "/")
}
