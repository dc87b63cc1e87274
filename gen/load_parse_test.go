package gen

import (
	"fmt"
	"strings"
	"testing"
)

// A JSON document on one line is given to the parser after "--- ": the columns it
// reports on that line are still the file's.
func TestOneLineJSONColumns(t *testing.T) {
	spec := `{"openapi":"3.0.3","info":{"title":"T","version":"1"},"paths":{"/a/{id}":{"get":{"parameters":[{"name":"id","in":"path","schema":{"type":"string"}}],"responses":{"204":{"description":"ok"}}}}}}`
	col := strings.Index(spec, `"name"`) + 1
	_, err := Load(writeSpec(t, "one.json", spec), LoadOptions{})
	want := fmt.Sprintf(`one.json:1:%d: GET /a/{id}: path parameter "id" must be required`, col)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
	bad := `{"openapi": "3.0.3", "info": {"title": "T", "version": "1"}, "paths": {"/a": ]}`
	_, err = Load(writeSpec(t, "bad.json", bad), LoadOptions{})
	want = fmt.Sprintf("bad.json:1:%d: malformed document", strings.Index(bad, "]")+1)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}
