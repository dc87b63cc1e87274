package diff

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/build"
	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/internal/spectest"
	"github.com/retrygen/retrygen/gen/model"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
)

// diffDir holds one folder per kind of change, each with old.yaml and new.yaml.
const diffDir = "../../../testdata/diff"

func loadAPI(t testing.TB, path string) *model.API {
	t.Helper()
	s, err := load.Load(path, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	api, err := build.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return api
}

func compareCase(t *testing.T, name string) *Result {
	t.Helper()
	dir := filepath.Join(diffDir, name)
	return Compare(loadAPI(t, filepath.Join(dir, "old.yaml")), loadAPI(t, filepath.Join(dir, "new.yaml")))
}

// line spells a change compactly for the tables below:
// "level|operation|element|name|change|old|new".
func line(c Change) string {
	return strings.Join([]string{string(c.Level), c.Operation, c.Element, c.Name, c.Change, c.Old, c.New}, "|")
}

// checkChanges checks that r holds exactly the changes want, in that order.
func checkChanges(t *testing.T, r *Result, want []string) {
	t.Helper()
	var got []string
	for _, c := range r.Changes {
		got = append(got, line(c))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got changes:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

func TestComparePolicy(t *testing.T) {
	r := compareCase(t, "policy")
	const post = "no: POST is not idempotent and has no idempotency key (RFC 9110 §9.2.2); only attempts that could not connect, and answers the server says to retry, are retried"
	checkChanges(t, r, []string{
		`loosened|POST /orders (placeOrder)|retry||changed|` + post + `|yes: POST sends an idempotency key in "Idempotency-Key" (x-idempotency-key on the operation)`,
		`loosened|POST /refunds (refund)|x-retry|maxAttempts|changed|1|4`,
		`tightened|GET /carts/{cartId} (getCart)|x-retry|maxAttempts|changed|5|3`,
		`tightened|PUT /carts/{cartId} (replaceCart)|retry||changed|yes: PUT is idempotent (RFC 9110 §9.2.2)|no: PUT opted out with x-idempotent: false; only attempts that could not connect, and answers the server says to retry, are retried`,
		`changed|GET /carts/{cartId} (getCart)|x-retry|jitter|changed|full|equal`,
		`changed|GET /carts/{cartId} (getCart)|x-retry|statusCodes|changed|408,429,500,502,503,504|429,503`,
		`changed|POST /orders (placeOrder)|idempotencyKey||added||Idempotency-Key`,
		`changed|POST /payments (pay)|idempotencyKey||changed|Idempotency-Key|X-Payment-Key`,
		`compatible|POST /search (search)|operation||moved|POST /v1/search|POST /search`,
	})
}

func TestCompareMethods(t *testing.T) {
	r := compareCase(t, "methods")
	checkChanges(t, r, []string{
		`breaking|DELETE /owners/{ownerId}/pets/{petId} (deletePet)|argument|DeletePet(ownerID)|added||string`,
		`breaking|GET /pets (listPets)|parameter|ListPetsParams.Limit|changed|*int32|*int64`,
		`breaking|GET /pets (listPets)|parameter|ListPetsParams.Tag|removed|*string|`,
		`breaking|POST /pets (createPet)|argument|CreatePet(body)|changed|Pet|*Pet`,
		`breaking|GET /pets/{petId} (getPet)|argument|GetPet(petID)|changed|string|int64`,
		`breaking|GET /pets/{petId} (getPet)|argument|GetPet(params)|added||*GetPetParams`,
		`breaking|GET /pets/{petId} (getPet)|result|GetPet|changed|*Pet|[]Pet`,
		`breaking|GET /stores/{storeId} (getStore)|method|GetStore|removed|GetStore(ctx, storeID string, opts...) error|`,
		`compatible|DELETE /owners/{ownerId}/pets/{petId} (deletePet)|operation||moved|DELETE /pets/{petId}|DELETE /owners/{ownerId}/pets/{petId}`,
		`compatible|GET /owners (listOwners)|method|ListOwners|added||ListOwners(ctx, opts...) error`,
		`compatible|GET /pets (listPets)|parameter|ListPetsParams.Kind|changed|optional|required`,
		`compatible|GET /pets (listPets)|parameter|ListPetsParams.Owner|added||string`,
		`compatible|GET /pets (listPets)|parameter|ListPetsParams.Sort|added||*string`,
		`compatible|POST /pets (createPet)|method|CreatePet|deprecated||`,
		`compatible|GET /pets/{petId} (getPet)|errorResponse|404|changed|Error|Problem`,
		`compatible|GET /pets/{petId} (getPet)|errorResponse|429|added||Error`,
		`compatible||type|Problem|changed||`,
	})
}

// An operation's further methods, <Op>Text and <Op>Stream, are compared like its first,
// and so is a stream's event type.
func TestCompareMediaMethods(t *testing.T) {
	r := compareCase(t, "media")
	checkChanges(t, r, []string{
		`breaking|GET /events (watch)|result|Watch|changed|*EventStream[EventA]|*EventStream[EventB]`,
		`breaking|POST /chat (chat)|method|ChatStream|removed|ChatStream(ctx, body Report, opts...) (*EventStream[EventA], error)|`,
		`breaking|GET /report (getReport)|method|GetReportText|removed|GetReportText(ctx, opts...) (string, error)|`,
	})
}

// Pagination is Go API: <Op>All, <Op>Pages and the page struct come and go with it,
// removed is breaking and added compatible, and an item type that changes changes what
// <Op>All yields.
func TestComparePagination(t *testing.T) {
	r := compareCase(t, "paging")
	checkChanges(t, r, []string{
		`breaking|GET /events (listEvents)|result|ListEventsAll|changed|iter.Seq2[*Charge, error]|iter.Seq2[*Event, error]`,
		`breaking|GET /charges (listCharges)|method|ListChargesAll|removed|ListChargesAll(ctx, params *ListChargesParams, opts...) iter.Seq2[*Charge, error]|`,
		`breaking|GET /charges (listCharges)|method|ListChargesPages|removed|ListChargesPages(ctx, params *ListChargesParams, opts...) iter.Seq2[*ListChargesPage, error]|`,
		`breaking|GET /schedules (listSchedules)|method|ListSchedulesAll|removed|ListSchedulesAll(ctx, params *ListSchedulesParams, opts...) iter.Seq2[int64, error]|`,
		`breaking|GET /schedules (listSchedules)|method|ListSchedulesPages|removed|ListSchedulesPages(ctx, params *ListSchedulesParams, opts...) iter.Seq2[*ListSchedulesPage, error]|`,
		`breaking||field|ListChargesResponse.HasMore|removed|*bool|`,
		`breaking||field|ListEventsResponse.Data|changed|[]Charge|[]Event`,
		`breaking||field|ListEventsPage.Items|changed|[]Charge|[]Event`,
		`breaking||type|ListChargesPage|removed|struct|`,
		`breaking||type|ListSchedulesPage|removed|struct|`,
		`compatible|GET /refunds (listRefunds)|method|ListRefundsAll|added||ListRefundsAll(ctx, params *ListRefundsParams, opts...) iter.Seq2[string, error]`,
		`compatible|GET /refunds (listRefunds)|method|ListRefundsPages|added||ListRefundsPages(ctx, params *ListRefundsParams, opts...) iter.Seq2[*ListRefundsPage, error]`,
		`compatible||type|Event|added||struct`,
		`compatible||type|ListRefundsPage|added||struct`,
	})
}

// Specs without operations compare without a change, and against a spec with
// operations give each of its methods and types.
func TestCompareNoOperations(t *testing.T) {
	empty := loadAPI(t, spectest.Write(t, "empty.yaml", "openapi: 3.0.3\ninfo: {title: E, version: \"1\"}\npaths: {}\n"))
	if r := Compare(empty, empty); len(r.Changes) != 0 {
		t.Errorf("empty against empty: %v", r.Changes)
	}
	paging := loadAPI(t, filepath.Join(diffDir, "paging", "old.yaml"))
	for _, tt := range []struct {
		name     string
		old, new *model.API
		level    Level
	}{
		{"removed", paging, empty, Breaking},
		{"added", empty, paging, Compatible},
	} {
		r := Compare(tt.old, tt.new)
		if len(r.Changes) == 0 || r.Count(tt.level) != len(r.Changes) {
			t.Errorf("%s: want only %s changes, got %v", tt.name, tt.level, r.Changes)
		}
		names := map[string]bool{}
		for _, c := range r.Changes {
			names[c.Name] = true
		}
		for _, n := range []string{"ListChargesAll", "ListChargesPages", "ListChargesPage", "ListSchedulesAll"} {
			if !names[n] {
				t.Errorf("%s: no change names %s", tt.name, n)
			}
		}
	}
}

func TestCompareTypes(t *testing.T) {
	r := compareCase(t, "types")
	checkChanges(t, r, []string{
		`breaking||type|Color|changed|alias of string|struct`,
		`breaking||type|Fault|changed||`,
		`breaking||field|Pet.Age|changed|*int64|*float64`,
		`breaking||field|Pet.Name|changed|string|*string`,
		`breaking||field|Pet.Tag|removed|*string|`,
		`breaking||variant|Shape.Square|removed|Square|`,
		`breaking||enumValue|StatusLost|removed|"lost"|`,
		`breaking||type|Legacy|removed|struct|`,
		`breaking||type|Square|removed|struct|`,
		`compatible|GET /animals (listAnimals)|errorResponse|400|removed|Fault|`,
		`compatible||type|Animal|changed|alias of Pet|alias of Cat`,
		`compatible||type|Circle|deprecated||`,
		`compatible||type|Owner|added||struct`,
		`compatible||field|Pet.Nickname|added||string`,
		`compatible||field|Pet.Owner|added||*string`,
		`compatible||field|Pet.Tags|changed|optional|required`,
		`compatible||variant|Shape.Triangle|added||Triangle`,
		`compatible||enumValue|StatusPending|added||"pending"`,
		`compatible||type|Triangle|added||struct`,
	})
}

func TestCompareNoChange(t *testing.T) {
	if r := compareCase(t, "nochange"); len(r.Changes) != 0 {
		t.Errorf("documentation-only edits gave changes: %v", r.Changes)
	}
}

// TestCompareSelf compares every synthetic spec with itself: nothing may change. Every
// case folder of diffDir must hold both specs, and there must be cases, so that the test
// cannot pass comparing nothing.
func TestCompareSelf(t *testing.T) {
	entries, err := os.ReadDir(diffDir)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		for _, name := range []string{"old.yaml", "new.yaml"} {
			s := filepath.Join(diffDir, e.Name(), name)
			api := loadAPI(t, s)
			if r := Compare(api, api); len(r.Changes) != 0 {
				t.Errorf("%s against itself: %v", s, r.Changes)
			}
			compared++
		}
	}
	if compared == 0 {
		t.Fatalf("no case folder in %s", diffDir)
	}
}

// TestCompareOpenAI compares two versions of OpenAI's spec ten days apart. Upstream's
// history for them says: a 429 response added to every endpoint, a deprecated string error
// type removed from tool call responses, fields added (metadata on chat completions,
// shutdown_date on models, obfuscation on chat chunks, residency on projects).
func TestCompareOpenAI(t *testing.T) {
	longtest.Heavy(t)
	oldPath := corpus.Path(t, "history/openai-2026-08-10.yaml")
	newPath := corpus.Path(t, "openai.yaml")
	r := Compare(loadAPI(t, oldPath), loadAPI(t, newPath))

	has := func(want string) {
		t.Helper()
		for _, c := range r.Changes {
			if line(c) == want {
				return
			}
		}
		t.Errorf("missing change %s", want)
	}
	// The string error of MCP tool calls became a union of error objects.
	has(`breaking||field|McpToolCall.Error|changed|Nullable[string]|Nullable[*McpToolCallError]`)
	has(`compatible||type|McpToolCallError|added||union on "type"`)
	// Fields added.
	has(`compatible||field|CreateChatCompletionResponse.Metadata|added||Nullable[Metadata]`)
	has(`compatible||field|Model.ShutdownDate|added||Nullable[Date]`)
	has(`compatible||field|CreateChatCompletionStreamResponse.Obfuscation|added||*string`)
	has(`compatible||field|Project.Residency|added||*PublicProjectResidency`)
	// The project's geography gave way to residency.
	has(`breaking||field|ProjectCreateRequest.Geography|removed|Nullable[string]|`)

	// A 429 with ErrorResponse on every operation that declares errors; no retry policy
	// changes, since 429 was already retried by default.
	errors429 := 0
	for _, c := range r.Changes {
		if c.Area == Policy {
			t.Errorf("policy change %s", line(c))
		}
		if c.Element == ElemError && c.Name == "429" && c.Change == Added && c.New == "ErrorResponse" {
			errors429++
		}
	}
	if errors429 != 161 { // the 429s the upstream diff adds
		t.Errorf("429 error response added to %d operations, want 161", errors429)
	}
	for _, l := range Levels {
		t.Logf("%s: %d", l, r.Count(l))
	}
	if t.Failed() {
		for _, c := range r.Changes {
			if c.Element != ElemError {
				t.Log(line(c))
			}
		}
	}
}

// The methods of one operation (GetReport, GetReportText, GetReportStream) share its
// params struct: a field's change is one row, not one a method.
func TestCompareParamsStructOnce(t *testing.T) {
	const spec = `openapi: 3.0.3
info: {title: M, version: "1"}
paths:
  /report:
    get:
      operationId: getReport
      parameters:
        - {name: q, in: query, schema: {type: TYPE}}
      responses:
        "200":
          description: The report.
          content:
            application/json: {schema: {type: object, properties: {a: {type: string}}}}
            text/plain: {schema: {type: string}}
            text/event-stream: {schema: {type: object, properties: {a: {type: string}}}}
`
	old := loadAPI(t, spectest.Write(t, "old.yaml", strings.Replace(spec, "TYPE", "string", 1)))
	new := loadAPI(t, spectest.Write(t, "new.yaml", strings.Replace(spec, "TYPE", "integer", 1)))
	checkChanges(t, Compare(old, new), []string{
		"breaking|GET /report (getReport)|parameter|GetReportParams.Q|changed|*string|*int64",
	})
}

// A type renamed is reported as renamed, once, with its old and new names, and so is the
// inline type whose name followed it; nothing is reported as removed or added.
func TestCompareRenames(t *testing.T) {
	r := compareCase(t, "renames")
	checkChanges(t, r, []string{
		`breaking||type|Keeper|renamed|Owner|Keeper`,
		`breaking||field|Pet.Owner|changed|*Owner|*Keeper`,
		`breaking||type|KeeperAddress|renamed|OwnerAddress|KeeperAddress`,
	})
}

// renameSpec is a spec whose one operation returns Root, whose properties refer to the
// schemas given (YAML lines under components.schemas, besides Root).
func renameSpec(t *testing.T, name string, roots []string, schemas string) *model.API {
	t.Helper()
	var props strings.Builder
	for i, r := range roots {
		fmt.Fprintf(&props, "        p%d: {$ref: \"#/components/schemas/%s\"}\n", i, r)
	}
	return loadAPI(t, spectest.Write(t, name, `openapi: 3.0.3
info: {title: R, version: "1"}
paths:
  /root:
    get:
      operationId: getRoot
      responses:
        "200":
          description: ok
          content: {application/json: {schema: {$ref: "#/components/schemas/Root"}}}
components:
  schemas:
    Root:
      type: object
      properties:
`+props.String()+schemas))
}

// typeChanges are r's changes of whole types: renamed, added, removed.
func typeChanges(r *Result) []string {
	var out []string
	for _, c := range r.Changes {
		if c.Element == ElemType && (c.Change == Renamed || c.Change == Added || c.Change == Removed) {
			if c.Change == Renamed {
				out = append(out, c.Change+" "+c.Old+" "+c.New)
			} else {
				out = append(out, c.Change+" "+c.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// A type renamed is paired with its old name when it refers to itself, or sits in a cycle
// of types renamed together, and when it ends a long chain of them; types whose content
// cannot tell them apart (twins, or a cycle of two that became a cycle of one) are
// removed and added, the same way every time.
func TestCompareRenamesThroughReferences(t *testing.T) {
	chain := func(prefix string, n int) (string, []string) {
		var b strings.Builder
		for i := range n - 1 {
			fmt.Fprintf(&b, "    %s%d: {type: object, properties: {next: {$ref: \"#/components/schemas/%s%d\"}}}\n", prefix, i, prefix, i+1)
		}
		fmt.Fprintf(&b, "    %s%d: {type: object, properties: {v: {type: string}}}\n", prefix, n-1)
		return b.String(), []string{prefix + "0"}
	}
	longOld, longOldRoots := chain("Step", 300)
	longNew, longNewRoots := chain("Hop", 300)
	var longWant []string
	for i := range 300 {
		longWant = append(longWant, fmt.Sprintf("renamed Step%d Hop%d", i, i))
	}
	slices.Sort(longWant)
	for _, tc := range []struct {
		name               string
		oldRoots, newRoots []string
		old, new           string
		want               []string
	}{{
		name:     "itself",
		oldRoots: []string{"Node"}, newRoots: []string{"TreeNode"},
		old:  "    Node: {type: object, properties: {name: {type: string}, children: {type: array, items: {$ref: \"#/components/schemas/Node\"}}}}\n",
		new:  "    TreeNode: {type: object, properties: {name: {type: string}, children: {type: array, items: {$ref: \"#/components/schemas/TreeNode\"}}}}\n",
		want: []string{"renamed Node TreeNode"},
	}, {
		name:     "a cycle, and a union of its types",
		oldRoots: []string{"Customer", "Either"}, newRoots: []string{"Buyer", "OneOf"},
		old: `    Customer: {type: object, properties: {id: {type: string}, account: {$ref: "#/components/schemas/Account"}}}
    Account: {type: object, properties: {owner: {$ref: "#/components/schemas/Customer"}, n: {type: integer}}}
    Either: {oneOf: [{$ref: "#/components/schemas/Customer"}, {$ref: "#/components/schemas/Account"}]}
`,
		new: `    Buyer: {type: object, properties: {id: {type: string}, account: {$ref: "#/components/schemas/Ledger"}}}
    Ledger: {type: object, properties: {owner: {$ref: "#/components/schemas/Buyer"}, n: {type: integer}}}
    OneOf: {oneOf: [{$ref: "#/components/schemas/Buyer"}, {$ref: "#/components/schemas/Ledger"}]}
`,
		want: []string{"renamed Account Ledger", "renamed Customer Buyer", "renamed Either OneOf"},
	}, {
		name:     "twins",
		oldRoots: []string{"Left", "Right"}, newRoots: []string{"West", "East"},
		old:  "    Left: {type: object, properties: {v: {type: string}}}\n    Right: {type: object, properties: {v: {type: string}}}\n",
		new:  "    West: {type: object, properties: {v: {type: string}}}\n    East: {type: object, properties: {v: {type: string}}}\n",
		want: []string{"added East", "added West", "removed Left", "removed Right"},
	}, {
		name:     "a cycle of two became one of one",
		oldRoots: []string{"Ping"}, newRoots: []string{"Echo"},
		old:  "    Ping: {type: object, properties: {next: {$ref: \"#/components/schemas/Pong\"}}}\n    Pong: {type: object, properties: {next: {$ref: \"#/components/schemas/Ping\"}}}\n",
		new:  "    Echo: {type: object, properties: {next: {$ref: \"#/components/schemas/Echo\"}}}\n",
		want: []string{"added Echo", "removed Ping", "removed Pong"},
	}, {
		name:     "a long chain",
		oldRoots: longOldRoots, newRoots: longNewRoots, old: longOld, new: longNew,
		want: longWant,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			old := renameSpec(t, "old.yaml", tc.oldRoots, tc.old)
			new := renameSpec(t, "new.yaml", tc.newRoots, tc.new)
			got := typeChanges(Compare(old, new))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
			for range 5 {
				if again := typeChanges(Compare(old, new)); !slices.Equal(again, got) {
					t.Fatalf("another run gives\n\t%s", strings.Join(again, "\n\t"))
				}
			}
		})
	}
}
