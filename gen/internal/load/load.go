// Package load reads an OpenAPI description, confines its $refs, converts Swagger 2.0,
// and validates it with kin-openapi, reporting every problem located. It is the first
// stage of the generator; only it and the build stage see kin-openapi types.
package load

import (
	"errors"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/overlay"
	"github.com/retrygen/retrygen/gen/internal/source"
)

// Limits applied when LoadOptions leaves them zero.
const (
	// DefaultMaxBytes caps the bytes read for one spec, its external files included.
	DefaultMaxBytes = 64 << 20
	// DefaultMaxDepth caps how deeply schemas may nest inline (properties, items, allOf
	// and the like); a $ref starts a new count. Real specs stay far below it.
	DefaultMaxDepth = 64
	// MaxOperations caps the operations of one spec. The largest public descriptions have
	// a few thousand.
	MaxOperations = 10000
	// MaxEnumValues caps the values of one enum. Real enums have at most hundreds.
	MaxEnumValues = 10000
)

// Options says what Load may read.
type Options struct {
	// AllowExternalRefs lets $refs name other files. Even then only files inside the
	// spec's own folder tree are read (symbolic links resolved), never URLs.
	AllowExternalRefs bool
	// MaxBytes caps the bytes read for the spec and its external files together;
	// 0 means DefaultMaxBytes.
	MaxBytes int64
	// MaxDepth caps inline schema nesting; 0 means DefaultMaxDepth.
	MaxDepth int
	// Overlays are OpenAPI Overlay files, applied in order to the description before it
	// is read (see applyOverlays); their bytes count in MaxBytes.
	Overlays []string
}

// Spec is a loaded, validated OpenAPI description.
type Spec struct {
	// Path is the spec file as the user named it, e.g. "api.yaml".
	Path string
	// Doc is the document in OpenAPI 3 form (Swagger 2.0 is converted), $refs resolved.
	Doc *openapi3.T
	// Version is the version the file declares, e.g. "3.1.0" or "2.0".
	Version string
	// Files holds the bytes read and locates places in them.
	Files *source.Files
	// Warnings are validation findings that do not stop generation: invalid examples and
	// defaults, extra fields beside a $ref, arrays without items (read as any), keywords
	// of another OpenAPI version, repeated names in required, path parameters the path
	// template does not use.
	Warnings source.ErrorList
	// Overlays are the overlay files applied to the description, in order, as the user
	// named them.
	Overlays []string
	// Hoisted holds the components the loader made of places in other files, by their
	// JSON pointers ("#/components/schemas/Pet-2"); nil for a description in one file.
	Hoisted map[string]bool

	// doc is the description as the overlays left it; nil without overlays.
	doc *overlay.Document
	// leftOut are the places of the keys whose values lost a $ref that could not be
	// resolved (reported): what the validator finds missing there is not reported again.
	leftOut map[source.Pos]bool
	// edited is set when the root file's text was written for the YAML parser with
	// columns moved (yamlSafeJSON): its tree's places are not the text's.
	edited bool
}

// Load reads, resolves and validates the OpenAPI description at path. It reports every
// problem it finds as a source.ErrorList. When the document could be read but did not
// validate, it returns both the Spec and the errors, so that later stages can add what
// they find to the same report.
//
// It is a pipeline, each step a method in a file of its own that hands the next what it
// needs; the root file's text is parsed into a node tree once, by normalize, and the
// steps up to load read that tree:
//
//   - read (read.go): the bytes, capped, UTF-8;
//   - normalize (normalize.go): the text for the YAML parser, and the node tree (a large
//     document parsed in two pieces at once, split.go), guarded (guard.go) against what
//     would take too long or too much memory; source.Files keeps what locating needs of
//     the tree, while the steps up to strict's read it;
//   - bundle (bundle.go), with external $refs allowed: the files the $refs name, written
//     into the description; refuseExternalRefs (bundle.go) otherwise;
//   - overlay (overlay.go): the overlays applied to the tree, written out as text;
//   - strict (strict.go): what kin-openapi would read leniently, and $refs to components
//     of the wrong kind (refkinds.go), left out;
//   - load (decode.go): the tree (of the text the bundle or overlay step wrote, if they
//     did, parsed once: parseWritten) decoded into kin-openapi's document with the
//     types' own decoders (native.go), the origins its loader records recorded from the
//     tree (origins.go, ends.go), and its $refs resolved by the loader; the text is left
//     to kin-openapi to parse when $refs were left out of it, or it holds what native.go
//     leaves to kin-openapi (Swagger 2.0 converted, swagger2.go; its errors located,
//     loaderrors.go); then the document is checked (checks.go, servers.go, refs.go) and
//     validated (validate.go).
func Load(path string, opts Options) (*Spec, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	s := &Spec{Path: path, Files: source.NewFiles(path)}
	defer func() { s.doc = nil }() // the overlaid tree is needed while loading only
	budget := opts.MaxBytes
	data, err := s.read(&budget)
	if err != nil {
		return nil, err
	}
	text, root, kept, err := s.normalize(data)
	if err != nil {
		return nil, err
	}
	// Up to kept's call, the steps read the tree and neither locate through s.Files nor
	// change the tree, while normalize keeps what locating needs of it.
	defer kept()
	var bundled source.ErrorList
	switch {
	case root == nil:
	case opts.AllowExternalRefs:
		kept()
		if text, root, bundled = s.bundle(text, root, &budget); text == nil {
			return nil, bundled.Err()
		}
	default:
		if e := s.refuseExternalRefs(root); e != nil {
			return nil, source.ErrorList{e}
		}
	}
	if len(opts.Overlays) > 0 {
		kept()
	}
	if text, root, err = s.overlay(text, root, opts.Overlays, &budget); err != nil {
		return nil, joinErrors(bundled, err)
	}
	swagger2, err := s.strict(root, data)
	if err != nil {
		return nil, joinErrors(bundled, err)
	}
	wrong := s.wrongKindRefs(root)
	kept()
	if len(wrong) > 0 {
		text = s.textWithoutRefs(data, wrong)
		bundled = append(bundled, wrong...)
		root = nil // text is not the tree's any more
	}
	if s.doc != nil && root != nil {
		// The description of several files, or overlaid, written out as text: its tree,
		// parsed once here for locating and decoding, has the text's places.
		root = s.parseWritten(text)
	}
	spec, err := s.load(data, text, root, swagger2, opts, &budget)
	return spec, joinErrors(bundled, err)
}

// joinErrors reports the problems of the bundle step with err, those of a later step.
func joinErrors(first source.ErrorList, err error) error {
	if len(first) == 0 {
		return err
	}
	var rest source.ErrorList
	if err != nil && !errors.As(err, &rest) {
		rest = source.ErrorList{{Pos: source.Pos{File: first[0].Pos.File}, Msg: err.Error()}}
	}
	return append(slices.Clip(first), rest...).Err()
}
