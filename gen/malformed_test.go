package gen

// Group C of docs/reliability.md: malformed and invalid specs are refused with a located
// error (file:line:col, or a JSON pointer), whatever is wrong with them.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// malformedDir holds specs that are broken in ways the negative corpus (errorsDir) does
// not cover; malformedWant says what each must say.
const malformedDir = "../testdata/hostile/malformed"

// malformedWant is what the error for each spec of malformedDir must contain.
var malformedWant = map[string]string{
	"bom-json-error.json":          `bom-json-error.json:1:144: GET /a: x-retry.jitter must be full, equal, decorrelated or none`,
	"control-characters.yaml":      `control-characters.yaml:2:17: malformed document: control character U+0001 is not allowed`,
	"duplicate-key.yaml":           `duplicate-key.yaml:4:1: malformed document: mapping key "paths" already defined`,
	"empty.yaml":                   `empty.yaml:1:1: missing OpenAPI version`,
	"enum-nan.yaml":                `enum-nan.yaml:8: malformed document: .nan has no JSON representation`,
	"header-colon.yaml":            `header-colon.yaml:7:12: GET /a: header parameter name "X:Y" is not a valid HTTP field name`,
	"header-crlf.yaml":             `header-crlf.yaml:7:12: GET /a: header parameter name "X\r\nInjected: 1" is not a valid HTTP field name`,
	"invalid-utf8.json":            `invalid-utf8.json:2:25: malformed document: invalid UTF-8`,
	"invalid-utf8.yaml":            `invalid-utf8.yaml:2:20: malformed document: invalid UTF-8`,
	"list.yaml":                    `list.yaml:1:1: malformed document: cannot construct !!seq into openapi3.T`,
	"maxattempts-negative.yaml":    `maxattempts-negative.yaml:7:17: GET /a: x-retry.maxAttempts must be >= 1, got -1`,
	"null.yaml":                    `null.yaml:1:1: missing OpenAPI version`,
	"openapi-number.yaml":          `openapi-number.yaml:1:1: malformed document: cannot unmarshal !!float into string field "openapi"`,
	"operation-scalar.yaml":        `operation-scalar.yaml:5:10: malformed document: cannot construct !!str`,
	"parameter-in-body.yaml":       `parameter-in-body.yaml:7:12: GET /a: parameter can't have 'in' value "body"`,
	"path-parameter-optional.yaml": `path-parameter-optional.yaml:7:12: GET /a/{id}: path parameter "id" must be required`,
	"path-without-slash.yaml":      `path-without-slash.yaml:3:1: #/paths: path "pets" does not start with a forward slash`,
	"ref-cycle-three.yaml":         `ref-cycle-three.yaml:6:9: $ref cycle: "#/components/schemas/B" → "#/components/schemas/C" → "#/components/schemas/A" → "#/components/schemas/B"`,
	"ref-not-string.yaml":          `ref-not-string.yaml:7:9: GET /a: `,
	"responses-scalar.yaml":        `responses-scalar.yaml:6:18: malformed document: cannot construct !!int`,
	"retry-post-enabled.yaml":      `retry-post-enabled.yaml:6:7: POST /a: x-retry on an operation that may not be retried: POST is not idempotent and has no idempotency key (RFC 9110 §9.2.2)`,
	"scalar.yaml":                  `scalar.yaml:1:1: malformed document: cannot construct !!str`,
	"swagger-paths-list.yaml":      `swagger-paths-list.yaml:3:1: #/paths: malformed document: cannot unmarshal array into field T.paths`,
	"swagger-unclosed.json":        `swagger-unclosed.json:3:1: malformed document: did not find expected node content`,
	"swagger-version.yaml":         `swagger-version.yaml:1:1: unsupported OpenAPI version swagger "1.2"`,
	"tab-indent.yaml":              `tab-indent.yaml:3:1: malformed document: found character that cannot start any token`,
	"truncated.yaml":               `truncated.yaml:3:1: malformed document: did not find expected ',' or '}'`,
	"unclosed-quote.yaml":          `unclosed-quote.yaml:2:36: malformed document: did not find expected ',' or '}'`,
	"unknown-type.yaml":            `unknown-type.yaml:6:5: #/components/schemas/S: unsupported 'type' value "strin"`,
	"x-retry-typo.yaml":            `x-retry-typo.yaml:7:17: GET /a: unknown field x-retry.maxAtempts`,
}

// TestMalformedSpecs generates from every spec of malformedDir and errorsDir: each must
// be refused, every problem located, and (for malformedDir) with the expected text.
// It reports how many were refused with a located error out of how many were tried.
func TestMalformedSpecs(t *testing.T) {
	var specs []string
	for _, dir := range []string{malformedDir, errorsDir} {
		files, err := filepath.Glob(filepath.Join(dir, "*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if !strings.HasSuffix(f, ".err") {
				specs = append(specs, f)
			}
		}
	}
	located := 0
	seen := map[string]bool{}
	for _, path := range specs {
		name := filepath.Base(path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		opts := LoadOptions{AllowExternalRefs: strings.HasPrefix(string(data), "# load: allow-external-refs")}
		_, err = loadAndGenerate(t, path, opts)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if lerr := locatedError(err); lerr != nil {
			t.Errorf("%s: %v", name, lerr)
			continue
		}
		located++
		if filepath.Dir(path) != filepath.Clean(malformedDir) {
			continue
		}
		seen[name] = true
		want, ok := malformedWant[name]
		if !ok {
			t.Errorf("%s: no expected message in malformedWant", name)
			continue
		}
		got := strings.ReplaceAll(err.Error(), filepath.Clean(malformedDir)+string(filepath.Separator), "")
		if !strings.Contains(got, want) {
			t.Errorf("%s: got\n%s\nwant it to contain\n%s", name, got, want)
		}
	}
	for name := range malformedWant {
		if !seen[name] && !slices.ContainsFunc(specs, func(p string) bool { return filepath.Base(p) == name }) {
			t.Errorf("malformedWant lists %s, which is not in %s", name, malformedDir)
		}
	}
	t.Logf("%d of %d malformed or invalid specs refused with a located error", located, len(specs))
	if len(specs) < 50 {
		t.Errorf("only %d specs found: the corpora are missing", len(specs))
	}
}

// TestErrorMessagesAreInert: spec text in an error message cannot forge another message
// line, or send terminal escapes and bidirectional controls to the user's screen.
func TestErrorMessagesAreInert(t *testing.T) {
	spec := "openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n" +
		"  \"/a\\e[31m\\nforged.yaml:1:1: forged\\r\":\n    get:\n      operationId: \"x\\e[2J\\u202e\\u2028\"\n" +
		"      x-retry: {maxAttempts: 0}\n      responses: {\"204\": {description: ok}}\n"
	_, err := loadAndGenerate(t, writeSpec(t, "esc.yaml", spec), LoadOptions{})
	if err == nil {
		t.Fatal("accepted")
	}
	msg := err.Error()
	lines := strings.Split(msg, "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "\tfix: ") {
		t.Errorf("got %d lines, want the error and its fix:\n%s", len(lines), msg)
	}
	if strings.ContainsFunc(msg, func(r rune) bool { return r != '\n' && r != '\t' && dropRuneForTest(r) }) {
		t.Errorf("message keeps control characters: %q", msg)
	}
	if want := `GET /a\x1b[31m\x0aforged.yaml:1:1: forged\x0d (x\x1b[2J\u202e\u2028): x-retry.maxAttempts must be >= 1, got 0`; !strings.Contains(msg, want) {
		t.Errorf("got %q, want it to contain %q", msg, want)
	}
}
