package build

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// fromTextSpec has two message unions discriminated by role. The variants a string alone
// makes: a user message (content a string or parts, role one value), a system message
// (role fixed only by the discriminator). Not: a tool message (two members to fill), a
// note (content a plain string, not a union), an assistant message (content optional),
// an echo (content a union with no string variant). A schema already holds "SystemMessage", and
// ChatMessage would make a "UserMessage" too (EXTRA_PROPERTY and EXTRA_SCHEMAS), so those take New<Union><Value>.
const fromTextSpec = `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  /chat:
    post:
      operationId: chat
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              properties:
                messages: {type: array, items: {$ref: "#/components/schemas/Message"}}
EXTRA_PROPERTY
      responses:
        "204": {description: ok}
components:
  schemas:
    Message:
      oneOf:
        - {$ref: "#/components/schemas/UserMsg"}
        - {$ref: "#/components/schemas/SystemMsg"}
        - {$ref: "#/components/schemas/ToolMsg"}
        - {$ref: "#/components/schemas/NoteMsg"}
        - {$ref: "#/components/schemas/AssistantMsg"}
        - {$ref: "#/components/schemas/EchoMsg"}
      discriminator:
        propertyName: role
        mapping:
          user: "#/components/schemas/UserMsg"
          system: "#/components/schemas/SystemMsg"
          tool: "#/components/schemas/ToolMsg"
          note: "#/components/schemas/NoteMsg"
          assistant: "#/components/schemas/AssistantMsg"
          echo: "#/components/schemas/EchoMsg"
EXTRA_SCHEMAS
    Content:
      oneOf:
        - {type: string}
        - {type: array, items: {type: object, properties: {text: {type: string}}}}
    UserMsg:
      type: object
      required: [role, content]
      properties:
        role: {type: string, enum: [user]}
        content: {$ref: "#/components/schemas/Content"}
        name: {type: string}
    SystemMsg:
      type: object
      required: [role, content]
      properties:
        role: {type: string}
        content: {$ref: "#/components/schemas/Content"}
    ToolMsg:
      type: object
      required: [role, content, tool_call_id]
      properties:
        role: {type: string, enum: [tool]}
        content: {$ref: "#/components/schemas/Content"}
        tool_call_id: {type: string}
    NoteMsg:
      type: object
      required: [role, content]
      properties:
        role: {type: string, enum: [note]}
        content: {type: string}
    AssistantMsg:
      type: object
      required: [role]
      properties:
        role: {type: string, enum: [assistant]}
        content: {$ref: "#/components/schemas/Content"}
    EchoMsg:
      type: object
      required: [role, content]
      properties:
        role: {type: string, enum: [echo]}
        content:
          oneOf:
            - {type: integer}
            - {type: array, items: {type: string}}
`

const extraProperty = `                log: {type: array, items: {$ref: "#/components/schemas/ChatMessage"}}`

const extraSchemas = `    ChatMessage:
      oneOf:
        - {$ref: "#/components/schemas/UserMsg"}
        - {$ref: "#/components/schemas/AssistantMsg"}
      discriminator:
        propertyName: role
        mapping:
          user: "#/components/schemas/UserMsg"
          assistant: "#/components/schemas/AssistantMsg"
    SystemMessage: {type: string}`

// A variant of a discriminated union that a string alone makes gets a function named
// from its discriminator value and the union's last word, or New<Union><Value> when that
// name is held or wanted twice; the others get none.
func TestTextConstructors(t *testing.T) {
	api, err := buildSpec(t, strings.NewReplacer("EXTRA_PROPERTY", extraProperty, "EXTRA_SCHEMAS", extraSchemas).Replace(fromTextSpec))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range api.Decls {
		for _, v := range d.Variants {
			if v.FromText != nil {
				got[d.GoName+"."+v.GoName] = v.FromText.GoName + "(" + v.FromText.Field.GoName + "." + v.FromText.Text.GoName + ")"
			}
		}
	}
	want := map[string]string{
		"Message.UserMsg":     "NewMessageUser(Content.String)",
		"Message.SystemMsg":   "NewMessageSystem(Content.String)",
		"ChatMessage.UserMsg": "NewChatMessageUser(Content.String)",
	}
	if !maps.Equal(got, want) {
		t.Errorf("text constructors\n%v\nwant\n%v", got, want)
	}

	// Without the second union and the schema that holds its name, each takes the short
	// name.
	api, err = buildSpec(t, strings.NewReplacer("EXTRA_PROPERTY\n", "", "EXTRA_SCHEMAS\n", "").Replace(fromTextSpec))
	if err != nil {
		t.Fatal(err)
	}
	var short []string
	for _, d := range api.Decls {
		for _, v := range d.Variants {
			if v.FromText != nil {
				short = append(short, v.FromText.GoName)
			}
		}
	}
	if slices.Sort(short); !slices.Equal(short, []string{"SystemMessage", "UserMessage"}) {
		t.Errorf("text constructors %v, want SystemMessage and UserMessage", short)
	}
}
