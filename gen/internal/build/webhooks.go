package build

import (
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/internal/names"
	"github.com/retrygen/retrygen/gen/internal/source"
	"github.com/retrygen/retrygen/gen/model"
)

// webhooks generates the payload types of the document's webhooks (3.1) and of every
// operation's callbacks, so that a receiver can decode them: the JSON request body of
// each of their operations, named <Webhook>Payload or <Op><Callback>Payload when the
// schema is not a component. The client sends nothing for them, which -v says, located.
func (b *builder) webhooks(ops []*model.Operation) {
	doc := b.spec.Doc
	for _, name := range source.SortedKeys(doc.Webhooks) {
		item := doc.Webhooks[name]
		if item == nil {
			continue
		}
		b.payloads(item, names.GoName(name), "webhook "+strconv.Quote(name))
		b.warn(item.Origin, "#/webhooks/"+source.EscapePointer(name),
			"webhook %q: only its payload types are generated; receiving it is up to the application", name)
	}
	for _, op := range ops {
		kop := doc.Paths.Value(op.Path).GetOperation(op.Method)
		for _, cname := range source.SortedKeys(kop.Callbacks) {
			cb := kop.Callbacks[cname]
			if cb == nil || cb.Value == nil {
				continue
			}
			for _, expr := range source.SortedKeys(cb.Value.Map()) {
				if item := cb.Value.Value(expr); item != nil {
					b.payloads(item, op.GoName+names.GoName(cname), "callback "+strconv.Quote(cname)+" of "+op.GoName)
				}
			}
			b.warnOp(op, kop.Origin, "callback %q: only its payload types are generated; receiving it is up to the application", cname)
		}
	}
	// The last of the warnings building adds: keep them in file order with the loader's.
	b.spec.Warnings.Sort()
}

// payloads builds the JSON request body types of a webhook's or callback's operations.
func (b *builder) payloads(item *openapi3.PathItem, base, what string) {
	for _, m := range load.Methods(item) {
		kop := item.GetOperation(m.Method)
		if kop == nil || kop.RequestBody == nil || kop.RequestBody.Value == nil {
			continue
		}
		for _, ct := range source.SortedKeys(kop.RequestBody.Value.Content) {
			mt := kop.RequestBody.Value.Content[ct]
			if mt == nil || mt.Schema == nil || !IsJSONMedia(ct) {
				continue
			}
			name := base + "Payload"
			if len(load.Methods(item)) > 1 {
				name = base + names.GoName(strings.ToLower(m.Method)) + "Payload"
			}
			b.typeOf(mt.Schema, at("payload of "+what, name, name+"Body"))
			break
		}
	}
}
