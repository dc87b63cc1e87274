package emit

import (
	"github.com/dave/jennifer/jen"
)

// The types of the fixed surface that a caller builds or reads. Each is declared in the
// generated package, so that its documentation and methods show there, and is
// converted to its runtime/wire twin where generated code hands it over: the structs
// have the same fields, so the conversion costs nothing; the others hold their twin.

// wireTwins are the structs of the fixed surface with the fields of their runtime/wire
// twin.
var wireTwins = []string{"File", "ResponseInfo"}

// wireTwin renders the conversion of v, a pointer to the struct name of wireTwins, to a
// pointer to its twin: (*wire.File)(v).
func wireTwin(name string, v jen.Code) *jen.Statement {
	return jen.Parens(jen.Op("*").Qual(wirePath, name)).Call(v)
}

// method renders `func (recv) name(params) results { body }` with a doc line.
func method(docText string, recv *jen.Statement, name string, params, results []jen.Code, body ...jen.Code) *jen.Statement {
	var d doc
	d.para(docText)
	return d.code().Func().Params(recv).Id(name).Params(params...).Params(results...).Block(body...).Line()
}

// declare renders a declaration with its doc comment.
func declare(docText string, c *jen.Statement) *jen.Statement {
	var d doc
	d.para(docText)
	return d.code().Add(c).Line()
}

// responseInfo renders ResponseInfo, wire.ResponseInfo's twin.
//
//	type ResponseInfo struct {
//		StatusCode int
//		...
//	}
func responseInfo() []jen.Code {
	return []jen.Code{declare("ResponseInfo describes how a call went, for WithResponseInfo.",
		jen.Type().Id("ResponseInfo").Struct(
			jen.Comment("StatusCode is the final response's status, 0 when the call got none.").Line().Id("StatusCode").Int(),
			jen.Comment("Header is the final response's header, nil when the call got none.").Line().Id("Header").Qual(httpPath, "Header"),
			jen.Comment("Attempts is the number of attempts made, redirects not counted; for a stream it counts the").Line().
				Comment("attempts of every connection.").Line().Id("Attempts").Int(),
			jen.Comment("RetryAfter is the last Retry-After (or retry-after-ms) hint the server sent on any").Line().
				Comment("attempt of the call, 0 when none.").Line().Id("RetryAfter").Qual(timePath, "Duration"),
		)),
		method("RateLimit returns the rate limit the final response's headers describe: X-RateLimit-Remaining and its kin, the RateLimit fields, OpenAI's x-ratelimit-remaining-requests (see RateLimitStatus).",
			jen.Id("i").Op("*").Id("ResponseInfo"), "RateLimit", nil, []jen.Code{jen.Id("RateLimitStatus")},
			jen.Return(wireTwin("ResponseInfo", jen.Id("i")).Dot("RateLimit").Call())),
	}
}

// values renders Ptr, Deref, Nullable with Some and Null, Date, and File.
func values() []jen.Code {
	n := jen.Id("Nullable").Types(jen.Id("T"))
	// MarshalJSON takes a value, as encoding/json calls it on values it cannot address,
	// and so does Or, which reads a field of any expression (a method's result); the
	// other methods take a pointer, so that each instantiation compiles no second wrapper
	// for them. A value method costs each instantiation two functions, a pointer method
	// one: Or alone adds 15% to the functions of stripe.yaml's client, where a Value
	// beside it (Or with the zero value) would add as much again.
	recv := jen.Id("n").Add(n.Clone())
	ptrRecv := jen.Id("n").Op("*").Add(n.Clone())
	d := jen.Id("d").Id("Date")
	wireD := jen.Qual(wirePath, "Date").Call(jen.Id("d"))
	return []jen.Code{
		declare("noCompare, the first field of Nullable and of the package's schema, parameter and header structs, makes them not comparable with ==: the compiler then writes no equality function for each of them, which in a large API costs more to build than any use of == is worth. reflect.DeepEqual and go-cmp compare them.",
			jen.Type().Id("noCompare").Index(jen.Lit(0)).Func().Params()),
		declare("Ptr returns a pointer to v, for the optional fields of a request: Name: Ptr(\"Rex\").",
			jen.Func().Id("Ptr").Types(jen.Id("T").Any()).Params(jen.Id("v").Id("T")).Op("*").Id("T").Block(jen.Return(jen.Op("&").Id("v")))),
		declare("Deref returns *p, or fallback when p is nil: it reads an optional field in one expression, Deref(pet.Tag, \"none\").",
			jen.Func().Id("Deref").Types(jen.Id("T").Any()).Params(jen.Id("p").Op("*").Id("T"), jen.Id("fallback").Id("T")).Id("T").Block(
				jen.If(jen.Id("p").Op("!=").Nil()).Block(jen.Return(jen.Op("*").Id("p"))),
				jen.Return(jen.Id("fallback")))),
		declare("Nullable is an optional property that may also be null, so that a request can say each of three things: leave the property out (the zero value), send null (Null), or send a value (Some). Fields of this type are tagged `omitzero`, so that the zero value is left out; a merge-patch clears a property by sending Null. Decoding sets it the same way: an absent property leaves the zero value, null gives IsNull, anything else a value.",
			jen.Type().Id("Nullable").Types(jen.Id("T").Any()).Struct(
				noCompareField().Tag(map[string]string{"wire": "nullable"}),
				jen.Id("value").Id("T"),
				jen.Id("state").Uint8().Comment("0 absent, 1 null, 2 a value"),
			)),
		declare("Some returns a Nullable that holds v: Temperature: Some(0.2).",
			jen.Func().Id("Some").Types(jen.Id("T").Any()).Params(jen.Id("v").Id("T")).Add(n.Clone()).Block(
				jen.Return(n.Clone().Values(jen.Dict{jen.Id("value"): jen.Id("v"), jen.Id("state"): jen.Lit(2)})))),
		declare("Null returns a Nullable that is null: Temperature: Null[float64]().",
			jen.Func().Id("Null").Types(jen.Id("T").Any()).Params().Add(n.Clone()).Block(
				jen.Return(n.Clone().Values(jen.Dict{jen.Id("state"): jen.Lit(1)})))),
		method("Get returns the value and true, or the zero value and false when n is absent or null. It takes a pointer: call it on a field or a variable (Or reads any expression).",
			ptrRecv.Clone(), "Get", nil, []jen.Code{jen.Id("T"), jen.Bool()}, jen.Return(jen.Id("n").Dot("value"), jen.Id("n").Dot("state").Op("==").Lit(2))),
		method("Or returns the value, or fallback when n is absent or null. It takes n by value, so that it reads any expression, a method's result included: stream.Current().Usage.Or(nil).",
			recv.Clone(), "Or", []jen.Code{jen.Id("fallback").Id("T")}, []jen.Code{jen.Id("T")},
			jen.If(jen.Id("n").Dot("state").Op("==").Lit(2)).Block(jen.Return(jen.Id("n").Dot("value"))),
			jen.Return(jen.Id("fallback"))),
		method("IsNull reports whether n is null.", ptrRecv.Clone(), "IsNull", nil, []jen.Code{jen.Bool()},
			jen.Return(jen.Id("n").Dot("state").Op("==").Lit(1))),
		method("IsZero reports whether n is absent, which leaves an `omitzero` field out of JSON.", ptrRecv.Clone(), "IsZero", nil, []jen.Code{jen.Bool()},
			jen.Return(jen.Id("n").Dot("state").Op("==").Lit(0))),
		method("MarshalJSON writes the value, or null when n is null or absent.", recv.Clone(), "MarshalJSON", nil, []jen.Code{jen.Index().Byte(), jen.Error()},
			jen.Return(jen.Qual(wirePath, "MarshalNullable").Call(jen.Id("n").Dot("value"), jen.Id("n").Dot("state").Op("==").Lit(2)))),
		method("UnmarshalJSON reads null as null and anything else as the value.", ptrRecv.Clone(), "UnmarshalJSON",
			[]jen.Code{jen.Id("data").Index().Byte()}, []jen.Code{jen.Error()},
			jen.Op("*").Id("n").Op("=").Add(n.Clone()).Values(jen.Dict{jen.Id("state"): jen.Lit(1)}),
			jen.List(jen.Id("set"), jen.Err()).Op(":=").Qual(wirePath, "UnmarshalNullable").Call(jen.Id("data"), jen.Op("&").Id("n").Dot("value")),
			jen.If(jen.Id("set")).Block(jen.Id("n").Dot("state").Op("=").Lit(2)),
			jen.Return(jen.Err())),

		declare("Date is a civil date, a `format: date` value such as 2024-03-01, written as YYYY-MM-DD.",
			jen.Type().Id("Date").Struct(jen.Id("Year").Int(), jen.Id("Month").Qual(timePath, "Month"), jen.Id("Day").Int())),
		declare("DateOf returns the date of t in t's location.",
			jen.Func().Id("DateOf").Params(jen.Id("t").Qual(timePath, "Time")).Id("Date").Block(
				jen.Return(jen.Id("Date").Call(jen.Qual(wirePath, "DateOf").Call(jen.Id("t")))))),
		declare("ParseDate parses a date written YYYY-MM-DD.",
			jen.Func().Id("ParseDate").Params(jen.Id("s").String()).Params(jen.Id("Date"), jen.Error()).Block(
				jen.List(jen.Id("d"), jen.Err()).Op(":=").Qual(wirePath, "ParseDate").Call(jen.Id("s")),
				jen.Return(jen.Id("Date").Call(jen.Id("d")), jen.Err()))),
		method("String returns the date as YYYY-MM-DD.", d.Clone(), "String", nil, []jen.Code{jen.String()}, jen.Return(wireD.Clone().Dot("String").Call())),
		method("In returns the time at which the date starts in loc.", d.Clone(), "In",
			[]jen.Code{jen.Id("loc").Op("*").Qual(timePath, "Location")}, []jen.Code{jen.Qual(timePath, "Time")},
			jen.Return(wireD.Clone().Dot("In").Call(jen.Id("loc")))),
		method("IsZero reports whether d is the zero Date, which leaves an `omitzero` field out of JSON.", d.Clone(), "IsZero", nil, []jen.Code{jen.Bool()},
			jen.Return(wireD.Clone().Dot("IsZero").Call())),
		method("MarshalText writes the date as YYYY-MM-DD.", d.Clone(), "MarshalText", nil, []jen.Code{jen.Index().Byte(), jen.Error()},
			jen.Return(wireD.Clone().Dot("MarshalText").Call())),
		method("UnmarshalText reads a date written YYYY-MM-DD.", jen.Id("d").Op("*").Id("Date"), "UnmarshalText",
			[]jen.Code{jen.Id("text").Index().Byte()}, []jen.Code{jen.Error()},
			jen.Return(jen.Parens(jen.Op("*").Qual(wirePath, "Date")).Call(jen.Id("d")).Dot("UnmarshalText").Call(jen.Id("text")))),

		declare("Reopen returns a request body, a File's or a binary body's, whose content open gives: each attempt that sends it calls open for a reader of its own, and closes it, so that a body that cannot seek (a download, a command's output) can be sent again on a retry. Read directly, it reads what the first open gives.",
			jen.Func().Id("Reopen").Params(jen.Id("open").Func().Params().Params(jen.Qual(ioPath, "ReadCloser"), jen.Error())).Qual(ioPath, "Reader").Block(
				jen.Return(jen.Qual(wirePath, "Reopen").Call(jen.Id("open"))))),
		declare("File is a file sent as a part of a multipart request body, streamed from Body as the request is sent: a large file never sits in memory. A retry sends it again when Body can seek (an *os.File, a bytes.Reader), is a Reopen body, or ends within 1 MiB, which the client keeps; with any other Body the call is not retried, and its error matches ErrBodyNotReplayable.",
			jen.Type().Id("File").Struct(
				jen.Comment("Name is the filename sent; when empty, the base name of Body's Name method (an *os.File").Line().
					Comment("has one), else the property's name. A name with a control character fails the call.").Line().Id("Name").String(),
				jen.Comment("ContentType is the part's Content-Type; when empty, the one the spec gives the property,").Line().
					Comment("else application/octet-stream. Anything but one media type fails the call.").Line().Id("ContentType").String(),
				jen.Comment("Body is the content. A nil Body writes no part.").Line().Id("Body").Qual(ioPath, "Reader"),
			)),
	}
}

// eventStream renders EventStream, which holds a *wire.Stream, and StreamError,
// wire.StreamError's twin.
func eventStream() []jen.Code {
	es := jen.Id("EventStream").Types(jen.Id("T"))
	recv := jen.Id("s").Op("*").Add(es.Clone())
	inner := jen.Id("s").Dot("s")
	return []jen.Code{
		declare("EventStream is a stream of server-sent events (or of JSON values, one a line) whose data decode into T: call Next until it returns false, then Err; Close it, or cancel the call's context, to stop early. A failure before the first event is retried under the operation's policy; once events have arrived, only a retry-safe operation reconnects, with Last-Event-ID, and a stream of JSON values does not. The attempt timeout and the call's time budget bound getting the response, not reading the events.",
			jen.Type().Id("EventStream").Types(jen.Id("T").Any()).Struct(jen.Id("s").Op("*").Qual(wirePath, "Stream").Types(jen.Id("T")))),
		method("Next reads the next event, reconnecting when the operation allows it, and reports whether there is one: false at the end of the stream, on an error (see Err) or after Close.",
			recv.Clone(), "Next", nil, []jen.Code{jen.Bool()}, jen.Return(inner.Clone().Dot("Next").Call())),
		method("Current returns the event Next read, decoded.", recv.Clone(), "Current", nil, []jen.Code{jen.Id("T")},
			jen.Return(inner.Clone().Dot("Current").Call())),
		method("EventID returns the last event ID the stream set, at or before the event Next read; a reconnection resumes from it.",
			recv.Clone(), "EventID", nil, []jen.Code{jen.String()}, jen.Return(inner.Clone().Dot("Event").Call().Dot("ID"))),
		method("EventType returns the type of the event Next read, \"\" for a plain message.", recv.Clone(), "EventType", nil, []jen.Code{jen.String()},
			jen.Return(inner.Clone().Dot("Event").Call().Dot("Type"))),
		method("Delivered returns how many events Next has returned.", recv.Clone(), "Delivered", nil, []jen.Code{jen.Int()},
			jen.Return(inner.Clone().Dot("Delivered").Call())),
		method("Err returns what ended the stream: nil when it ended normally, a *StreamError when it was cut and not resumed or its context ended (matching the context's error), an error matching ErrStreamClosed when Close ended it first.",
			recv.Clone(), "Err", nil, []jen.Code{jen.Error()},
			jen.Err().Op(":=").Add(inner.Clone().Dot("Err").Call()),
			jen.If(jen.List(jen.Id("se"), jen.Id("ok")).Op(":=").Err().Assert(jen.Op("*").Qual(wirePath, "StreamError")), jen.Id("ok")).Block(
				jen.Return(jen.Parens(jen.Op("*").Id("StreamError")).Call(jen.Id("se"))),
			),
			jen.Return(jen.Err())),
		method("Close ends the stream and closes its response; it may be called from any goroutine, and again.",
			recv.Clone(), "Close", nil, []jen.Code{jen.Error()}, jen.Return(inner.Clone().Dot("Close").Call())),
		declare("StreamError ends a stream that was cut and could not be resumed.",
			jen.Type().Id("StreamError").Struct(
				jen.Id("Method").String(),
				jen.Id("Path").String(),
				jen.Comment("Delivered is how many events had arrived, Reconnects how many reconnections were made.").Line().
					Id("Delivered").Int(),
				jen.Id("Reconnects").Int(),
				jen.Comment("Err is why the stream was cut.").Line().Id("Err").Error(),
			)),
		method("Error says where the stream was cut and why.", jen.Id("e").Op("*").Id("StreamError"), "Error", nil, []jen.Code{jen.String()},
			jen.Return(jen.Parens(jen.Op("*").Qual(wirePath, "StreamError")).Call(jen.Id("e")).Dot("Error").Call())),
		method("Unwrap returns Err.", jen.Id("e").Op("*").Id("StreamError"), "Unwrap", nil, []jen.Code{jen.Error()},
			jen.Return(jen.Id("e").Dot("Err"))),
	}
}
