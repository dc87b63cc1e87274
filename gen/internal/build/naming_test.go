package build

import (
	"slices"
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

// namingSpec has an inline schema at each kind of place the naming rules of naming.go
// read.
const namingSpec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /customers:
    post:
      operationId: postCustomers
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                address: {type: object, properties: {city: {type: string}}}
                created: {$ref: '#/components/schemas/Range'}
      responses: {"204": {description: ok}}
  /customers/{customer}:
    post:
      operationId: postCustomersCustomer
      parameters:
        - {name: customer, in: path, required: true, schema: {type: string}}
        - {name: status, in: query, schema: {type: string, enum: [a, b]}}
      requestBody:
        content:
          application/json:
            schema:
              type: object
              properties:
                address: {type: object, properties: {line: {type: string}}}
                status: {type: string, enum: [c, d]}
                created:
                  anyOf:
                    - {title: range_query_specs, type: object, properties: {gt: {type: integer}}}
                    - {type: integer}
                payment_settings:
                  type: object
                  properties:
                    payment_method_options:
                      type: object
                      properties:
                        card: {type: object, properties: {network: {type: string}}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                oneOf:
                  - {type: object, properties: {event: {type: string, enum: [thread.created]}, id: {type: string}}}
                  - {type: object, properties: {event: {type: string, enum: [thread.deleted]}, id: {type: string}}}
                  - {type: object, properties: {a: {type: string}}}
                  - {type: object, properties: {b: {type: string}}}
  /files:
    post:
      operationId: createFile
      requestBody:
        content:
          multipart/form-data:
            schema: {type: object, properties: {file: {type: string, format: binary}}}
      responses: {"204": {description: ok}}
components:
  schemas:
    Range:
      anyOf:
        - {title: range_query_specs, type: object, properties: {gt: {type: integer}}}
        - {type: integer}
    Pet:
      type: object
      properties:
        pet_type: {type: string, enum: [cat, dog]}
        owner: {type: object, properties: {name: {type: string}}}
        permissions: {type: array, items: {type: object, properties: {scope: {type: string}}}}
        addresses: {type: array, items: {type: object, properties: {city: {type: string}}}}
        labels: {type: object, additionalProperties: {type: object, properties: {v: {type: string}}}}
        payment_method: {type: object, properties: {id: {type: string}}}
    PetOwner: {type: string}
    CreateFileRequest: {type: object, properties: {purpose: {type: string}}}
    file: {type: object, properties: {id: {type: string}}}
`

// The rules of inline names on a spec with one of each: a property's step drops what the
// step above says (PetType, not PetPetType) but keeps the words of the component
// (PetPaymentMethod); items take the singular; a name a component holds moves to the word
// of the shape (PetOwnerObject); below an operation, types start with the operation's
// name less the words a path parameter repeats (PostCustomersAddress), and the two places
// that ask for one name both move to their longer ones; a query parameter and a body
// property of one name are told apart by where they are sent; schemas of one title and
// content are one type named after the title; a variant is named after the one value it
// allows, else its place; a request body that meets a component's name says its media
// type; a component that meets a fixed name says its shape. No name ends in a number.
func TestInlineNames(t *testing.T) {
	api, err := buildSpec(t, namingSpec)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range api.Decls {
		got = append(got, d.GoName)
	}
	for _, op := range api.Operations {
		if op.ParamsType != "" {
			got = append(got, op.ParamsType)
		}
	}
	slices.Sort(got)
	want := []string{
		"CreateFileMultipartRequest", "CreateFileRequest", "FileObject",
		"Pet", "PetAddress", "PetLabelsValue", "PetOwner", "PetOwnerObject", "PetPaymentMethod", "PetPermission", "PetType",
		"PostCustomersAddress", "PostCustomersCreated", "PostCustomersCustomerAddress", "PostCustomersCustomerParams",
		"PostCustomersCustomerQueryStatus", "PostCustomersCustomerRequest", "PostCustomersCustomerRequestStatus",
		"PostCustomersCustomerResponse", "PostCustomersFourthObject",
		"PostCustomersPaymentSettings", "PostCustomersPaymentSettingsMethodOptions", "PostCustomersPaymentSettingsMethodOptionsCard",
		"PostCustomersRequest", "PostCustomersThirdObject",
		"PostCustomersThreadCreated", "PostCustomersThreadCreatedEvent", "PostCustomersThreadDeleted", "PostCustomersThreadDeletedEvent",
		"Range", "RangeQuerySpecs",
	}
	if !slices.Equal(got, want) {
		t.Errorf("names:\n got %q\nwant %q", got, want)
	}
	for _, name := range got {
		if r := name[len(name)-1]; r >= '0' && r <= '9' {
			t.Errorf("%s ends in a number", name)
		}
	}
}

// sameLower is strings.ToLower equality, for letters whose lower case is longer or
// shorter than they are ("İ", "Ⱥ"), letters only one case of which is ASCII ("K", the
// Kelvin sign) and letters EqualFold folds with ASCII ones ("ſ") too; cutWords is
// strings.CutPrefix of the words joined.
func TestSameLowerAndCutWords(t *testing.T) {
	pieces := []string{"a", "A", "z", "Z", "1", "_", "İ", "i", "I", "Ⱥ", "ⱥ", "K", "k", "K", "ß", "ẞ", "ſ", "s", "S", "é", "É", "\xff"}
	var all []string
	for _, p := range pieces {
		for _, q := range pieces {
			all = append(all, p+q, p)
		}
	}
	for _, a := range all {
		for _, b := range all {
			if got, want := sameLower(a, b), lowerEqual(a, b); got != want {
				t.Errorf("sameLower(%q, %q) = %v, want %v", a, b, got, want)
			}
		}
	}
	for _, c := range []struct {
		s     string
		words []string
	}{{"PaymentMethod", []string{"Payment"}}, {"PaymentMethod", []string{"Payment", "Method"}}, {"PaymentMethod", []string{"payment"}},
		{"Pay", []string{"Pay", "ment"}}, {"Pay2x", []string{"Pay", "2"}}, {"x", nil}} {
		rest, ok := cutWords(c.s, c.words)
		wantRest, wantOK := strings.CutPrefix(c.s, strings.Join(c.words, ""))
		if rest != wantRest || ok != wantOK {
			t.Errorf("cutWords(%q, %q) = %q, %v, want %q, %v", c.s, c.words, rest, ok, wantRest, wantOK)
		}
	}
}
