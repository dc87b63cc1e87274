package build

import (
	"fmt"
	"strings"
	"testing"
)

// listSpec is a spec with one GET /items whose query parameters and 200 response's
// properties are given in YAML flow style.
func listSpec(params, props string) string {
	return fmt.Sprintf(`openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /items:
    get:
      operationId: listItems
      parameters: [%s]
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {%s}}
components:
  schemas:
    Item: {type: object, properties: {id: {type: string}}}
`, params, props)
}

// Each shape of the response and the parameters that leaves no doubt gives a walk; one
// that fits several, or has a next page's field and no way to ask for it, gives none and
// a warning located at the operation, with the overlay that would say which.
func TestBodyShapes(t *testing.T) {
	items := `items: {type: array, items: {$ref: "#/components/schemas/Item"}}`
	q := func(name, typ string) string { return "{name: " + name + ", in: query, schema: {type: " + typ + "}}" }
	for _, tt := range []struct {
		name, params, props string
		want, warn          string
	}{
		{"twilio", q("PageSize", "integer"), items + `, next_page_uri: {type: string}`, "url from next_page_uri next $.next_page_uri", ""},
		{"url", "", items + `, next_page_url: {type: string}`, "url from next_page_url next $.next_page_url", ""},
		{"json:api", "", items + `, links: {type: object, properties: {next: {type: string}}}`, "url from links.next next $.links.next", ""},
		{"hal", "", items + `, _links: {type: object, properties: {next: {type: object, properties: {href: {type: string}}}}}`, "url from _links.next.href next $._links.next.href", ""},
		{"next uri", "", items + `, next: {type: string, format: uri}`, "url from next next $.next", ""},
		{"next example", "", items + `, next: {type: string, example: "https://api.example.com/items?page=2"}`, "url from next next $.next", ""},
		{"next is not said to be a URL", "", items + `, next: {type: string}`, "none", ""},
		{"search page", q("page", "string"), items + `, has_more: {type: boolean}, next_page: {type: string}`, "cursor from next_page+page param page next $.next_page more $.has_more", ""},
		{"page number is no cursor", q("page", "integer"), items + `, next_page: {type: string}`, "none", "the response has next_page, a sign of pagination, but no parameter"},
		{"box marker", q("marker", "string") + "," + q("limit", "integer"), `entries: {type: array, items: {$ref: "#/components/schemas/Item"}}, order: {type: array, items: {type: string}}, next_marker: {type: string}`, "cursor from next_marker+marker param marker next $.next_marker", ""},
		{"offset total", q("offset", "integer") + "," + q("limit", "integer"), items + `, total: {type: integer}`, "offset from offset+limit+total param offset limit limit", ""},
		{"offset total_count", q("offset", "integer") + "," + q("limit", "integer"), items + `, total_count: {type: integer}`, "offset from offset+limit+total_count param offset limit limit", ""},
		{"offset meta.total", q("offset", "integer") + "," + q("limit", "integer"), items + `, meta: {type: object, properties: {total: {type: integer}}}`, "offset from offset+limit+meta.total param offset limit limit", ""},
		{"offset has_more", q("offset", "integer") + "," + q("limit", "integer"), items + `, has_more: {type: boolean}`, "offset from offset+limit+has_more param offset limit limit more $.has_more", ""},
		{"offset more", q("offset", "integer") + "," + q("limit", "integer"), items + `, more: {type: boolean}`, "offset from offset+limit+more param offset limit limit more $.more", ""},
		{"offset alone", q("offset", "integer") + "," + q("limit", "integer"), items, "none", ""},
		{"offset without limit", q("offset", "integer"), items + `, total: {type: integer}`, "none", ""},
		{"marker or offset", q("offset", "integer") + "," + q("limit", "integer") + "," + q("marker", "string"), items + `, total_count: {type: integer}, next_marker: {type: string}`, "none",
			"spec.yaml:5:5: GET /items (listItems): the list fits several pagination shapes, cursor (next_marker+marker) and offset (offset+limit+total_count): the operation gets no page walk\n" +
				"\tfix: say which with an overlay action (see docs/pagination.md): {target: \"$.paths['/items'].get\", update: {x-pagination: {type: cursor, inputs: [{name: marker, in: parameters, type: cursor}], outputs: {nextCursor: $.next_marker, results: $.items}}}}"},
		{"marker without parameter", q("limit", "integer"), items + `, next_marker: {type: string}`, "none", "spec.yaml:5:5: GET /items (listItems): the response has next_marker, a sign of pagination, but no parameter retrygen knows to ask for the next page with: the operation gets no page walk"},
		{"two arrays", q("marker", "string"), `a: {type: array, items: {type: string}}, b: {type: array, items: {type: string}}, next_marker: {type: string}`, "none", "no array of items retrygen can tell"},
		{"square cursor", q("cursor", "string") + "," + q("limit", "integer"), `errors: {type: array, items: {type: object, properties: {code: {type: string}}}}, payments: {type: array, items: {$ref: "#/components/schemas/Item"}}, cursor: {type: string}`,
			"cursor from cursor+cursor param cursor next $.cursor", ""},
		{"kubernetes continue", q("continue", "string") + "," + q("limit", "integer"), `apiVersion: {type: string}, items: {type: array, items: {$ref: "#/components/schemas/Item"}}, metadata: {type: object, properties: {continue: {type: string}, resourceVersion: {type: string}}}`,
			"cursor from metadata.continue+continue param continue next $.metadata.continue", ""},
		{"continue at the top", q("continue", "string"), items + `, continue: {type: string}`, "cursor from continue+continue param continue next $.continue", ""},
		{"slack", q("cursor", "string") + "," + q("limit", "integer"), `ok: {type: boolean}, channels: {type: array, items: {$ref: "#/components/schemas/Item"}}, response_metadata: {type: object, properties: {next_cursor: {type: string}}}`,
			"cursor from response_metadata.next_cursor+cursor param cursor next $.response_metadata.next_cursor", ""},
		{"a next link in the metadata is no cursor", q("cursor", "string"), items + `, meta: {type: object, properties: {next: {type: string}}}`, "none", ""},
		{"a next cursor beside the echoed one", q("cursor", "string"), items + `, cursor: {type: string}, next_cursor: {type: string}`, "cursor from next_cursor+cursor param cursor next $.next_cursor", ""},
		{"errors and warnings are no page", q("marker", "string"), `errors: {type: array, items: {type: string}}, things: {type: array, items: {$ref: "#/components/schemas/Item"}}, warnings: {type: array, items: {type: string}}, next_marker: {type: string}`,
			"cursor from next_marker+marker param marker next $.next_marker", ""},
		{"two arrays and a cursor", q("cursor", "string"), `a: {type: array, items: {type: string}}, b: {type: array, items: {type: string}}, cursor: {type: string}`, "none",
			"spec.yaml:5:5: GET /items (listItems): the list fits the pagination shape cursor+cursor, but its response has several arrays (a, b) and none of the names of a list's items: the operation gets no page walk\n" +
				"\tfix: say which array holds the items with an overlay action (see docs/pagination.md): {target: \"$.paths['/items'].get\", update: {x-pagination: {type: cursor, inputs: [{name: cursor, in: parameters, type: cursor}], outputs: {nextCursor: $.cursor, results: $.a}}}}"},
		{"cursor without parameter", q("limit", "integer"), items + `, cursor: {type: string}`, "none", "the response has cursor, a sign of pagination, but no parameter retrygen knows"},
		{"continue without parameter", q("limit", "integer"), items + `, metadata: {type: object, properties: {continue: {type: string}}}`, "none", "the response has metadata.continue, a sign of pagination, but no parameter retrygen knows"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			api, warnings := buildWarned(t, listSpec(tt.params, tt.props))
			got := "none"
			if pg := api.Operations[0].Pagination; pg != nil {
				got = string(pg.Kind) + " from " + pg.From
				if pg.Param != nil {
					got += " param " + pg.Param.Name
				}
				if pg.Limit != nil {
					got += " limit " + pg.Limit.Name
				}
				if len(pg.Cursor) > 0 {
					got += " next " + pg.Cursor.String()
				}
				if len(pg.More) > 0 {
					got += " more " + pg.More.String()
				}
			}
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			all := strings.Join(warnings, "\n")
			if tt.warn == "" && all != "" || !strings.Contains(all, tt.warn) {
				t.Errorf("warnings:\n%s\nwant:\n%s", all, tt.warn)
			}
		})
	}
}

// A next page's URL inside one variant of an anyOf, as DigitalOcean's links.pages is, is
// reached through that variant.
func TestURLShapeThroughAUnion(t *testing.T) {
	pages := `{anyOf: [{type: object, properties: {last: {type: string}, next: {type: string}}}, {type: object, properties: {first: {type: string}, prev: {type: string}}}, {}]}`
	api, warnings := buildWarned(t, listSpec("", `items: {type: array, items: {$ref: "#/components/schemas/Item"}}, links: {type: object, properties: {pages: `+pages+`}}`))
	pg := api.Operations[0].Pagination
	if pg == nil || pg.From != "links.pages.next" || pg.Cursor.String() != "$.links.pages.next" || len(pg.Cursor) != 4 || !pg.Cursor[2].Variant {
		t.Fatalf("pagination %+v, warnings %v", pg, warnings)
	}
}

// A Kubernetes list, as its Swagger 2.0 description writes it: a continue parameter and
// metadata.continue, and the watch stream beside the JSON list. The list is walked, and
// the stream has its own method.
func TestKubernetesList(t *testing.T) {
	api, warnings := buildWarned(t, `swagger: "2.0"
info: {title: k, version: "1"}
paths:
  /api/v1/pods:
    get:
      operationId: listCoreV1PodForAllNamespaces
      produces: [application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch]
      parameters:
        - {name: continue, in: query, type: string, uniqueItems: true}
        - {name: limit, in: query, type: integer}
        - {name: watch, in: query, type: boolean}
      responses:
        "200": {description: OK, schema: {$ref: "#/definitions/io.k8s.api.core.v1.PodList"}}
definitions:
  io.k8s.api.core.v1.PodList:
    type: object
    required: [items]
    properties:
      apiVersion: {type: string}
      items: {type: array, items: {$ref: "#/definitions/io.k8s.api.core.v1.Pod"}}
      kind: {type: string}
      metadata: {$ref: "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"}
  io.k8s.api.core.v1.Pod:
    type: object
    properties:
      metadata: {type: object, properties: {name: {type: string}}}
  io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta:
    type: object
    properties:
      continue: {type: string}
      remainingItemCount: {type: integer, format: int64}
      resourceVersion: {type: string}
`)
	op := api.Operations[0]
	pg := op.Pagination
	if pg == nil || pg.From != "metadata.continue+continue" || pg.Items.String() != "$.items" {
		t.Errorf("pagination %+v, warnings %v; want a walk by metadata.continue", pg, warnings)
	}
	if s := op.Stream; s == nil || s.Only || !s.Lines || s.Accept != "application/json;stream=watch" {
		t.Errorf("stream %+v; want a stream method of application/json;stream=watch", s)
	}
}
