package build

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/model"
)

func TestIsTextMedia(t *testing.T) {
	for ct, want := range map[string]bool{
		"text/plain":                 true,
		"text/csv; charset=utf-8":    true,
		"TEXT/HTML":                  true,
		"text/x-markdown":            true,
		"application/xml":            true,
		"application/atom+xml":       true,
		"application/x-yaml":         true,
		"application/x-ndjson":       false, // a stream of JSON values
		"application/sdp":            true,
		"text/event-stream":          false,
		"text/*":                     true,
		"application/json":           false,
		"application/octet-stream":   false,
		"application/pdf":            false,
		"image/png":                  false,
		"audio/*":                    false,
		"application/zip":            false,
		"application/vnd.ms-excel":   false,
		"application/octocat-stream": false,
	} {
		if got := isTextMedia(ct); got != want {
			t.Errorf("isTextMedia(%q) = %v, want %v", ct, got, want)
		}
	}
}

const mediaSpec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /text:
    get:
      operationId: getText
      responses:
        "200":
          description: ok
          content:
            text/plain: {schema: {type: string}}
            text/csv: {schema: {type: string}}
  /mixed:
    get:
      operationId: getMixed
      responses:
        "200":
          description: ok
          content:
            text/csv: {schema: {type: string}}
            application/pdf: {schema: {type: string, format: binary}}
  /both:
    post:
      operationId: postBoth
      requestBody:
        content:
          application/json: {schema: {type: object, properties: {a: {type: string}}}}
          text/plain: {schema: {type: string}}
      responses:
        "200":
          description: ok
          content:
            application/json: {schema: {type: object, properties: {a: {type: string}}}}
            application/problem+json: {schema: {type: object, properties: {a: {type: string}}}}
            text/csv: {schema: {type: string}}
  /pdf:
    get:
      operationId: getPDF
      responses:
        "200":
          description: ok
          content:
            application/json: {schema: {type: object, properties: {a: {type: string}}}}
            application/pdf: {schema: {type: string, format: binary}}
  /events:
    get:
      operationId: getEvents
      responses:
        "200":
          description: ok
          content:
            text/event-stream: {schema: {type: string}}
            text/plain: {schema: {type: string}}
  /starred:
    get:
      operationId: getStarred
      responses:
        "200":
          description: ok
          content:
            application/json: {schema: {type: object, properties: {a: {type: string}}}}
            application/vnd.star+json: {schema: {type: object, properties: {b: {type: string}}}}
  /file:
    get:
      operationId: getFile
      responses:
        "200":
          description: ok
          content:
            application/json: {schema: {type: string, format: binary}}
`

// TestResponseMedia: what each method returns, asks for and takes, by the media types its
// responses declare.
func TestResponseMedia(t *testing.T) {
	api, err := buildSpec(t, mediaSpec)
	if err != nil {
		t.Fatal(err)
	}
	methods := map[string]*model.Operation{}
	for _, op := range api.Operations {
		methods[op.GoName] = op
		for _, v := range op.Variants {
			methods[v.GoName] = v
		}
		if op.Stream != nil && !op.Stream.Only {
			methods[op.Stream.GoName] = nil
		}
	}
	var names []string
	for n := range methods {
		names = append(names, n)
	}
	slices.Sort(names)
	if got, want := strings.Join(names, " "), "GetEvents GetEventsStream GetFile GetMixed GetPDF GetStarred GetText PostBoth PostBothText PostBothText2"; got != want {
		t.Fatalf("methods %s, want %s", got, want)
	}
	for _, tc := range []struct {
		method, result, accept, media string
		strict                        bool
	}{
		{"GetText", "string", "text/csv, text/plain", "text/csv, text/plain", false},
		{"GetMixed", "io.ReadCloser", "application/pdf, text/csv", "", false},
		{"PostBoth", "*PostBothResponse", "application/json, application/problem+json", "", false},
		{"PostBothText", "*PostBothResponse", "application/json, application/problem+json", "", false},
		{"PostBothText2", "string", "text/csv", "text/csv", false},
		{"GetPDF", "*GetPDFResponse", "application/json", "", false},
		{"GetEvents", "string", "text/plain", "text/plain", false},
		{"GetFile", "io.ReadCloser", "application/json", "", false},
		{"GetStarred", "*GetStarredResponse", "application/json", "", false},
	} {
		op := methods[tc.method]
		if op.Result == nil {
			t.Errorf("%s: no result", tc.method)
			continue
		}
		r := op.Result.Responses[0]
		if got := op.Result.Type.String(); got != tc.result {
			t.Errorf("%s returns %s, want %s", tc.method, got, tc.result)
		}
		if op.Result.Accept != tc.accept {
			t.Errorf("%s: Accept %q, want %q", tc.method, op.Result.Accept, tc.accept)
		}
		if got := strings.Join(r.Media, ", "); got != tc.media || r.Text != (tc.media != "") {
			t.Errorf("%s: text %v of %q, want %q", tc.method, r.Text, got, tc.media)
		}
		if op.Result.StrictJSON != tc.strict {
			t.Errorf("%s: StrictJSON %v", tc.method, op.Result.StrictJSON)
		}
	}
	// The request body's text/plain method keeps the name it had before responses had
	// text methods; the text response's method takes the next.
	if b := methods["PostBothText"].Body; b == nil || b.ContentType != "text/plain" {
		t.Errorf("PostBothText is not the text/plain request body variant: %+v", b)
	}
	if b := methods["PostBothText2"].Body; b == nil || b.ContentType != "application/json" {
		t.Errorf("PostBothText2 does not send the JSON body: %+v", b)
	}
}

// JSON offered with text/plain makes the JSON method strict about its Content-Type.
func TestStrictJSONWithPlainText(t *testing.T) {
	api, err := buildSpec(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /x:
    get:
      operationId: getX
      responses:
        "200":
          description: ok
          content:
            application/json: {schema: {type: object, properties: {a: {type: string}}}}
            text/plain: {schema: {type: string}}
`)
	if err != nil {
		t.Fatal(err)
	}
	op := api.Operations[0]
	if !op.Result.StrictJSON || len(op.Variants) != 1 || op.Variants[0].GoName != "GetXText" || op.Variants[0].Result.Accept != "text/plain" {
		t.Errorf("StrictJSON %v, variants %d", op.Result.StrictJSON, len(op.Variants))
	}
}

// TestResponseMediaRange: a media range ("*/*", as springdoc writes every response)
// whose schema is structured is JSON, for the result and for the error model; a string
// or free-form schema under it stays unread.
func TestResponseMediaRange(t *testing.T) {
	api, err := buildSpec(t, `openapi: 3.0.1
info: {title: t, version: "1"}
paths:
  /pet:
    get:
      operationId: getPet
      responses:
        "200": {description: ok, content: {"*/*": {schema: {$ref: "#/components/schemas/Pet"}}}}
        "404": {description: e, content: {"*/*": {schema: {$ref: "#/components/schemas/Pet"}}}}
  /list:
    get:
      operationId: list
      responses:
        "200": {description: ok, content: {"application/*": {schema: {type: array, items: {type: integer}}}}}
  /raw:
    get:
      operationId: raw
      responses:
        "200": {description: ok, content: {"*/*": {schema: {type: string}}}}
  /any:
    get:
      operationId: anything
      responses:
        "200": {description: ok, content: {"*/*": {schema: {description: free}}}}
components:
  schemas:
    Pet: {type: object, properties: {name: {type: string}}}
`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"GetPet": "*Pet", "List": "[]int64", "Raw": "io.ReadCloser", "Anything": "io.ReadCloser"}
	for _, op := range api.Operations {
		if got := op.Result.Type.String(); got != want[op.GoName] {
			t.Errorf("%s returns %s, want %s", op.GoName, got, want[op.GoName])
		}
		if op.GoName == "GetPet" && (op.Errors == nil || len(op.Errors.Cases) != 1) {
			t.Errorf("GetPet: error cases %+v", op.Errors)
		}
	}
}

// A media type whose parameters do not parse is still its type: the spec's text is read
// as the runtime reads a response's Content-Type.
func TestMediaTypeWithBadParameters(t *testing.T) {
	for ct, want := range map[string]string{
		"application/json":                "application/json",
		"Application/JSON; charset=utf-8": "application/json",
		"application/json; charset":       "application/json",
		"text/csv;;":                      "text/csv",
		" text/plain ; x=\"":              "text/plain",
	} {
		if got := mediaType(ct); got != want {
			t.Errorf("mediaType(%q) = %q, want %q", ct, got, want)
		}
	}
	if !IsJSONMedia("application/json; charset") || !isTextMedia("text/csv;;") || !isEventStream("text/event-stream; x") {
		t.Error("a media type with a parameter that does not parse is not read as its type")
	}
}

// A response of JSON values one a line is a stream, as text/event-stream is: its own
// method when the operation offers nothing else, else <Op>Stream beside the JSON method,
// which no longer asks for it. Server-sent events win over it.
func TestJSONStreams(t *testing.T) {
	op := func(id, content string) string {
		return "  /" + id + ":\n    get:\n      operationId: " + id + "\n      responses:\n        \"200\":\n          description: ok\n          content: {" + content + "}\n"
	}
	tick := `{schema: {type: object, properties: {n: {type: integer}}}}`
	api, err := buildSpec(t, "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n"+
		op("ndjson", `application/x-ndjson: `+tick)+
		op("jsonl", `application/jsonl: `+tick)+
		op("seq", `application/json-seq: `+tick)+
		op("watch", `application/json: `+tick+`, "application/json; stream=watch": `+tick+`, application/yaml: `+tick)+
		op("both", `text/event-stream: `+tick+`, application/x-ndjson: `+tick)+
		op("param", `"application/json;stream=other": `+tick)+
		op("strings", `application/x-ndjson: {schema: {type: string}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range api.Operations {
		s := "no stream"
		if o.Stream != nil {
			s = fmt.Sprintf("%s %s lines=%v only=%v", o.Stream.GoName, o.Stream.Accept, o.Stream.Lines, o.Stream.Only)
			if o.Stream.Text {
				s += " text"
			}
		}
		if o.Result != nil {
			s += "; result " + o.Result.Accept
		}
		got[o.GoName] = s
	}
	for name, want := range map[string]string{
		"Ndjson": "Ndjson application/x-ndjson lines=true only=true",
		"Jsonl":  "Jsonl application/jsonl lines=true only=true",
		"Seq":    "Seq application/json-seq lines=true only=true",
		"Watch":  "WatchStream application/json; stream=watch lines=true only=false; result application/json",
		"Both":   "Both text/event-stream lines=false only=true",
		"Param":  "no stream; result application/json;stream=other",
		// Each line is JSON, a string too: it is decoded, not taken as text.
		"Strings": "Strings application/x-ndjson lines=true only=true",
	} {
		if got[name] != want {
			t.Errorf("%s: %s\n\twant %s", name, got[name], want)
		}
	}
}

func TestIsJSONStream(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/x-ndjson":                             true,
		"application/jsonl":                                true,
		"application/x-jsonlines":                          true,
		"application/json-seq":                             true,
		"application/json;stream=watch":                    true,
		"Application/JSON; Stream=watch":                   true,
		"application/json; charset=utf-8":                  false,
		"application/json;stream=other":                    false,
		"application/vnd.kubernetes.protobuf;stream=watch": false,
		"text/event-stream":                                false,
	} {
		if got := isJSONStream(ct); got != want {
			t.Errorf("isJSONStream(%q) = %v, want %v", ct, got, want)
		}
	}
}
