package runtime

import (
	"strings"
	"testing"
)

// The error code comes from where the common APIs put it; what is no code gives "".
func TestErrorCode(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}`: "invalid_api_key",
		`{"error":{"code":"resource_missing","type":"invalid_request_error"}}`:                              "resource_missing",
		`{"code":"not_found","message":"no such pet"}`:                                                      "not_found",
		`{"code":404,"message":"no such pet"}`:                                                              "404",
		`{"error":"invalid_grant","error_description":"expired"}`:                                           "invalid_grant",
		`{"error":{"code":null,"message":"x"}}`:                                                             "",
		`{"message":"Not Found","documentation_url":"https://docs.github.com"}`:                             "",
		`{"code":1.5}`:             "",
		`{"code":{"nested":true}}`: "",
		`<html>502</html>`:         "",
	} {
		e := &Error{StatusCode: 400, Body: []byte(body)}
		if got := e.Code(); got != want {
			t.Errorf("Code of %.60s = %q, want %q", body, got, want)
		}
	}
	long := &Error{Body: []byte(`{"code":"line\nbreak ` + strings.Repeat("x", 300) + `"}`)}
	if got := long.Code(); strings.ContainsAny(got, "\n") || len(got) > codeLimit+4 || !strings.HasPrefix(got, "line") {
		t.Errorf("Code = %q", got)
	}
}
