package gen

// The loader's own limits and strictness: inputs that cost kin-openapi far more than
// their size, and inputs its parsers read differently from what a reader sees, are
// refused with a located error before that work. The sizes that only show the cost at
// full scale run with RETRYGEN_LONG=1.

import (
	"fmt"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/retrygen/retrygen/gen/internal/load"
	"github.com/retrygen/retrygen/gen/internal/spectest"
	"github.com/retrygen/retrygen/internal/longtest"
)

func longTests(t *testing.T) {
	t.Helper()
	longtest.Heavy(t)
}

// loadAllocating loads the spec at path and returns the bytes allocated and the error.
func loadAllocating(t *testing.T, path string) (uint64, error) {
	t.Helper()
	var before, after goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&before)
	_, err := loadAndGenerate(t, path, LoadOptions{})
	goruntime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, err
}

// aliasedSchemas is a spec whose one schema of props properties is aliased copies times.
func aliasedSchemas(props, copies int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n    S0: &s {type: object, properties: {")
	for i := range props {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "p%d: {type: string}", i)
	}
	b.WriteString("}}\n")
	for i := 1; i <= copies; i++ {
		fmt.Fprintf(&b, "    S%d: *s\n", i)
	}
	return b.String()
}

// Aliases within go-yaml's own limit still may not multiply the document: kin-openapi
// decodes every copy.
func TestAliasAmplification(t *testing.T) {
	// 4,005 nodes a copy: the 150th goes past load.MaxNodes.
	_, err := loadAndGenerate(t, writeSpec(t, "alias.yaml", aliasedSchemas(1000, 160)), LoadOptions{})
	wantLocated(t, "160 copies", err, "alias.yaml:155:11: limit exceeded: excessive aliasing")
	if _, err := loadAndGenerate(t, writeSpec(t, "few.yaml", aliasedSchemas(1000, 20)), LoadOptions{}); err != nil {
		t.Errorf("20 copies: %v", err)
	}
}

func TestAliasAmplificationLong(t *testing.T) {
	longTests(t)
	// 44 KB: a 1,000-property schema aliased 1,000 times.
	alloc, err := loadAllocating(t, writeSpec(t, "alias.yaml", aliasedSchemas(1000, 1000)))
	wantLocated(t, "1,000 copies", err, "limit exceeded: excessive aliasing")
	t.Logf("refused after allocating %d MB", alloc>>20)
}

// refChain is a spec whose operation refers to the first of n schemas that each only
// refer to the next.
func refChain(n int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n  /a:\n    get:\n      responses:\n" +
		"        \"200\": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/S0'}}}}\ncomponents:\n  schemas:\n")
	for i := range n {
		fmt.Fprintf(&b, "    S%d: {$ref: '#/components/schemas/S%d'}\n", i, i+1)
	}
	fmt.Fprintf(&b, "    S%d: {type: string}\n", n)
	return b.String()
}

// kin-openapi follows a chain of $refs that only name $refs anew from every $ref into it.
func TestRefChainLimits(t *testing.T) {
	_, err := loadAndGenerate(t, writeSpec(t, "chain.yaml", refChain(2*load.MaxRefChain)), LoadOptions{})
	wantLocated(t, "long chain", err, `chain.yaml:7:72: limit exceeded: $ref "#/components/schemas/S0" starts a chain of more than 100 $refs`)
	if _, err := loadAndGenerate(t, writeSpec(t, "short.yaml", refChain(load.MaxRefChain-2)), LoadOptions{}); err != nil {
		t.Errorf("a chain of %d: %v", load.MaxRefChain-2, err)
	}

	// Each chain short enough, but followed from so many $refs that it costs more than
	// load.MaxRefSteps.
	var b strings.Builder
	b.WriteString(strings.Replace(refChain(load.MaxRefChain-2), "components:\n  schemas:\n",
		"components:\n  schemas:\n    Many:\n      type: object\n      properties:\n", 1))
	spec := b.String()
	var props strings.Builder
	for i := range load.MaxRefSteps / (load.MaxRefChain - 10) {
		fmt.Fprintf(&props, "        p%d: {$ref: '#/components/schemas/S0'}\n", i)
	}
	spec = strings.Replace(spec, "      properties:\n", "      properties:\n"+props.String(), 1)
	_, err = loadAndGenerate(t, writeSpec(t, "many.yaml", spec), LoadOptions{})
	wantLocated(t, "many $refs into a chain", err, "limit exceeded: following the chains of $refs that only name other $refs takes more than")
}

func TestRefChainLong(t *testing.T) {
	longTests(t)
	alloc, err := loadAllocating(t, writeSpec(t, "chain.yaml", refChain(10000)))
	wantLocated(t, "a chain of 10,000", err, "limit exceeded")
	t.Logf("refused after allocating %d MB", alloc>>20)
}

// flowEnum is a spec with one enum of n values, written on one line.
func flowEnum(n int) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n    E:\n      type: string\n      enum: [v0")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, ",v%d", i)
	}
	b.WriteString("]\n")
	return b.String()
}

// manyValues is a spec with an extension of n values, written on one line.
func manyValues(n int) string {
	return "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\nx-values: [" + strings.Repeat("1,", n) + "1]\n"
}

// longValue is a spec with a description of n bytes.
func longValue(n int) string {
	return "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n    E:\n      type: string\n      description: " +
		strings.Repeat("x", n) + "\n"
}

// The caps on operations, enum values and value sizes are applied to the node tree,
// before kin-openapi decodes it: refusing costs a few times the file, not hundreds.
func TestCapsBeforeDecoding(t *testing.T) {
	longtest.NoRace(t)
	for _, c := range []struct {
		name, text, want string
	}{
		{"ops.yaml", manyOperations(4 * load.MaxOperations), "ops.yaml:3:1: #/paths: limit exceeded: 40000 operations, more than 10000"},
		{"enum.yaml", flowEnum(40 * load.MaxEnumValues), "enum.yaml:6:5: limit exceeded: enum of 400000 values, more than 10000"},
		{"value.yaml", longValue(4 * load.MaxValueBytes), "value.yaml:8:20: limit exceeded: a value of 4194304 bytes, more than 1048576"},
		{"nodes.yaml", manyValues(load.MaxIndicators), fmt.Sprintf("nodes.yaml:4:%d: limit exceeded: more than %d of the characters", 2*load.MaxIndicators-13, load.MaxIndicators)},
		{"aliased.yaml", aliasedSchemas(1000, 1000), "limit exceeded: excessive aliasing"},
	} {
		alloc, err := loadAllocating(t, writeSpec(t, c.name, c.text))
		wantLocated(t, c.name, err, c.want)
		limit := uint64(max(40*len(c.text), 16<<20))
		t.Logf("%s: refusing %d bytes allocated %d bytes, limit %d", c.name, len(c.text), alloc, limit)
		if alloc > limit {
			t.Errorf("%s: refusing %d bytes allocated %d MB, more than %d MB", c.name, len(c.text), alloc>>20, limit>>20)
		}
	}
	if _, err := Load(writeSpec(t, "value.yaml", longValue(load.MaxValueBytes)), LoadOptions{}); err != nil {
		t.Errorf("a value of exactly %d bytes: %v", load.MaxValueBytes, err)
	}
}

// manyTexts is a spec with n extension values of size bytes each, written out or, when
// aliased, written once.
func manyTexts(n, size int, aliased bool) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\nx-texts:\n")
	text := strings.Repeat("x", size)
	for i := range n {
		switch {
		case !aliased:
			fmt.Fprintf(&b, "  t%d: %s\n", i, text)
		case i == 0:
			fmt.Fprintf(&b, "  t0: &t %s\n", text)
		default:
			fmt.Fprintf(&b, "  t%d: *t\n", i)
		}
	}
	return b.String()
}

// The text of the document is capped as a whole, aliases expanded: most of it ends up
// in the client.
func TestTextCap(t *testing.T) {
	longtest.NoRace(t)
	_, err := loadAndGenerate(t, writeSpec(t, "texts.yaml", manyTexts(load.MaxTextBytes/load.MaxValueBytes+1, load.MaxValueBytes, false)), LoadOptions{})
	wantLocated(t, "written out", err, fmt.Sprintf("texts.yaml:36:8: limit exceeded: the document's keys and values add up to more than %d bytes", load.MaxTextBytes))
	_, err = loadAndGenerate(t, writeSpec(t, "aliased.yaml", manyTexts(load.MaxTextBytes/load.MaxValueBytes+1, load.MaxValueBytes, true)), LoadOptions{})
	wantLocated(t, "aliased", err, "aliased.yaml:36:8: limit exceeded: excessive aliasing")
}

func TestCapsBeforeDecodingLong(t *testing.T) {
	longTests(t)
	for _, c := range []struct{ name, text string }{
		{"ops.yaml", manyOperations(100000)},
		{"enum.yaml", flowEnum(1000000)},
		{"value.yaml", longValue(60 << 20)},
		{"values.yaml", manyValues(32<<20 - 64)},
	} {
		alloc, err := loadAllocating(t, writeSpec(t, c.name, c.text))
		wantLocated(t, c.name, err, "limit exceeded")
		t.Logf("%s: %d MB refused after allocating %d MB", c.name, len(c.text)>>20, alloc>>20)
		if alloc > 1<<30 {
			t.Errorf("%s: allocated %d MB", c.name, alloc>>20)
		}
	}
}

// What one parser reads differently from another, or from what a reader sees, is
// refused: repeated keys in JSON (where the last would silently win), Swagger 2.0 keys
// in another case (matched by encoding/json), and a second YAML document (ignored).
func TestParserDifferentials(t *testing.T) {
	hidden := `{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{"/a":{"post":{"operationId":"a",` +
		`"x-idempotent":false,"x-retry":{"maxAttempts":3},"responses":{"204":{"description":"ok"}},"x-idempotent":true}}}}`
	col := strings.LastIndex(hidden, `"x-idempotent"`) + 1
	for _, c := range []struct{ name, text, want string }{
		{"dup.json", hidden, fmt.Sprintf(`dup.json:1:%d: malformed document: mapping key "x-idempotent" already defined`, col)},
		{"indented.json", "\n  " + hidden, fmt.Sprintf(`indented.json:2:%d: malformed document: mapping key "x-idempotent" already defined`, col+2)},
		{"bom.json", "\uFEFF" + hidden, fmt.Sprintf(`bom.json:1:%d: malformed document: mapping key "x-idempotent" already defined`, col)},
		{"swagger.json", strings.Replace(hidden, `"openapi":"3.0.3"`, `"swagger":"2.0"`, 1),
			`swagger.json:1:` + fmt.Sprint(col-2) + `: malformed document: mapping key "x-idempotent" already defined at line 1`},
		{"swagger-case.yaml", "swagger: \"2.0\"\ninfo: {title: T, version: \"1\"}\npAtHs:\n  /a:\n    get:\n      responses: {\"200\": {description: ok}}\n",
			`swagger-case.yaml:3:1: unknown field "pAtHs": field names are case-sensitive (did you mean "paths"?)`},
		{"swagger-flow.yaml", "{swagger: \"2.0\", info: {title: T, version: \"1\"},\n pAtHs: {}}\n",
			`swagger-flow.yaml:2:2: unknown field "pAtHs": field names are case-sensitive (did you mean "paths"?)`},
		{"swagger-case-deep.yaml", "swagger: \"2.0\"\ninfo: {title: T, version: \"1\"}\npaths:\n  /a:\n    get:\n      Responses: {\"200\": {description: ok}}\n",
			`swagger-case-deep.yaml:6:7: unknown field "Responses"`},
		{"multi.yaml", "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\n---\nopenapi: 3.0.3\ninfo: {title: U, version: \"1\"}\npaths: {}\n",
			`multi.yaml:4:1: malformed document: a second YAML document starts here`},
		{"ended.yaml", "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\n...\n# after\nx: 1\n",
			`ended.yaml:6:1: malformed document: a second YAML document starts here`},
	} {
		_, err := loadAndGenerate(t, writeSpec(t, c.name, c.text), LoadOptions{})
		wantLocated(t, c.name, err, c.want)
	}
	// Property names are the spec's own: any case, and repeated document markers at the
	// start are one document.
	for name, text := range map[string]string{
		"props.yaml": "swagger: \"2.0\"\ninfo: {title: T, version: \"1\"}\npaths:\n  /a:\n    get:\n      responses: {\"200\": {description: ok}}\ndefinitions:\n  Pet: {type: object, properties: {Paths: {type: string}, Type: {type: string}}}\n",
		"start.yaml": "# a comment\n---\nopenapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\n...\n",
	} {
		if _, err := loadAndGenerate(t, writeSpec(t, name, text), LoadOptions{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A FIFO, as the spec or reached by $ref, is refused without waiting for a writer.
func TestFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	_, err := loadAndGenerate(t, fifo, LoadOptions{})
	if err == nil || err.Error() != fifo+": not a regular file" {
		t.Errorf("the spec: got %v", err)
	}
	spectest.WriteFiles(t, dir, map[string]string{"api.yaml": spectest.RefSpec("./fifo.yaml#/Pet")})
	_, err = loadAndGenerate(t, filepath.Join(dir, "api.yaml"), LoadOptions{AllowExternalRefs: true})
	wantLocated(t, "$ref", err, "api.yaml:13:17: ")
	if err != nil && !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("$ref: got %v", err)
	}
}

// UTF-32 text is refused at its start, saying what it looks like.
func TestUTF32(t *testing.T) {
	text := []rune("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\n")
	encode := func(bom []byte, big bool) string {
		out := append([]byte(nil), bom...)
		for _, r := range text {
			b := []byte{byte(r), byte(r >> 8), byte(r >> 16), byte(r >> 24)}
			if big {
				b[0], b[1], b[2], b[3] = b[3], b[2], b[1], b[0]
			}
			out = append(out, b...)
		}
		return string(out)
	}
	for name, c := range map[string]struct {
		text, want string
	}{
		"le-bom.yaml": {encode([]byte{0xFF, 0xFE, 0, 0}, false), "UTF-32 little-endian"},
		"be-bom.yaml": {encode([]byte{0, 0, 0xFE, 0xFF}, true), "UTF-32 big-endian"},
		"le.yaml":     {encode(nil, false), "UTF-32 little-endian"},
		"be.yaml":     {encode(nil, true), "UTF-32 big-endian"},
	} {
		_, err := Load(writeSpec(t, name, c.text), LoadOptions{})
		wantLocated(t, name, err, name+":1:1: malformed document: the file looks like "+c.want)
	}
}

// The YAML decoder compares each key of a mapping with every other: an object of
// 100,000 properties took minutes. Past load.MaxKeyPairs the spec is refused, located
// at the mapping, before it is decoded.
func TestHugeMappingIsRefused(t *testing.T) {
	props := func(n int) string {
		var b strings.Builder
		b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\ncomponents:\n  schemas:\n    Big:\n      type: object\n      properties:\n")
		for i := range n {
			fmt.Fprintf(&b, "        p%d: {type: string}\n", i)
		}
		return b.String()
	}
	_, err := loadAndGenerate(t, writeSpec(t, "big.yaml", props(15000)), LoadOptions{})
	wantLocated(t, "15,000 properties", err, "big.yaml:8:7: limit exceeded: a mapping of 15000 keys")
	if _, err := loadAndGenerate(t, writeSpec(t, "ok.yaml", props(3000)), LoadOptions{}); err != nil {
		t.Errorf("3,000 properties: %v", err)
	}
}

// Two keys of one length compare byte by byte: 14,000 keys of 2 KB that differ only at
// their ends took half a minute to decode. Their bytes count towards load.MaxKeyPairs.
func TestMappingOfLongKeysIsRefused(t *testing.T) {
	prefix := strings.Repeat("k", 2100)
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\nx-long:\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "  %s%05d: 1\n", prefix, i)
	}
	_, err := loadAndGenerate(t, writeSpec(t, "long.yaml", b.String()), LoadOptions{})
	wantLocated(t, "5,000 keys of 2 KB", err, "long.yaml:4:1: limit exceeded: a mapping of 5000 keys (10525000 bytes of them)")
}

// kin-openapi walks a schema's properties again for every $ref to it: 5,000 $refs to
// a schema of 2,000 properties took 19 s. Past load.MaxRefFanIn the spec is refused,
// located at the schema, before it is decoded.
func TestRefFanInIsCapped(t *testing.T) {
	spec := func(ops, props int) string {
		var b strings.Builder
		b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n")
		for i := range ops {
			fmt.Fprintf(&b, "  /p%d:\n    get:\n      responses: {\"200\": {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Big'}}}}}\n", i)
		}
		b.WriteString("components:\n  schemas:\n    Big:\n      type: object\n      properties:\n")
		for i := range props {
			fmt.Fprintf(&b, "        p%d: {type: string}\n", i)
		}
		return b.String()
	}
	_, err := loadAndGenerate(t, writeSpec(t, "fan.yaml", spec(1000, 1500)), LoadOptions{})
	wantLocated(t, "1,000 $refs to 1,500 properties", err, "fan.yaml:3006:5: #/components/schemas/Big: limit exceeded: 1000 $refs to this schema of 1500 properties")
	if _, err := loadAndGenerate(t, writeSpec(t, "ok.yaml", spec(100, 500)), LoadOptions{}); err != nil {
		t.Errorf("100 $refs to 500 properties: %v", err)
	}
}

// kin-openapi resolves and validates what a request body, response, parameter, header or
// path item holds inline again at every $ref to it: 5,000 operations sharing a request
// body whose inline schema has 2,000 properties took 50 s. Past load.MaxRefFanIn the
// spec is refused, located at the component, counting the $refs inside a component
// once per use of it.
func TestSharedComponentFanInIsCapped(t *testing.T) {
	props := func(indent string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%sp%d: {type: string}\n", indent, i)
		}
		return b.String()
	}
	spec := func(ops int, use, components string) string {
		var b strings.Builder
		b.WriteString("openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n")
		for i := range ops {
			fmt.Fprintf(&b, "  /p%d:\n    put:\n%s", i, use)
		}
		return b.String() + "components:\n" + components
	}
	body := "      requestBody: {$ref: '#/components/requestBodies/B'}\n      responses: {\"204\": {description: ok}}\n"
	bodies := "  requestBodies:\n    B:\n      content:\n        application/json:\n          schema:\n            type: object\n            properties:\n"
	_, err := loadAndGenerate(t, writeSpec(t, "body.yaml", spec(1000, body, bodies+props("              ", 1500))), LoadOptions{})
	wantLocated(t, "1,000 $refs to a request body of 1,500 properties", err,
		"body.yaml:4006:5: #/components/requestBodies/B: limit exceeded: 1000 $refs to this request body holding 1505 objects inline")

	// A response holding a $ref to a header: each use of the response uses the header.
	response := "      responses: {\"200\": {$ref: '#/components/responses/R'}}\n"
	nested := "  responses:\n    R:\n      description: ok\n      headers: {X-H: {$ref: '#/components/headers/H'}}\n" +
		"  headers:\n    H:\n      schema:\n        type: object\n        properties:\n"
	_, err = loadAndGenerate(t, writeSpec(t, "nested.yaml", spec(1000, response, nested+props("          ", 1500))), LoadOptions{})
	wantLocated(t, "1,000 uses of a response holding a header of 1,500 properties", err,
		"nested.yaml:3010:5: #/components/headers/H: limit exceeded: 1000 $refs to this header holding 1503 objects inline")

	if _, err := loadAndGenerate(t, writeSpec(t, "ok.yaml", spec(100, body, bodies+props("              ", 500))), LoadOptions{}); err != nil {
		t.Errorf("100 $refs to a request body of 500 properties: %v", err)
	}
}

// A path item whose $refs go round a cycle would be dropped by kin-openapi without a
// word; it is an error located at its $ref, in the description or in the overlay that
// wrote it. A path item that names another one that holds operations is read.
func TestPathItemRefCycles(t *testing.T) {
	const get = "    get: {operationId: getB, responses: {\"200\": {description: ok}}}\n"
	for _, tt := range []struct{ name, paths, want string }{
		{"itself", "  /a: {$ref: '#/paths/~1a'}\n  /b:\n" + get,
			`api.yaml:4:8: $ref cycle: the $refs of path item "/a" go round in a circle (#/paths/~1a)`},
		{"two", "  /a: {$ref: '#/paths/~1b'}\n  /b: {$ref: '#/paths/~1a'}\n",
			`api.yaml:4:8: $ref cycle: the $refs of path item "/a" go round in a circle (#/paths/~1b → #/paths/~1a)`},
		{"into a cycle", "  /a: {$ref: '#/paths/~1b'}\n  /b: {$ref: '#/paths/~1c'}\n  /c: {$ref: '#/paths/~1b'}\n  /d:\n" + get,
			`api.yaml:4:8: $ref cycle: the $refs of path item "/a" go round in a circle (#/paths/~1b → #/paths/~1c → #/paths/~1b)`},
		{"a chain", "  /a: {$ref: '#/paths/~1b'}\n  /b:\n    get: {responses: {\"200\": {description: ok}}}\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := writeSpec(t, "api.yaml", "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\npaths:\n"+tt.paths)
			_, err := Load(path, LoadOptions{})
			if tt.want == "" {
				if err != nil {
					t.Error(err)
				}
				return
			}
			wantLocated(t, tt.name, err, tt.want)
		})
	}
	webhook := writeSpec(t, "hooks.yaml", "openapi: 3.1.0\ninfo: {title: t, version: \"1\"}\nwebhooks:\n  a: {$ref: '#/webhooks/a'}\n")
	_, err := Load(webhook, LoadOptions{})
	wantLocated(t, "a webhook", err, `hooks.yaml:4:7: $ref cycle: the $refs of path item "a" go round in a circle (#/webhooks/a)`)

	spec := writeSpec(t, "api.yaml", overlayPetstore)
	o := writeOverlay(t, "o.yaml", "overlay: 1.0.0\ninfo: {title: t, version: '1'}\nactions:\n"+
		"  - {target: '$.paths', update: {/cats: {$ref: '#/paths/~1cats'}}}\n")
	_, err = Load(spec, LoadOptions{Overlays: []string{o}})
	wantLocated(t, "an overlay's", err, `o.yaml:4:42: $ref cycle: the $refs of path item "/cats" go round in a circle (#/paths/~1cats)`)
}
