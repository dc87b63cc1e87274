package emit

import (
	"strings"
	"testing"
)

// The "Retries:" line of a method's doc says what a call does: an operation that is not
// retry-safe makes one attempt, repeated only when it did not reach the server or the
// server says so, never "up to 4 attempts".
func TestRetrySummary(t *testing.T) {
	const spec = `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /orders:
    post:
      operationId: placeOrder
      responses: {"204": {description: ok}}
  /quiet:
    post:
      operationId: quiet
      x-retry: {serverSignals: false}
      responses: {"204": {description: ok}}
  /off:
    post:
      operationId: off
      x-retry: false
      responses: {"204": {description: ok}}
  /pets:
    get:
      operationId: listPets
      responses: {"204": {description: ok}}
  /once:
    get:
      operationId: once
      x-retry: {maxAttempts: 1}
      responses: {"204": {description: ok}}
`
	src := string(generate(t, "retries.yaml", spec))
	for _, want := range []string{
		"// Retries: one attempt, as POST is not idempotent and has no idempotency key (RFC 9110 §9.2.2). It is repeated, up to 4 attempts in all, only when the connection could not be opened or the server says so (X-Should-Retry: true).\n",
		"// Retries: one attempt, as POST is not idempotent and has no idempotency key (RFC 9110 §9.2.2). It is repeated, up to 4 attempts in all, only when the connection could not be opened.\n",
		"// Retries: none (one attempt), as POST is not idempotent and has no idempotency key (RFC 9110 §9.2.2).\n",
		"// Retries: up to 4 attempts on 408/429/500/502/503/504 and connection errors",
		"// Retries: none (one attempt), as GET is safe (RFC 9110 §9.2.1); retries turned off (maxAttempts 1, from operation).\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("no doc line %q", want)
		}
	}
	if strings.Contains(src, "only attempts that could not connect") {
		t.Error("a doc line still ends with the policy's own account of the attempts it retries")
	}
	if t.Failed() {
		for _, l := range strings.Split(src, "\n") {
			if strings.Contains(l, "Retries:") {
				t.Log(l)
			}
		}
	}
}
