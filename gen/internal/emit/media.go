package emit

import (
	"strconv"

	"github.com/dave/jennifer/jen"
	"github.com/retrygen/retrygen/gen/model"
)

// headerSet renders the struct of an operation's declared response headers and the
// method that reads them from a ResponseInfo:
//
//	type ListItemsHeaders struct {
//		XRateLimitRemaining *int64
//	}
//
//	func (h *ListItemsHeaders) From(info *ResponseInfo) error { ... }
func (e *emitter) headerSet(op *model.Operation) *jen.Statement {
	set := op.Headers
	var d doc
	d.para(set.GoName + " holds the response headers " + op.GoName + " declares, typed; From reads them from the ResponseInfo of a call (see WithResponseInfo). A header the response lacks is nil.")
	st := d.code().Type().Id(set.GoName).StructFunc(func(g *jen.Group) {
		g.Add(noCompareField())
		for _, f := range set.Fields {
			var fd doc
			fd.para(f.GoName + " is the header " + strconv.Quote(oneLine(f.Name)) + ".")
			fd.para(f.Doc)
			g.Add(fd.code().Id(f.GoName).Op("*").Add(typ(f.Type)))
		}
	})
	var body []jen.Code
	for _, f := range set.Fields {
		body = append(body, jen.If(
			jen.Err().Op(":=").Qual(wirePath, "ReadHeader").Call(jen.Id("info").Dot("Header"), jen.Lit(f.Name), jen.Op("&").Id("h").Dot(f.GoName)),
			jen.Err().Op("!=").Nil(),
		).Block(jen.Return(jen.Err())))
	}
	body = append(body, jen.Return(jen.Nil()))
	var md doc
	md.para("From sets h from the headers in info; a header that does not parse as its declared type is an error.")
	return st.Line().Line().Add(md.code()).Func().Params(jen.Id("h").Op("*").Id(set.GoName)).Id("From").
		Params(jen.Id("info").Op("*").Id("ResponseInfo")).Error().Block(body...)
}
