package load

import (
	"strings"
	"testing"
)

// A key repeated under paths, responses or a callback, whose entries kin-openapi fills
// from the pairs themselves (the later one replacing the earlier), is refused as YAML
// refuses any repeated key; in JSON, also once unescaped.
func TestRepeatedKeysOfMapLikeObjectsAreRefused(t *testing.T) {
	for name, c := range map[string]struct{ text, want string }{
		"paths.yaml": {"openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n  /a:\n    get: {operationId: getA, responses: {\"200\": {description: ok}}}\n  \"/a\":\n    post: {operationId: postA, responses: {\"200\": {description: ok}}}\n",
			`paths.yaml:6:3: malformed document: mapping key "/a" already defined at line 4`},
		"responses.yaml": {"openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n  /a:\n    get:\n      responses:\n        \"200\": {description: a}\n        \"200\": {description: b}\n",
			`responses.yaml:8:9: malformed document: mapping key "200" already defined at line 7`},
		"callback.yaml": {"openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths:\n  /a:\n    get:\n      responses: {\"200\": {description: a}}\n      callbacks:\n        cb:\n          '{$url}': {post: {responses: {\"200\": {description: a}}}}\n          '{$url}': {put: {responses: {\"200\": {description: b}}}}\n",
			`callback.yaml:10:11: malformed document: mapping key "{$url}" already defined at line 9`},
		"esc.json": {"{\"openapi\": \"3.0.3\", \"info\": {\"title\": \"T\", \"version\": \"1\"},\n\"paths\": {\"/a\": {},\n\"\\u002fa\": {}}}\n",
			`esc.json:3:1: malformed document: mapping key "/a" already defined at line 2`},
	} {
		_, err := loadSpec(t, name, c.text)
		if err == nil || !strings.Contains(err.Error(), "/"+c.want) {
			t.Errorf("%s: got %v, want %s", name, err, c.want)
		}
	}
}

// A mapping or a list written as a key is refused at the key, in words.
func TestNonScalarKeysAreRefusedAtTheKey(t *testing.T) {
	for name, c := range map[string]struct{ text, want string }{
		"list.yaml": {"openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\nx-weird:\n  ? [a, b]\n  : 1\npaths: {}\n",
			`list.yaml:4:5: malformed document: a key of "x-weird" is a list; keys must be strings`},
		"mapping.yaml": {"openapi: 3.0.3\ninfo: {title: T, version: \"1\"}\npaths: {}\n? {a: 1}\n: b\n",
			`mapping.yaml:4:3: malformed document: a mapping key is a mapping; keys must be strings`},
	} {
		_, err := loadSpec(t, name, c.text)
		if err == nil || !strings.Contains(err.Error(), "/"+c.want) {
			t.Errorf("%s: got %v, want %s", name, err, c.want)
		}
	}
}
