package load

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/source"
	"go.yaml.in/yaml/v4"
)

// Errors of kin-openapi's loader and of the YAML parser, located in the files.

var (
	resolveRefMsg = regexp.MustCompile(`in fragment in URI: ("(?:[^"\\]|\\.)*")`)
	yamlLineMsg   = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)
	quotedMsg     = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	mustObjectMsg = regexp.MustCompile(`^invalid ([a-zA-Z ]+): value MUST be an object$`)
	jsonFieldMsg  = regexp.MustCompile(`cannot unmarshal (\w+) into (?:field \w+\.([\w.]+)|value) of type \S+`)
)

// loadError turns a kin-openapi or YAML error into a located Error.
func (s *Spec) loadError(err error) *source.Error {
	e := &source.Error{Pos: source.Pos{File: s.Path}}
	var (
		ve  *versionError
		re  *refEscapeError
		de  *openapi3.DisallowedExternalRefError
		le  *yaml.LoadError
		les *yaml.LoadErrors
	)
	switch {
	case errors.As(err, &ve):
		e.Msg = ve.Error()
		e.Fix = versionFix
		e.Pos = s.Files.PosOfPointer("#/" + ve.field)
	case errors.As(err, &de):
		e.Msg = fmt.Sprintf("$ref %s names another file, which is not allowed by default", source.Quote(de.Ref))
		e.Fix = "move the definition into this file, or pass -allow-external-refs to follow $refs to files inside the spec's folder"
		e.Pos = s.posOfRef(de.Ref)
	case errors.As(err, &re):
		var written string
		e.Pos, written = s.posOfRefSuffix(re.ref)
		if written != "" {
			re.ref = written
		}
		e.Msg = re.Error()
		e.Fix = "keep referenced files in the spec's folder or below it"
	case errors.As(err, &le):
		e.Msg = "malformed document: " + s.placesInMessage(le.Message)
		e.Pos = s.Files.LoaderPos(le.Mark.Line, le.Mark.Column)
	case errors.As(err, &les) && len(les.Errors) > 0:
		first := les.Errors[0]
		e.Msg = "malformed document: " + s.placesInMessage(first.Message)
		e.Pos = s.Files.LoaderPos(first.Mark.Line, first.Mark.Column)
	default:
		s.locateMessage(e, err.Error())
	}
	return e
}

// locateMessage fills in e from msg, the text of an error of a type loadError does not
// know: a YAML error's line, the pointer of a JSON field that could not be decoded, an
// empty object, an unresolved $ref, else the first $ref the text quotes that is found.
func (s *Spec) locateMessage(e *source.Error, msg string) {
	msg = strings.TrimPrefix(msg, "failed to unmarshal data: ")
	if i := strings.LastIndex(msg, "yaml error: "); i >= 0 {
		msg = msg[i+len("yaml error: "):]
	}
	if m := yamlLineMsg.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		e.Pos = s.Files.LoaderPos(line, 0)
		msg = "malformed document: " + s.placesInMessage(msg[len(m[0]):])
	} else if m := jsonFieldMsg.FindStringSubmatch(msg); m != nil {
		// Swagger 2.0 documents are decoded as JSON, without positions: the field's
		// place, by its pointer, or the document's.
		e.Pos = s.Files.PosOfPointer("#")
		if m[2] != "" {
			e.Pointer = "#/" + strings.ReplaceAll(m[2], ".", "/")
			e.Pos = s.Files.PosOfPointer(e.Pointer)
		}
		msg = "malformed document: " + m[0]
	} else if m := mustObjectMsg.FindStringSubmatch(msg); m != nil {
		// kin-openapi does not say which one: the first empty one of that kind.
		e.Pos = s.Files.PosOfNull(objectPlaces[m[1]].entries, objectPlaces[m[1]].values)
		e.Fix = "give it a value, or remove it"
	} else if m := resolveRefMsg.FindStringSubmatch(msg); m != nil {
		ref, err := strconv.Unquote(m[1])
		if err != nil {
			ref = m[1]
		}
		e.Pos = s.posOfRef(ref)
		msg = fmt.Sprintf("unresolved $ref %s: nothing is defined there", source.Quote(ref))
		e.Fix = "correct the $ref, or define what it names"
	} else {
		// Other resolution errors quote the $ref they failed on.
		for _, q := range quotedMsg.FindAllString(msg, -1) {
			ref, err := strconv.Unquote(q)
			if err != nil {
				continue
			}
			if pos := s.posOfRef(ref); pos.IsValid() {
				e.Pos = pos
				break
			}
		}
	}
	e.Msg = msg
}

// objectPlace lists where an object of one kind sits: the entries (mapping values or
// list items) of the keys in entries, and the values of the keys in values.
type objectPlace struct{ entries, values []string }

// objectPlaces are the places of each kind kin-openapi's "invalid <kind>: value MUST be
// an object" names.
var objectPlaces = map[string]objectPlace{
	"schema": {
		entries: []string{"schemas", "properties", "patternProperties", "$defs", "definitions", "allOf", "oneOf", "anyOf", "prefixItems", "dependentSchemas"},
		values:  []string{"schema", "items", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"},
	},
	"parameter":      {entries: []string{"parameters"}},
	"response":       {entries: []string{"responses"}},
	"requestBody":    {entries: []string{"requestBodies"}, values: []string{"requestBody"}},
	"header":         {entries: []string{"headers"}},
	"example":        {entries: []string{"examples"}},
	"securityScheme": {entries: []string{"securitySchemes"}},
	"callback":       {entries: []string{"callbacks"}},
	"link":           {entries: []string{"links"}},
	"path item":      {entries: []string{"paths", "webhooks", "pathItems"}},
}

// posOfRef finds the first `$ref: <ref>` in the root file.
func (s *Spec) posOfRef(ref string) source.Pos {
	pos, _ := s.Files.FindRef(func(v string) bool { return v == ref })
	return pos
}

// posOfRefSuffix finds the first $ref whose file part names the same file as path, and
// returns it as written.
func (s *Spec) posOfRefSuffix(path string) (source.Pos, string) {
	base := filepath.Base(filepath.FromSlash(path))
	return s.Files.FindRef(func(v string) bool {
		file, _, _ := strings.Cut(v, "#")
		if u, err := url.Parse(file); err == nil && u.Path != "" {
			file = u.Path
		}
		return file != "" && filepath.Base(filepath.FromSlash(file)) == base
	})
}
