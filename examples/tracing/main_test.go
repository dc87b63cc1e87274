package main

import (
	"strings"
	"testing"
	"testing/synctest"
)

// The chain retries at one hop: the store's client three times, the first client once;
// the trace is one tree across both hops, and the counters say who gave up and who was
// told not to retry.
func TestTraceAcrossTwoHops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out strings.Builder
		if err := run(t.Context(), &out); err != nil {
			t.Fatal(err)
		}
		got := out.String()
		t.Log("\n" + got)
		for _, want := range []string{
			"requests: gateway 1, store 3\n",
			"getPet [internal] http.response.status_code=503 retrygen.attempts=1 retrygen.stop_reason=server_said_no\n" +
				"  GET /pets/{petId} [client] http.response.status_code=503\n" +
				"    gateway GET /pets/{petId} [server]",
			"      getPet [internal] http.response.status_code=503 retrygen.attempts=3 retrygen.stop_reason=exhausted\n",
			"        · retry.wait retry.delay=",
			"        GET /pets/{petId} [client] http.request.resend_count=2 http.response.status_code=503\n",
			"retrygen.client.retry.refused{retrygen.stop_reason=exhausted,server.address=store.test,url.template=/pets/{petId}} 1\n",
			"retrygen.onelayer.suppressed{http.response.status_code=503} 1\n",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("the output lacks %q", want)
			}
		}
		if strings.Count(got, "\n") > 40 {
			t.Errorf("the output has %d lines", strings.Count(got, "\n"))
		}
	})
}
