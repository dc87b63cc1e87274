package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// plan -json says how each paginated operation is walked and where retrygen found it;
// plan -wide shows it in PAGES.
func TestPlanShowsPagination(t *testing.T) {
	api := loadAPI(t, filepath.Join("..", "..", "..", "testdata", "golden", "paging", "spec.yaml"))
	var buf bytes.Buffer
	if err := WriteJSON(&buf, api); err != nil {
		t.Fatal(err)
	}
	var entries []struct {
		OperationID string          `json:"operationId"`
		Pagination  json.RawMessage `json:"pagination"`
	}
	if err := json.Unmarshal(buf.Bytes(), &entries); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range entries {
		var c bytes.Buffer
		if err := json.Compact(&c, e.Pagination); err != nil {
			t.Fatal(err)
		}
		got[e.OperationID] = c.String()
	}
	want := map[string]string{
		"listCharges":   `{"kind":"cursor","from":"has_more+data+starting_after","at":"","all":"ListChargesAll","pages":"ListChargesPages","param":"starting_after","items":"$.data","cursor":"$.data[-1].id","hasMore":"$.has_more"}`,
		"listIssues":    `{"kind":"link","from":"Link header","at":"","all":"ListIssuesAll","pages":"ListIssuesPages","param":"","items":"$","cursor":"","hasMore":""}`,
		"listModels":    `{"kind":"offset","from":"x-speakeasy-pagination","at":"../../../testdata/golden/paging/spec.yaml:130:7","all":"ListModelsAll","pages":"ListModelsPages","param":"offset","items":"$.data","cursor":"","hasMore":""}`,
		"listIssuesAll": `null`,
	}
	for id, w := range want {
		if diff := cmp.Diff(w, got[id]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", id, diff)
		}
	}

	buf.Reset()
	if err := WriteTable(&buf, "spec.yaml", api, true); err != nil {
		t.Fatal(err)
	}
	for _, cell := range []string{"PAGES", "cursor starting_after (has_more+data+starting_after)", "link (Link header)", "page page_number (x-speakeasy-pagination)"} {
		if !strings.Contains(buf.String(), cell) {
			t.Errorf("plan -wide has no %q:\n%s", cell, buf.String())
		}
	}
}
