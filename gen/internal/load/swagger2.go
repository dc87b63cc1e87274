package load

import (
	"fmt"
	"mime"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
)

// Swagger 2.0: decoded by kin-openapi's openapi2 and converted to OpenAPI 3, completing
// what the conversion leaves out.

func (s *Spec) loadSwagger2(loader *openapi3.Loader, data []byte, location *url.URL) (*openapi3.T, error) {
	var doc2 openapi2.T
	if err := openapi2.UnmarshalFromData(data, &doc2); err != nil {
		return nil, err
	}
	s.Version = doc2.Swagger
	if doc2.Swagger != "2.0" {
		return nil, &versionError{version: doc2.Swagger, field: "swagger"}
	}
	doc, err := openapi2conv.ToV3WithLoader(&doc2, loader, location)
	if err != nil {
		return nil, err
	}
	s.completeFormBodies(&doc2, doc)
	return doc, nil
}

// completeFormBodies gives the form bodies that openapi2conv makes of formData parameters
// what the conversion leaves out: the body is required when one of its parameters is,
// and in an application/x-www-form-urlencoded body an array parameter's collectionFormat
// (csv when it has none) becomes its property's encoding: csv is form style without
// explode ("a=1,2"), ssv spaceDelimited, pipes pipeDelimited, multi form with explode
// ("a=1&a=2"). tsv has no OpenAPI 3 equivalent: it is written as csv is, with a warning.
// A multipart body writes an array as one part per item whatever its collectionFormat.
func (s *Spec) completeFormBodies(doc2 *openapi2.T, doc *openapi3.T) {
	for _, path := range source.SortedKeys(doc2.Paths) {
		item2, item := doc2.Paths[path], doc.Paths.Value(path)
		if item2 == nil || item == nil {
			continue
		}
		ops := item2.Operations()
		for _, method := range source.SortedKeys(ops) {
			op := item.GetOperation(method)
			if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
				continue
			}
			body := op.RequestBody.Value
			pointer := "#/paths/" + source.EscapePointer(path) + "/" + strings.ToLower(method) + "/parameters"
			for _, p := range formDataParams(doc2, item2.Parameters, ops[method].Parameters) {
				if p.Required {
					body.Required = true
				}
				if !p.Type.Is("array") {
					continue
				}
				enc := &openapi3.Encoding{Style: openapi3.SerializationForm, Explode: openapi3.Ptr(false)}
				switch p.CollectionFormat {
				case "ssv":
					enc.Style = openapi3.SerializationSpaceDelimited
				case "pipes":
					enc.Style = openapi3.SerializationPipeDelimited
				case "multi":
					enc.Explode = openapi3.Ptr(true)
				case "tsv":
					s.Warnings.Add(&source.Error{
						Pos: s.Files.PosOfPointer(pointer), Op: source.OpName(method, path, op.OperationID),
						Msg: fmt.Sprintf("formData parameter %q: collectionFormat tsv has no OpenAPI 3 equivalent; it is sent comma-separated, as csv", p.Name),
						Fix: "use csv, ssv, pipes or multi",
					})
				}
				for ct, mt := range body.Content {
					if mt == nil || mt.Schema == nil || mt.Schema.Value == nil || mt.Schema.Value.Properties[p.Name] == nil {
						continue
					}
					if t, _, err := mime.ParseMediaType(ct); err != nil || t != "application/x-www-form-urlencoded" {
						continue
					}
					if mt.Encoding == nil {
						mt.Encoding = map[string]*openapi3.Encoding{}
					}
					if mt.Encoding[p.Name] == nil {
						mt.Encoding[p.Name] = enc
					}
				}
			}
		}
	}
}

// formDataParams returns the formData parameters of an operation: its own, and those of
// its path item that it does not redeclare, references resolved.
func formDataParams(doc2 *openapi2.T, pathParams, opParams openapi2.Parameters) []*openapi2.Parameter {
	resolve := func(p *openapi2.Parameter) *openapi2.Parameter {
		if p != nil && p.Ref != "" {
			name, ok := strings.CutPrefix(p.Ref, "#/parameters/")
			if !ok {
				return nil
			}
			return doc2.Parameters[name]
		}
		return p
	}
	var out []*openapi2.Parameter
	own := map[string]bool{}
	for _, p := range opParams {
		if p = resolve(p); p != nil {
			own[p.In+" "+p.Name] = true
			if p.In == "formData" {
				out = append(out, p)
			}
		}
	}
	for _, p := range pathParams {
		if p = resolve(p); p != nil && p.In == "formData" && !own[p.In+" "+p.Name] {
			out = append(out, p)
		}
	}
	return out
}
