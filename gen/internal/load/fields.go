package load

import (
	"fmt"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
)

// unknownFields turns kin-openapi's "extra sibling fields" finding into one warning per
// field, at the field, with the fixed field it was probably meant to be: a misspelled
// `sumary` is otherwise ignored without a word. Extensions (x-...) are never reported.
func (s *Spec) unknownFields(at *source.Error, e *openapi3.ExtraSiblingFieldsError) {
	for _, name := range e.Fields {
		if strings.HasPrefix(name, "x-") {
			continue
		}
		w := *at
		w.Pos = s.Files.PosOfField(e.Origin, name)
		if !w.Pos.IsValid() {
			w.Pos = at.Pos
		}
		w.Msg = fmt.Sprintf("unknown field %q is ignored", name)
		w.Fix = ""
		if name == "pathItems" && e.Origin != nil && s.Doc.Components != nil && e.Origin == s.Doc.Components.Origin {
			// A field of 3.1's Components that kin-openapi's has not, but resolves
			// $refs into.
			if s.Doc.IsOpenAPI31OrLater() {
				continue
			}
			w.Msg = "field pathItems is for OpenAPI >=3.1"
			w.Fix = "declare openapi: 3.1.0, or write the path items under paths"
			s.Warnings.Add(&w)
			continue
		}
		switch near := source.Closest(name, fixedFields); {
		case slices.Contains(fixedFields, name): // another object's field: no suggestion
		case near != "":
			w.Fix = "did you mean " + near + "?"
		default:
			w.Fix = "remove it, or name it x-" + name + " if it is an extension"
		}
		s.Warnings.Add(&w)
	}
}

// fixedFields are the fixed field names of the OpenAPI objects (3.0 to 3.2) and the JSON
// Schema keywords they use, for suggestions.
var fixedFields = []string{
	// OpenAPI objects
	"openapi", "info", "jsonSchemaDialect", "servers", "paths", "webhooks", "components", "security",
	"tags", "externalDocs", "$self", "title", "summary", "description", "termsOfService", "contact",
	"license", "version", "name", "url", "email", "identifier", "variables", "enum", "default", "$ref",
	"get", "put", "post", "delete", "options", "head", "patch", "trace", "query",
	"additionalOperations", "parameters", "operationId", "requestBody", "responses", "callbacks",
	"deprecated", "in", "required", "allowEmptyValue", "style", "explode", "allowReserved", "schema",
	"example", "examples", "content", "encoding", "contentType", "headers", "links", "itemSchema",
	"itemEncoding", "prefixEncoding", "operationRef", "server", "schemas", "securitySchemes",
	"pathItems", "mediaTypes", "requestBodies", "type", "scheme", "bearerFormat", "flows",
	"openIdConnectUrl", "oauth2MetadataUrl", "implicit", "password", "clientCredentials",
	"authorizationCode", "deviceAuthorization", "authorizationUrl", "tokenUrl", "refreshUrl", "scopes",
	"dataValue", "serializedValue", "externalValue", "value", "discriminator", "propertyName",
	"mapping", "defaultMapping", "xml", "namespace", "prefix", "attribute", "wrapped", "nodeType",
	"parent", "kind",
	// JSON Schema keywords
	"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
	"minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxProperties", "minProperties",
	"allOf", "oneOf", "anyOf", "not", "items", "properties", "additionalProperties", "format",
	"nullable", "readOnly", "writeOnly", "const", "$id", "$schema", "$defs", "$anchor", "$dynamicRef",
	"$dynamicAnchor", "$comment", "if", "then", "else", "dependentSchemas", "dependentRequired",
	"prefixItems", "contains", "maxContains", "minContains", "patternProperties", "propertyNames",
	"unevaluatedItems", "unevaluatedProperties", "contentEncoding", "contentMediaType", "contentSchema",
}
