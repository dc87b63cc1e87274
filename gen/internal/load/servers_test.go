package load

import (
	"strings"
	"testing"
)

// A server URL, or a value of a server variable, with a control character is refused,
// located, wherever the server is listed; a URL that writes it percent-encoded is not.
func TestServerControlCharacters(t *testing.T) {
	spec := func(root, item, op string) string {
		return "openapi: 3.0.3\ninfo: {title: t, version: \"1\"}\n" + root +
			"paths:\n  /a:\n" + item +
			"    get:\n      operationId: getA\n      responses: {\"200\": {description: ok}}\n" + op
	}
	for _, tt := range []struct {
		name, text, want string // want: in the error, or "" when it loads
	}{
		{"NUL in the document's", spec(`servers: [{url: "http://a\x00b.test/x"}]`+"\n", "", ""),
			`api.yaml:3:12: #/servers/0: server URL "http://a\x00b.test/x" holds the control character U+0000`},
		{"CR LF in a path item's", spec("", `    servers: [{url: "http://a.test/x\r\nX-Evil: 1"}]`+"\n", ""),
			`api.yaml:5:16: #/paths/~1a/servers/0: server URL "http://a.test/x\r\nX-Evil: 1" holds the control character U+000D`},
		{"ESC in an operation's", spec("", "", `      servers: [{url: "http://a.test/\e[31m"}]`+"\n"),
			`api.yaml:8:18: #/paths/~1a/get/servers/0: server URL "http://a.test/\x1b[31m" holds the control character U+001B`},
		{"DEL in a variable's default", spec("servers:\n  - url: 'http://{host}/'\n    variables: {host: {default: \"a\\x7F.test\"}}\n", "", ""),
			`api.yaml:5:24: #/servers/0: server "http://{host}/": variable "host": default "a\x7f.test" holds the control character U+007F`},
		{"LF in a variable's enum", spec("servers:\n  - url: 'http://{host}/'\n    variables: {host: {default: a.test, enum: [a.test, \"b\\n.test\"]}}\n", "", ""),
			`api.yaml:5:41: #/servers/0: server "http://{host}/": variable "host": enum value "b\n.test" holds the control character U+000A`},
		{"percent-encoded", spec(`servers: [{url: "http://a.test/x%00%0D%0A"}]`+"\n", "", ""), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadSpec(t, "api.yaml", tt.text)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tt.want == "" && err != nil || !strings.Contains(got, tt.want) {
				t.Errorf("got %v\nwant %s", got, tt.want)
			}
		})
	}
}
