package runtime_test

import (
	"context"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/retrytest"
)

// The engine pays the default budget with successes: after 20 answered calls, ten calls
// whose first attempt fails are all retried, where the floor alone allows three.
func TestEngineFundsBudgetWithSuccesses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := retrytest.NewTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		e := &runtime.Engine{HTTPClient: tr.Client(), Budget: runtime.DefaultBudget()}
		p := runtime.DefaultPolicy()
		p.Idempotent = true
		call := func() error {
			req, _ := http.NewRequest("GET", "http://api.test/pets", nil)
			resp, err := e.Do(context.Background(), req, &p)
			if err == nil {
				resp.Body.Close()
			}
			return err
		}
		for range 20 {
			if err := call(); err != nil {
				t.Fatal(err)
			}
		}
		failed := 0
		for range 10 {
			tr.Then(retrytest.Status(503))
			if err := call(); err != nil {
				failed++
			}
			time.Sleep(100 * time.Millisecond)
		}
		if failed != 0 {
			t.Errorf("%d of 10 calls failed: their retries were refused", failed)
		}
	})
}
