package build

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/model"
)

// pagingSpec is a spec whose operations show each way pagination is found; ops are
// appended under paths.
func pagingSpec(ops string) string {
	return `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
` + ops + `
components:
  schemas:
    Item:
      type: object
      required: [id]
      properties:
        id: {type: string}
        name: {type: string}
`
}

// buildWarned builds yaml and returns the model with the spec's warnings.
func buildWarned(t *testing.T, yaml string) (*model.API, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := load.Load(path, load.Options{})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	api, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	var warnings []string
	for _, w := range spec.Warnings {
		warnings = append(warnings, w.Error())
	}
	return api, warnings
}

// describe writes an operation's pagination as the tests compare it.
func describe(pg *model.Pagination) string {
	if pg == nil {
		return "none"
	}
	s := string(pg.Kind) + " from " + pg.From
	if pg.Param != nil {
		s += " param=" + pg.Param.Name
	}
	if pg.Limit != nil {
		s += " limit=" + pg.Limit.Name
	}
	s += " items=" + pg.Items.String() + " item=" + pg.Item.String()
	if len(pg.Cursor) > 0 {
		s += " cursor=" + pg.Cursor.String()
	}
	if len(pg.More) > 0 {
		s += " more=" + pg.More.String()
	}
	if len(pg.NumPages) > 0 {
		s += " pages=" + pg.NumPages.String()
	}
	return s
}

const listQuery = `
      parameters:
        - {name: limit, in: query, schema: {type: integer}}
        - {name: starting_after, in: query, schema: {type: string}}
        - {name: after, in: query, schema: {type: string}}
        - {name: page_token, in: query, schema: {type: string}}
        - {name: cursor, in: query, schema: {type: string}}
        - {name: offset, in: query, schema: {type: integer}}
        - {name: page, in: query, schema: {type: integer, default: 0}}`

func listOp(path, responseSchema, extra string) string {
	return `  ` + path + `:
    get:
      operationId: ` + strings.Trim(strings.ReplaceAll(path, "/", "_"), "_") + listQuery + extra + `
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: ` + responseSchema + `
`
}

func TestPaginationDetection(t *testing.T) {
	items := `{type: array, items: {$ref: "#/components/schemas/Item"}}`
	object := func(props string) string { return `{type: object, properties: {` + props + `}}` }
	for _, tt := range []struct {
		name, op, want string
	}{
		{"stripe", listOp("/charges", object(`has_more: {type: boolean}, data: `+items+`, url: {type: string}`), ""),
			"cursor from has_more+data+starting_after param=starting_after items=$.data item=Item cursor=$.data[-1].id more=$.has_more"},
		{"openai", listOp("/assistants", object(`has_more: {type: boolean}, data: `+items+`, last_id: {type: string}`), ""),
			"cursor from has_more+data+after+last_id param=after items=$.data item=Item cursor=$.last_id more=$.has_more"},
		{"aip-158", listOp("/books", object(`books: `+items+`, next_page_token: {type: string}`), ""),
			"cursor from next_page_token+page_token param=page_token items=$.books item=Item cursor=$.next_page_token"},
		{"next_cursor", listOp("/events", object(`data: `+items+`, next_cursor: {type: string}`), ""),
			"cursor from next_cursor+cursor param=cursor items=$.data item=Item cursor=$.next_cursor"},
		{"offset and limit with has_more", listOp("/x", object(`has_more: {type: boolean}, data: {type: array, items: {type: string}}`), ""),
			"offset from offset+limit+has_more param=offset limit=limit items=$.data item=string more=$.has_more"},
		{"offset and limit alone", listOp("/y", items, ""), "none"},
		{"x-pagination offset", listOp("/z", object(`results: `+items), `
      x-pagination:
        type: offsetLimit
        inputs:
          - {name: offset, in: parameters, type: offset}
          - {name: limit, in: parameters, type: limit}
        outputs: {results: $.results}`),
			"offset from x-pagination param=offset limit=limit items=$.results item=Item"},
		{"x-speakeasy-pagination page", listOp("/p", object(`data: `+items+`, meta: {type: object, properties: {pages: {type: integer}}}`), `
      x-speakeasy-pagination:
        type: offsetLimit
        inputs:
          - {name: page, in: parameters, type: page}
        outputs: {results: $.data, numPages: $.meta.pages}`),
			"page from x-speakeasy-pagination param=page items=$.data item=Item pages=$.meta.pages"},
		{"x-speakeasy-pagination cursor from the last item", listOp("/c", items, `
      x-speakeasy-pagination:
        type: cursor
        inputs: [{name: starting_after, in: parameters, type: cursor}]
        outputs: {nextCursor: "$[-1].id"}`),
			"cursor from x-speakeasy-pagination param=starting_after items=$ item=Item cursor=$[-1].id"},
		{"x-speakeasy-pagination url", listOp("/u", object(`data: `+items+`, links: {type: object, properties: {next: {type: string}}}`), `
      x-speakeasy-pagination:
        type: url
        outputs: {nextUrl: $.links.next, results: $.data}`),
			"url from x-speakeasy-pagination items=$.data item=Item cursor=$.links.next"},
		{"x-pagination link", listOp("/l", items, `
      x-pagination: {type: link}`),
			"link from x-pagination items=$ item=Item"},
		{"x-pagination false turns a shape off", listOp("/off", object(`data: `+items+`, next_cursor: {type: string}`), `
      x-pagination: false`), "none"},
		{"x-pagination wins over x-speakeasy-pagination", listOp("/both", object(`data: `+items+`, next_cursor: {type: string}, more: {type: boolean}`), `
      x-speakeasy-pagination: {type: offsetLimit, inputs: [{name: offset, in: parameters, type: offset}], outputs: {results: $.data}}
      x-pagination: {type: cursor, inputs: [{name: cursor, in: parameters, type: cursor}], outputs: {nextCursor: $.next_cursor, hasMore: $.more}}`),
			"cursor from x-pagination param=cursor items=$.data item=Item cursor=$.next_cursor more=$.more"},
		{"a broken x-pagination gives way to x-speakeasy-pagination", listOp("/broken", object(`data: `+items+`, next_cursor: {type: string}`), `
      x-speakeasy-pagination: {type: offsetLimit, inputs: [{name: offset, in: parameters, type: offset}], outputs: {results: $.data}}
      x-pagination: {type: cursor, inputs: [{name: cursor, in: parameters, type: cursor}], outputs: {nextCursor: $.next_cursor, hasMore: $.data}}`),
			"offset from x-speakeasy-pagination param=offset items=$.data item=Item"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			api, _ := buildWarned(t, pagingSpec(tt.op))
			if got := describe(api.Operations[0].Pagination); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// A declared Link header makes a list paginated, its items the array or the response's
// one array property.
func TestLinkPagination(t *testing.T) {
	api, _ := buildWarned(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /issues:
    get:
      operationId: listIssues
      responses:
        "200":
          description: ok
          headers: {Link: {schema: {type: string}}}
          content:
            application/json:
              schema: {type: array, items: {type: string}}
  /runs:
    get:
      operationId: listRuns
      responses:
        "200":
          description: ok
          headers: {link: {schema: {type: string}}}
          content:
            application/json:
              schema: {type: object, properties: {total_count: {type: integer}, runs: {type: array, items: {type: integer}}}}
  /two:
    get:
      operationId: listTwo
      responses:
        "200":
          description: ok
          headers: {Link: {schema: {type: string}}}
          content:
            application/json:
              schema: {type: object, properties: {users: {type: array, items: {type: integer}}, teams: {type: array, items: {type: integer}}}}
  /write:
    post:
      operationId: postWrite
      responses:
        "200":
          description: ok
          headers: {Link: {schema: {type: string}}}
          content:
            application/json:
              schema: {type: array, items: {type: string}}
`)
	want := map[string]string{
		"ListIssues": "link from Link header items=$ item=string",
		"ListRuns":   "link from Link header items=$.runs item=int64",
		"ListTwo":    "none",
		"PostWrite":  "none",
	}
	for _, op := range api.Operations {
		if got := describe(op.Pagination); got != want[op.GoName] {
			t.Errorf("%s: got %s, want %s", op.GoName, got, want[op.GoName])
		}
	}
	pg := api.Operations[0].Pagination
	if pg.AllName != "ListIssuesAll" || pg.PagesName != "ListIssuesPages" || pg.PageType != "ListIssuesPage" {
		t.Errorf("names %s, %s, %s", pg.AllName, pg.PagesName, pg.PageType)
	}
}

// The names of the walk never take a name the spec's operations or schemas have: they
// are decided after every other.
func TestPaginationNamesGiveWay(t *testing.T) {
	api, _ := buildWarned(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /issues:
    get:
      operationId: listIssues
      responses:
        "200":
          description: ok
          headers: {Link: {schema: {type: string}}}
          content:
            application/json:
              schema: {type: array, items: {$ref: "#/components/schemas/ListIssuesPage"}}
  /all:
    get:
      operationId: listIssuesAll
      responses:
        "204": {description: ok}
components:
  schemas:
    ListIssuesPage: {type: object, properties: {id: {type: string}}}
`)
	pg := api.Operations[1].Pagination
	if pg == nil {
		t.Fatalf("no pagination for %s", api.Operations[1].GoName)
	}
	if api.Operations[0].GoName != "ListIssuesAllCall" || pg.AllName != "ListIssuesAll" || pg.PageType != "ListIssuesPage2" || pg.Item.String() != "ListIssuesPage" {
		t.Errorf("method %s, walk %s, page type %s of %s", api.Operations[0].GoName, pg.AllName, pg.PageType, pg.Item)
	}
}

// An extension that does not fit the operation is a warning located where it is wrong,
// and the operation falls back to what the spec shows otherwise.
func TestPaginationExtensionWarnings(t *testing.T) {
	items := `{type: array, items: {$ref: "#/components/schemas/Item"}}`
	for _, tt := range []struct {
		name, ext, want string
		line            int
	}{
		{"not an object", `x-pagination: yes`, `x-pagination must be an object with type, inputs and outputs, or false, got "yes"`, 14},
		{"unknown type", `x-speakeasy-pagination: {type: link}`, `x-speakeasy-pagination.type must be offsetLimit, cursor or url, got "link"`, 14},
		{"misspelled field", "x-pagination:\n        type: cursor\n        input: []", `x-pagination: unknown field "input"`, 16},
		{"no such parameter", "x-pagination:\n        type: cursor\n        inputs:\n          - {name: curser, in: parameters, type: cursor}\n        outputs: {nextCursor: $.next}",
			`x-pagination.inputs[0]: the operation has no query or header parameter "curser"`, 17},
		{"no such property", "x-speakeasy-pagination:\n        type: cursor\n        inputs: [{name: cursor, in: parameters, type: cursor}]\n        outputs:\n          nextCursor: $.next_cursor",
			`x-speakeasy-pagination.outputs.nextCursor: $.next_cursor: the response has no property "next_cursor" at $`, 18},
		{"results not an array", "x-pagination:\n        type: offsetLimit\n        inputs: [{name: offset, in: parameters, type: offset}]\n        outputs: {results: $.next}",
			`x-pagination.outputs.results: $.next is not an array`, 17},
		{"cursor without input", "x-pagination: {type: cursor, outputs: {nextCursor: $.next}}", `x-pagination: a cursor pagination needs an input of type cursor`, 14},
		{"body input", "x-pagination: {type: cursor, inputs: [{name: cursor, in: requestBody, type: cursor}], outputs: {nextCursor: $.next}}",
			`a cursor in the request body is not supported`, 14},
	} {
		t.Run(tt.name, func(t *testing.T) {
			api, warnings := buildWarned(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /list:
    get:
      operationId: list
      parameters:
        - {name: cursor, in: query, schema: {type: string}}
        - {name: offset, in: query, schema: {type: integer}}
      responses:
        "200":
          description: ok
          content: {application/json: {schema: {type: object, properties: {data: `+items+`, next: {type: string}}}}}
      `+tt.ext+`
components:
  schemas:
    Item: {type: object, properties: {id: {type: string}}}
`)
			var found string
			for _, w := range warnings {
				if strings.Contains(w, tt.want) {
					found = w
				}
			}
			if found == "" {
				t.Fatalf("warnings %q: want one with %q", warnings, tt.want)
			}
			if !strings.Contains(found, "spec.yaml:"+strconv.Itoa(tt.line)+":") || !strings.Contains(found, "GET /list (list)") {
				t.Errorf("warning %q: want it at line %d, naming the operation", found, tt.line)
			}
			// The next source is tried: here the next/cursor shape.
			if got := describe(api.Operations[0].Pagination); got != "cursor from next+cursor param=cursor items=$.data item=Item cursor=$.next" {
				t.Errorf("fallback: %s", got)
			}
		})
	}
}
