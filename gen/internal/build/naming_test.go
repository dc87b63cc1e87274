package build

import (
	"strings"
	"testing"
)

// Query parameters named with comparison operators, as Twilio's filters are, read as
// words, and no name gets a number where the spec offers a word; the method of an
// operation whose name ends in All or Pages does not read like a page walk.
func TestOperatorsAndWalkSuffixesInNames(t *testing.T) {
	api, err := buildSpec(t, `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /messages:
    get:
      operationId: listMessage
      parameters:
        - {name: DateSent, in: query, schema: {type: string, format: date-time}}
        - {name: DateSent<, in: query, schema: {type: string, format: date-time}}
        - {name: DateSent>, in: query, schema: {type: string, format: date-time}}
        - {name: DateSent<=, in: query, schema: {type: string, format: date}}
        - {name: DateSent>=, in: query, schema: {type: string, format: date}}
        - {name: Price>, in: query, schema: {type: integer}}
        - {name: Status!=, in: query, required: true, schema: {type: string}}
      responses:
        "204": {description: ok}
  /analytics/incidents/all:
    post:
      operationId: getAnalyticsMetricsIncidentsAll
      responses:
        "204": {description: ok}
  /status-pages:
    get:
      operationId: listStatusPages
      responses:
        "204": {description: ok}
`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, op := range api.Operations {
		got = append(got, op.GoName)
		for _, p := range op.Params {
			got = append(got, p.GoName)
			if p.Argument() {
				got = append(got, "arg "+p.LocalName)
			}
		}
	}
	want := "GetAnalyticsMetricsIncidentsAllCall ListMessage DateSent DateSentBefore DateSentAfter DateSentOrBefore DateSentOrAfter PriceGreaterThan StatusNot arg statusNot ListStatusPagesCall"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("names:\n got %s\nwant %s", g, want)
	}
}
