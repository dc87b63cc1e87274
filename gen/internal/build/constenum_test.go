package build

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/model"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
)

// DiscordEnv names Discord's openapi.json (github.com/discord/discord-api-spec,
// specs/openapi.json), which writes 91 of its enums as a oneOf of constants; the
// repository does not hold it.
const DiscordEnv = "RETRYGEN_DISCORD_SPEC"

// TestConstEnumsOfRealSpecs checks every oneOf or anyOf of constants among the component
// schemas of Discord's spec when RETRYGEN_DISCORD_SPEC names it, and of every corpus spec
// under RETRYGEN_LONG=1: each is an enum with a constant per value.
func TestConstEnumsOfRealSpecs(t *testing.T) {
	paths := map[string]string{"discord": os.Getenv(DiscordEnv)}
	if dir, ok := corpus.Optional(t); ok && longtest.On() {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			if ext := filepath.Ext(f); ext == ".yaml" || ext == ".json" {
				paths[filepath.Base(f)] = f
			}
		}
	}
	for name, path := range paths {
		t.Run(name, func(t *testing.T) {
			if path == "" {
				t.Skip("skipped: set " + DiscordEnv + " to Discord's openapi.json (github.com/discord/discord-api-spec, specs/openapi.json) to check its enums")
			}
			spec, err := load.Load(path, load.Options{})
			if err != nil {
				t.Fatal(err)
			}
			api, err := Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			byPointer := map[string]*model.Decl{}
			for _, d := range api.Decls {
				byPointer[d.Pointer] = d
			}
			enums, others := 0, 0
			if spec.Doc.Components == nil {
				return
			}
			for name, sr := range spec.Doc.Components.Schemas {
				values := constMembers(sr.Value.OneOf) + constMembers(sr.Value.AnyOf)
				if values == 0 {
					continue
				}
				if d := byPointer[schemaPointer(name)]; d == nil || d.Kind != model.EnumDecl || len(d.Values) != values {
					others++
					t.Errorf("%s: %+v, want an enum of %d constants", name, d, values)
					continue
				}
				enums++
			}
			t.Logf("%d oneOf/anyOf of constants: %d enums, %d not", enums+others, enums, others)
		})
	}
}

// constMembers returns the number of distinct values of members that are all consts (null
// aside), or 0 when some member is something else.
func constMembers(members openapi3.SchemaRefs) int {
	seen := map[any]bool{}
	for _, m := range members {
		switch {
		case m.Value.Type != nil && m.Value.Type.Is("null"):
		case m.Value.Const == nil:
			return 0
		default:
			seen[m.Value.Const] = true
		}
	}
	return len(seen)
}
