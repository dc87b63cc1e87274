package gen

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrygen/retrygen/internal/corpus"
	"github.com/retrygen/retrygen/internal/longtest"
)

// TestPaginationInTheCorpus counts, per spec of the corpus, the operations found to be
// paginated, by kind and by where retrygen found it, and the located warnings about the
// pagination extensions that do not fit their operation. The specs without any are
// checked too: they must stay without.
func TestPaginationInTheCorpus(t *testing.T) {
	want := map[string]string{
		"box.json":                        "cursor next_marker+marker=38, offset offset+limit+total_count=10; warns: GET /folders/{folder_id}/items (get_folders_id_items): the list fits several pagination shapes, cursor (next_marker+marker) and offset (offset+limit+total_count): the operation gets no page walk; GET /folders/trash/items (get_folders_trash_items): the list fits several pagination shapes, cursor (next_marker+marker) and offset (offset+limit+total_count): the operation gets no page walk; GET /folder_locks (get_folder_locks): the response has next_marker, a sign of pagination, but no parameter retrygen knows to ask for the next page with: the operation gets no page walk; GET /users (get_users): the list fits several pagination shapes, cursor (next_marker+marker) and offset (offset+limit+total_count): the operation gets no page walk",
		"dub.json":                        "cursor x-speakeasy-pagination=2, page x-speakeasy-pagination=2",
		"github.json":                     "link Link header=147",
		"oai-api-with-examples.yaml":      "none",
		"oai-callback-example.yaml":       "none",
		"oai-link-example.yaml":           "none",
		"oai-petstore-expanded.yaml":      "none",
		"oai-petstore.yaml":               "none",
		"oai-tictactoe-31.yaml":           "none",
		"oai-uspto.yaml":                  "none",
		"oai-webhook-example-31.yaml":     "none",
		"openai.yaml":                     "cursor has_more+data+after=10, cursor has_more+data+after+last_id=40, cursor next_page+page=11; warns: GET /organization/projects/{project_id}/groups (list-project-groups): the response has has_more, a sign of pagination, but no parameter retrygen knows to ask for the next page with: the operation gets no page walk; GET /vector_stores/{vector_store_id}/files/{file_id}/content (retrieveVectorStoreFileContent): the response has next_page, a sign of pagination, but no parameter retrygen knows to ask for the next page with: the operation gets no page walk",
		"openrouter-31.yaml":              "offset x-speakeasy-pagination=19; warns: GET /files (listFiles): x-speakeasy-pagination.outputs.results: $.data: $ is a oneOf or anyOf, which a page walk cannot read",
		"squadcast-31.yaml":               "cursor x-speakeasy-pagination=1, page x-speakeasy-pagination=7",
		"stripe.yaml":                     "cursor has_more+data+starting_after=98, cursor next_page+page=7; warns: GET /v1/accounts/{account}/capabilities (GetAccountsAccountCapabilities): the response has has_more, a sign of pagination, but no parameter retrygen knows to ask for the next page with: the operation gets no page walk; GET /v1/accounts/{account}/external_accounts (GetAccountsAccountExternalAccounts): the response has has_more, a sign of pagination, but no parameter retrygen knows to ask for the next page with: the operation gets no page walk; GET /v1/customers/{customer}/sources (GetCustomersCustomerSources): the response has has_more, a sign of pagination, but no parameter retrygen knows to ask for the next page with: the operation gets no page walk; GET /v1/reporting/report_types (GetReportingReportTypes): the response has has_more, a sign of pagination, but no parameter retrygen knows to ask for the next page with: the operation gets no page walk",
		"superset.json":                   "none",
		"swagger2-petstore-expanded.yaml": "none",
		"swagger2-uber.yaml":              "none",
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range want {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Run(strings.TrimSuffix(name, filepath.Ext(name)), func(t *testing.T) {
			path := corpus.Path(t, name)
			if fileSize(t, path) > 1<<20 {
				longtest.Heavy(t)
			}
			s, err := Load(path, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			counts := map[string]int{}
			for _, op := range s.API.Operations {
				if pg := op.Pagination; pg != nil {
					counts[string(pg.Kind)+" "+pg.From]++
				}
			}
			var parts []string
			for _, k := range slices.Sorted(func(yield func(string) bool) {
				for k := range counts {
					if !yield(k) {
						return
					}
				}
			}) {
				parts = append(parts, fmt.Sprintf("%s=%d", k, counts[k]))
			}
			got := strings.Join(parts, ", ")
			if got == "" {
				got = "none"
			}
			var warns []string
			for _, w := range s.Warnings {
				if strings.Contains(w.Msg, "pagination") {
					warns = append(warns, w.Op+": "+w.Msg)
				}
			}
			if len(warns) > 0 {
				got += "; warns: " + strings.Join(warns, "; ")
			}
			if diff := cmp.Diff(want[name], got); diff != "" {
				t.Errorf("pagination (-want +got):\n%s", diff)
			}
		})
	}
}
