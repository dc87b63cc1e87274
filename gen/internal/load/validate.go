package load

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
)

// The validation of the decoded document: kin-openapi's findings (validate_once.go runs
// them), located, the ones that keep a client from being generated as errors, the
// others as warnings.

// validate runs kin-openapi's validation and keeps the findings that matter to a client
// generator as errors; the rest become warnings.
func (s *Spec) validate(errs *source.ErrorList) {
	// The options go to Validate itself: it rebuilds the context's options from its own
	// arguments for 3.1 documents, dropping any set on the context.
	var list []error
	list = append(list, validateOnce(s.Doc,
		openapi3.EnableMultiError(),
		openapi3.DisableExamplesValidation(),
		openapi3.DisableSchemaDefaultsValidation(),
		openapi3.DisableSchemaPatternValidation(),
	)...)
	for _, e := range list {
		var dup *openapi3.DuplicateOperationIDError
		if errors.As(e, &dup) {
			continue // Operations reports duplicates with both places
		}
		var ppe *openapi3.PathParametersError
		if errors.As(e, &ppe) {
			s.pathParamsError(ppe, errs)
			continue
		}
		located := s.validationError(e)
		if s.leftOut[located.Pos] {
			continue // a $ref left out, reported
		}
		var extra *openapi3.ExtraSiblingFieldsError
		if errors.As(e, &extra) {
			s.unknownFields(located, extra)
			continue
		}
		if tolerated(e) {
			s.Warnings.Add(located)
		} else {
			errs.Add(located)
		}
	}
	s.Warnings.Sort()
}

// tolerated reports validation findings common in real public specs that do not keep a
// client from being generated.
func tolerated(err error) bool {
	var (
		sve   *openapi3.SchemaValueError
		extra *openapi3.ExtraSiblingFieldsError
		items *openapi3.SchemaItemsRequired
		ver   *openapi3.FieldVersionMismatchError
		dup   *openapi3.DuplicateRequiredFieldError
	)
	return errors.As(err, &sve) || errors.As(err, &extra) || errors.As(err, &items) ||
		errors.As(err, &ver) || errors.As(err, &dup)
}

// validationError locates one kin-openapi validation error: by the innermost Origin its
// chain carries, else by the path and operation it names.
func (s *Spec) validationError(err error) *source.Error {
	var (
		path, method, section, component string
		cause                            = err
		origin                           *openapi3.Origin
	)
	for e := err; e != nil; {
		switch w := e.(type) {
		case *openapi3.SectionValidationError:
			section, cause = w.Section, w.Cause
		case *openapi3.PathValidationError:
			path, cause = w.Path, w.Cause
		case *openapi3.OperationValidationError:
			method, cause = w.Method, w.Cause
		case *openapi3.ComponentValidationError:
			if path == "" {
				component = "#/components/" + componentSections[w.Section] + "/" + source.EscapePointer(w.Name)
				cause = w.Cause
			}
		}
		if o := originOf(e); o != nil && o.Key != nil {
			origin = o
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	out := &source.Error{Pos: source.Pos{File: s.Path}, Msg: cause.Error()}
	var op *openapi3.Operation
	if path != "" {
		out.Pointer = "#/paths/" + source.EscapePointer(path)
		if item := s.Doc.Paths.Value(path); item != nil {
			out.Pos = s.Files.PosOf(item.Origin)
			if method != "" {
				op = item.GetOperation(method)
			}
		}
		if method != "" {
			out.Pointer += "/" + strings.ToLower(method)
			id := ""
			if op != nil {
				id = op.OperationID
				out.Pos = s.Files.PosOf(op.Origin)
			}
			out.Op = source.OpName(method, path, id)
		}
	} else if component != "" {
		out.Pointer = component
	} else if section != "" {
		out.Pointer = "#/" + section
	}
	if origin != nil {
		out.Pos = s.Files.PosOf(origin)
	}
	if !out.Pos.IsValid() && out.Pointer != "" {
		out.Pos = s.Files.PosOfPointer(out.Pointer)
	}
	return out
}

// pathParamsError splits kin-openapi's path parameter check: a name in the path template
// that no parameter declares is an error (the client could not build the URL); a declared
// path parameter the template does not use is only a warning (the client leaves it out).
func (s *Spec) pathParamsError(e *openapi3.PathParametersError, errs *source.ErrorList) {
	inTemplate := map[string]bool{}
	for _, part := range strings.Split(e.Path, "{")[1:] {
		if name, _, ok := strings.Cut(part, "}"); ok {
			inTemplate[name] = true
		}
	}
	method := strings.ToUpper(e.Method)
	item := s.Doc.Paths.Value(e.Path)
	var op *openapi3.Operation
	if item != nil {
		op = item.GetOperation(method)
	}
	out := func(msg, fix string) *source.Error {
		err := &source.Error{Pos: source.Pos{File: s.Path}, Op: source.OpName(method, e.Path, ""), Msg: msg, Fix: fix,
			Pointer: "#/paths/" + source.EscapePointer(e.Path) + "/" + strings.ToLower(method)}
		if op != nil {
			err.Op = source.OpName(method, e.Path, op.OperationID)
			err.Pos = s.Files.PosOf(op.Origin)
		}
		if !err.Pos.IsValid() {
			err.Pos = s.Files.PosOfPointer(err.Pointer)
		}
		return err
	}
	for _, name := range e.Missing {
		if inTemplate[name] {
			errs.Add(out(fmt.Sprintf("path template names {%s} but no path parameter %q is declared", name, name),
				fmt.Sprintf("declare a parameter with name: %s and in: path", name)))
		} else {
			s.Warnings.Add(out(fmt.Sprintf("path parameter %q is not in the path template; it is ignored", name), ""))
		}
	}
}

// componentSections maps kin-openapi's names of component kinds to their keys.
var componentSections = map[string]string{
	"schema": "schemas", "parameter": "parameters", "header": "headers",
	"request body": "requestBodies", "response": "responses", "security scheme": "securitySchemes",
	"example": "examples", "link": "links", "callback": "callbacks",
}

var originType = reflect.TypeFor[*openapi3.Origin]()

// originOf returns the Origin field of an error struct, if it has one.
func originOf(err error) *openapi3.Origin {
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return nil
	}
	v = v.Elem()
	if v.Kind() != reflect.Struct {
		return nil
	}
	f := v.FieldByName("Origin")
	if !f.IsValid() || f.Type() != originType || f.IsNil() {
		return nil
	}
	return f.Interface().(*openapi3.Origin)
}
