package emit

import (
	"github.com/dave/jennifer/jen"
	"github.com/retrygen/retrygen/gen/model"
)

// streamMethod finishes a method whose result is an event stream: body holds the
// statements that built the request r.
func (e *emitter) streamMethod(op *model.Operation, d doc, args, body []jen.Code) *jen.Statement {
	s := op.Stream
	resume := "A stream that is cut reconnects with Last-Event-ID."
	if !op.Policy.Retry {
		resume = "A stream that is cut is not resumed: it ends with a *StreamError that says how many events were delivered."
	}
	if s.Lines {
		resume = "A stream cut before its first value is retried; one cut after it is not resumed: it ends with a *StreamError that says how many values were delivered."
		if !op.Policy.Retry {
			resume = "A stream that is cut is not resumed: it ends with a *StreamError that says how many values were delivered."
		}
		d.para("It returns the JSON values of the response, one a line (" + oneLine(s.Accept) + "), as an EventStream. " + resume)
	} else {
		d.para("It returns the server-sent events as an EventStream that ends at the event whose data is " + quoteDoc(s.Sentinel) + ". " + resume)
	}
	if s.Flag != nil {
		d.para("It sends the body's " + quoteDoc(s.Flag.Name) + " property true, whatever the caller set, to ask for the stream.")
	}
	cfg := jen.Dict{jen.Id("Accept"): jen.Lit(s.Accept)}
	if s.Lines {
		cfg[jen.Id("Lines")] = jen.True()
	} else {
		cfg[jen.Id("Sentinel")] = jen.Lit(s.Sentinel)
	}
	if s.Text {
		cfg[jen.Id("Text")] = jen.True()
	}
	if op.Errors != nil {
		cfg[jen.Id("DecodeError")] = picker(op.Errors)
	}
	if s.IdleTimeout != 0 {
		cfg[jen.Id("IdleTimeout")] = duration(s.IdleTimeout)
	}
	events := jen.Op("&").Id("EventStream").Types(typ(s.Type)).Values(jen.Id("stream"))
	result := jen.Op("*").Id("EventStream").Types(typ(s.Type))
	if a := s.Accumulate; a != nil {
		cfg[jen.Id("Accumulate")] = jen.Lit(a.Shape)
		events = jen.Op("&").Id(a.GoName).Values(events)
		result = jen.Op("*").Id(a.GoName)
		d.para("Its events are deltas of the operation's JSON response: " + a.GoName + ".Accumulate adds them up to it.")
	}
	body = append(body,
		jen.List(jen.Id("stream"), jen.Err()).Op(":=").Qual(wirePath, "OpenStream").Types(typ(s.Type)).Call(
			jen.Id("ctx"), jen.Id("c").Dot("wire"), jen.Id("r"), jen.Op("&").Id(op.PolicyVar),
			jen.Qual(wirePath, "StreamConfig").Values(cfg), jen.Id("callOptions").Call(jen.Id("opts")),
		),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(events, jen.Nil()),
	)
	return d.code().Func().Params(jen.Id("c").Op("*").Id("Client")).Id(op.GoName).
		Params(args...).Params(result, jen.Error()).Block(body...)
}

func quoteDoc(s string) string { return "\"" + oneLine(s) + "\"" }
