package gen

// OpenAPI 3.1 enums written as a oneOf or anyOf of constants, each with a title and a
// description (Discord writes 91 of its enums so): a named type with one constant per
// member, named from the title, documented by the description.

import (
	"go/constant"
	"regexp"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/model"
)

const constEnumSpec = `openapi: 3.1.0
info: {title: Const enums, version: "1"}
paths: {}
components:
  schemas:
    ChannelTypes:
      type: integer
      format: int32
      oneOf:
        - {title: GUILD_TEXT, description: A text channel, const: 0}
        - {title: DM, const: 1}
        - {title: "*/ func init() { panic(1) } /*", description: "ends */ here\nand \u202e there", const: 2}
        - {title: TOO_BIG, const: 4294967296}
    ActionTypes:
      type: string
      oneOf:
        - {title: TYPING_START, description: User started typing, const: TYPING_START}
        - {title: INVITE_CREATE, const: INVITE_CREATE}
    Model:
      anyOf:
        - {type: string}
        - {title: GPT-4o, const: gpt-4o}
        - {type: string, enum: [o3]}
    Privacy:
      type: integer
      oneOf:
        - {title: GUILD_ONLY, description: only members, const: 2}
    Untyped:
      oneOf:
        - {const: 1.5}
        - {const: 2.5, title: TwoAndAHalf}
    Repeated:
      oneOf:
        - {title: DEFAULT, const: a}
        - {title: DEFAULT, const: b}
        - {title: DEFAULT, const: a}
        - {type: "null"}
    Mixed:
      oneOf:
        - {const: 1}
        - {const: one}
    Channel:
      type: object
      properties:
        type: {$ref: "#/components/schemas/ChannelTypes"}
        flags:
          oneOf:
            - {title: PINNED, const: 2}
            - {title: REQUIRE_TAG, const: 16}
`

// TestConstEnums generates the enums of constEnumSpec and checks the type of each, its
// constants' names and exact values, and their doc comments.
func TestConstEnums(t *testing.T) {
	path := writeSpec(t, "enums.yaml", constEnumSpec)
	spec, err := Load(path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	decls := map[string]*model.Decl{}
	for _, d := range spec.API.Decls {
		decls[d.GoName] = d
	}
	for name, want := range map[string]struct {
		under string
		open  bool
		names []string
	}{
		"ChannelTypes": {"int32", false, []string{"ChannelTypesGuildText", "ChannelTypesDm", "ChannelTypesFuncInitPanic1"}},
		"ActionTypes":  {"string", false, []string{"ActionTypesTypingStart", "ActionTypesInviteCreate"}},
		"Model":        {"string", true, []string{"ModelGpt4o", "ModelO3"}},
		"Privacy":      {"int64", false, []string{"PrivacyGuildOnly"}},
		"Untyped":      {"float64", false, []string{"Untyped1Point5", "UntypedTwoAndAHalf"}},
		"Repeated":     {"string", false, []string{"RepeatedDefault", "RepeatedB"}},
		"ChannelFlags": {"int64", false, []string{"ChannelFlagsPinned", "ChannelFlagsRequireTag"}},
	} {
		d := decls[name]
		if d == nil {
			t.Errorf("no type %s", name)
			continue
		}
		if d.Kind != model.EnumDecl || d.Underlying.String() != want.under || d.Open != want.open {
			t.Errorf("%s: kind %v of %v, open %v; want an enum of %s, open %v", name, d.Kind, d.Underlying, d.Open, want.under, want.open)
			continue
		}
		var got []string
		for _, v := range d.Values {
			got = append(got, v.GoName)
		}
		if strings.Join(got, " ") != strings.Join(want.names, " ") {
			t.Errorf("%s: constants %v, want %v", name, got, want.names)
		}
	}
	if d := decls["Mixed"]; d == nil || d.Kind == model.EnumDecl {
		t.Errorf("Mixed, of an integer and a string: %+v, want no enum", d)
	}
	if f := decls["Channel"].Fields[1]; f.GoName != "Type" || f.Type.String() != "*ChannelTypes" {
		t.Errorf("Channel's field %s is %v, want the enum", f.GoName, f.Type)
	}
	if !strings.Contains(spec.Warnings.Error(), "enum ChannelTypes: no constant for 4294967296") {
		t.Errorf("warnings lack the constant an int32 cannot hold:\n%s", spec.Warnings.Error())
	}

	src, err := Generate(spec, GenerateOptions{Package: "client", Command: "enums.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	values := enumConstants(t, src)
	for typ, want := range map[string][]constant.Value{
		"ChannelTypes": {constant.MakeInt64(0), constant.MakeInt64(1), constant.MakeInt64(2)},
		"ActionTypes":  {constant.MakeString("TYPING_START"), constant.MakeString("INVITE_CREATE")},
		"Model":        {constant.MakeString("gpt-4o"), constant.MakeString("o3")},
		"Privacy":      {constant.MakeInt64(2)},
	} {
		got := values[typ]
		if len(got) != len(want) {
			t.Errorf("%s: constants %v, want %v", typ, got, want)
			continue
		}
		for i := range want {
			if got[i].String() != want[i].String() {
				t.Errorf("%s constant %d = %v, want %v", typ, i, got[i], want[i])
			}
		}
	}
	// gofmt aligns the constants: spaces are compared as one.
	text := regexp.MustCompile(`[ \t]+`).ReplaceAllString(string(src), " ")
	for _, want := range []string{
		"\n // A text channel\n ChannelTypesGuildText ChannelTypes = 0\n ChannelTypesDm ChannelTypes = 1\n",
		"\n // ends */ here\n // and there\n ChannelTypesFuncInitPanic1 ChannelTypes = 2\n",
		"\n // User started typing\n ActionTypesTypingStart ActionTypes = \"TYPING_START\"\n",
		"\n// Known values of Model; it takes others too.\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("client lacks %q", want)
		}
	}
}
