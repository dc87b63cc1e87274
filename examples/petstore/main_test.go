package main

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retrygen/retrygen/internal/memnet"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// runLog runs the example in a synctest bubble on an in-memory network, so that its waits
// take no real time and its log's durations are exact.
func runLog(t *testing.T) string {
	t.Helper()
	var out bytes.Buffer
	synctest.Test(t, func(t *testing.T) {
		n := memnet.New()
		tr := n.Transport()
		defer tr.CloseIdleConnections()
		if err := run(t.Context(), &out, n.Listen, &http.Client{Transport: tr}); err != nil {
			t.Fatalf("run: %v\n%s", err, out.String())
		}
	})
	return out.String()
}

// block is the log of one call: its heading and the lines after it.
type block struct {
	heading string
	lines   []string
}

func blocks(log string) []block {
	var bs []block
	for _, line := range strings.Split(log, "\n") {
		switch {
		case strings.HasPrefix(line, "== "):
			bs = append(bs, block{heading: line})
		case len(bs) > 0 && line != "" && !strings.HasPrefix(line, "   ") && !strings.HasPrefix(line, "Each ") &&
			!strings.HasPrefix(line, "  go run"):
			bs[len(bs)-1].lines = append(bs[len(bs)-1].lines, line)
		}
	}
	return bs
}

// Patterns in the expected lines: a wait or a duration as the log prints it, and a key.
const (
	dur  = `([0-9.]+(?:ns|µs|ms|s)|0s)`
	uuid = `([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})`
	host = `http://127\.0\.0\.1:\d+/v1`
)

// TestExampleLogShowsEachRule runs the example and checks, line by line, that every call
// did what its rule says: which calls were retried and which were not, how many attempts,
// the waits (a Retry-After floor, the backoff ceilings), the idempotency keys.
func TestExampleLogShowsEachRule(t *testing.T) {
	log := runLog(t)
	t.Logf("the example's log:\n%s", log)

	want := []struct {
		op    string
		lines []string
		check func(t *testing.T, m [][]string) // the submatches of each line
	}{
		{"listPets", []string{
			`server  #1 GET /v1/pets -> 503 Service Unavailable`,
			`client  attempt 1 failed: 503 Service Unavailable; retrying in ` + dur,
			`server  #2 GET /v1/pets -> 429 Too Many Requests, Retry-After: 1`,
			`client  attempt 2 failed: 429 Too Many Requests; retrying in ` + dur,
			`server  #3 GET /v1/pets -> 200 OK`,
			`result  ok after 3 attempts in ` + dur + `: 3 pets`,
		}, func(t *testing.T, m [][]string) {
			// Backoff ceilings from the document: 100ms, then 200ms; the 429's
			// Retry-After of 1s is a floor under the second wait.
			within(t, "first wait", m[1][1], 0, 100*time.Millisecond)
			within(t, "wait after Retry-After: 1", m[3][1], time.Second, 1200*time.Millisecond)
		}},
		{"listPetsPages", []string{
			`server  #4 GET /v1/pets\?limit=1 -> 200 OK`,
			`client  page 1 after 1 attempt: Rex`,
			`server  #5 GET /v1/pets\?limit=1&page=2 -> 503 Service Unavailable`,
			`client  attempt 1 failed: 503 Service Unavailable; retrying in ` + dur,
			`server  #6 GET /v1/pets\?limit=1&page=2 -> 200 OK`,
			`client  page 2 after 2 attempts: Tom`,
			`server  #7 GET /v1/pets\?limit=1&page=3 -> 200 OK`,
			`client  page 3 after 1 attempt: Tweety`,
			`result  ok after 4 attempts in all in ` + dur + `: 3 pets in 3 pages: Rex, Tom, Tweety`,
		}, func(t *testing.T, m [][]string) {
			// The page's own retry, under the document's backoff: one wait, below 100ms.
			within(t, "wait on the middle page", m[3][1], 0, 100*time.Millisecond)
		}},
		{"getPet", []string{
			`server  #1 GET /v1/pets/1 -> drops the connection without answering`,
			`client  attempt 1 failed: the connection closed before an answer; retrying in ` + dur,
			`server  #2 GET /v1/pets/1 -> 200 OK`,
			`result  ok after 2 attempts in ` + dur + `: pet 1 "Rex" \(dog\)`,
		}, nil},
		{"getPet", []string{
			`server  #3 GET /v1/pets/1 -> 503 Service Unavailable, Retry-After: 3600`,
			`result  failed after 1 attempt in 0s: GET ` + host + `/pets/1: 503 Service Unavailable after 1 attempt: ` +
				`server asked to retry later than allowed \(Retry-After 1h0m0s\)`,
		}, nil},
		{"getInventory", []string{
			`server  #1 GET /v1/store/inventory -> 507 Insufficient Storage`,
			`client  attempt 1 failed: 507 Insufficient Storage; retrying in ` + dur,
			`server  #2 GET /v1/store/inventory -> 507 Insufficient Storage`,
			`result  failed after 2 attempts in ` + dur + `: GET ` + host + `/store/inventory: 507 Insufficient Storage ` +
				`after 2 attempts: retry attempts exhausted`,
		}, func(t *testing.T, m [][]string) {
			// Equal jitter: between half the 100ms ceiling and all of it.
			within(t, "equal-jitter wait", m[1][1], 50*time.Millisecond, 100*time.Millisecond)
		}},
		{"createPet", []string{
			`server  #1 POST /v1/pets \(Idempotency-Key ` + uuid + `\) -> 503 Service Unavailable`,
			`client  attempt 1 failed: 503 Service Unavailable; retrying in ` + dur,
			`server  #2 POST /v1/pets \(Idempotency-Key ` + uuid + `\) -> 409 Conflict`,
			`client  attempt 2 failed: 409 Conflict; retrying in ` + dur,
			`server  #3 POST /v1/pets \(Idempotency-Key ` + uuid + `\) -> 201 Created`,
			`result  ok after 3 attempts in ` + dur + `: pet 4 "Bella" \(dog\)`,
		}, func(t *testing.T, m [][]string) {
			if m[0][1] != m[2][1] || m[2][1] != m[4][1] {
				t.Errorf("one call sent keys %s, %s, %s; want one key", m[0][1], m[2][1], m[4][1])
			}
		}},
		{"createPet", []string{
			`server  #4 POST /v1/pets \(Idempotency-Key ` + uuid + `\) -> 201 Created`,
			`result  ok after 1 attempt in 0s: pet 5 "Kitty" \(cat\)`,
		}, nil},
		{"placeOrder", []string{
			`server  #1 POST /v1/store/orders \(Idempotency-Key order-2026-0001\) -> 502 Bad Gateway`,
			`client  attempt 1 failed: 502 Bad Gateway; retrying in ` + dur,
			`server  #2 POST /v1/store/orders \(Idempotency-Key order-2026-0001\) -> 201 Created`,
			`result  ok after 2 attempts in ` + dur + `: order 100 for pet 1`,
		}, nil},
		{"searchPets", []string{
			`server  #1 POST /v1/pets/search -> 504 Gateway Timeout`,
			`client  attempt 1 failed: 504 Gateway Timeout; retrying in ` + dur,
			`server  #2 POST /v1/pets/search -> 200 OK`,
			`result  ok after 2 attempts in ` + dur + `: 1 pet`,
		}, nil},
		{"updatePet", []string{
			`server  #1 PUT /v1/pets/1 -> holds the answer for 1s`,
			`client  attempt 1 failed: no answer within the attempt timeout; retrying in ` + dur,
			`server  #2 PUT /v1/pets/1 -> 200 OK`,
			`result  ok after 2 attempts in ` + dur + `: pet 1 "Rex" \(dog\)`,
		}, func(t *testing.T, m [][]string) {
			// The attempt ends at its 300ms timeout, not at the server's 1s.
			wait := parse(t, m[1][1])
			took := parse(t, m[3][1])
			if d := took - wait; d < 299*time.Millisecond || d > 301*time.Millisecond {
				t.Errorf("the call took %v with a wait of %v: the first attempt lasted %v, want 300ms", took, wait, d)
			}
		}},
		{"updatePet", []string{
			`server  #3 PUT /v1/pets/1 -> 500 Internal Server Error`,
			`result  failed after 1 attempt in 0s: PUT ` + host + `/pets/1: 500 Internal Server Error`,
		}, nil},
		{"deletePet", []string{
			`server  #1 DELETE /v1/pets/2 -> 503 Service Unavailable`,
			`client  attempt 1 failed: 503 Service Unavailable; retrying in ` + dur,
			`server  #2 DELETE /v1/pets/2 -> 204 No Content`,
			`result  ok after 2 attempts in ` + dur + `: deleted`,
		}, nil},
		{"watchPet", []string{
			`server  #1 GET /v1/pets/1/events -> 200 OK, 2 events, then the connection is cut`,
			`client  event 1 \(id 1\): fed`,
			`client  event 2 \(id 2\): walked`,
			`server  #2 GET /v1/pets/1/events \(Last-Event-ID 2\) -> 200 OK, 2 events, then \[DONE\]`,
			`client  event 3 \(id 3\): napped`,
			`client  event 4 \(id 4\): groomed`,
			`result  ok after 1 attempt in ` + dur + `: 4 events`,
		}, func(t *testing.T, m [][]string) {
			// The server asked for a second between connections; the backoff of the first
			// retry (at most the policy's 100ms initial delay) comes on top.
			within(t, "the stream with one reconnection", m[6][1], time.Second, time.Second+150*time.Millisecond)
		}},
		{"feedPet", []string{
			`server  #1 POST /v1/pets/7/feed -> 503 Service Unavailable`,
			`result  failed after 1 attempt in 0s: POST ` + host + `/pets/7/feed: 503 Service Unavailable after 1 attempt: not retried: the operation is not idempotent and its policy has no idempotency key`,
		}, nil},
		{"feedPet", []string{
			`server  #2 POST /v1/pets/7/feed: pet 7 fed \(meal 1\) -> drops the connection without answering`,
			`result  failed after 1 attempt in 0s: POST ` + host + `/pets/7/feed: EOF after 1 attempt: not retried: the request may have reached the server, so its outcome is unknown, and the operation is not idempotent and its policy has no idempotency key`,
		}, nil},
		{"feedPet", []string{
			`client  attempt 1 failed: could not connect \(connect: connection refused\), so nothing was sent; retrying in ` + dur,
			`server  starts listening on 127\.0\.0\.1:\d+`,
			`server  #3 POST /v1/pets/7/feed: pet 7 fed \(meal 2\) -> 200 OK`,
			`result  ok after 2 attempts in ` + dur + `: pet 7 "Rex" \(dog\), fed 2 times in all`,
		}, func(t *testing.T, m [][]string) {
			// feedPet takes the document's x-retry fields: the first wait is under 100ms.
			within(t, "wait after a refused connection", m[0][1], 0, 100*time.Millisecond)
		}},
	}

	got := blocks(log)
	if len(got) != len(want) {
		t.Fatalf("%d calls in the log, want %d", len(got), len(want))
	}
	var keys []string
	for i, w := range want {
		b := got[i]
		if !strings.HasPrefix(b.heading, "== "+w.op+": ") {
			t.Errorf("call %d is %q, want %s", i+1, b.heading, w.op)
			continue
		}
		if len(b.lines) != len(w.lines) {
			t.Errorf("call %d (%s): %d lines, want %d:\n%s", i+1, w.op, len(b.lines), len(w.lines), strings.Join(b.lines, "\n"))
			continue
		}
		var m [][]string
		for j, pat := range w.lines {
			sub := regexp.MustCompile(`^` + pat + `$`).FindStringSubmatch(b.lines[j])
			if sub == nil {
				t.Errorf("call %d (%s) line %d:\n got %s\nwant %s", i+1, w.op, j+1, b.lines[j], pat)
				sub = make([]string, 4)
			}
			m = append(m, sub)
			if w.op == "createPet" && strings.Contains(pat, uuid) {
				keys = append(keys, sub[1])
			}
		}
		if w.check != nil {
			w.check(t, m)
		}
	}
	// Two createPet calls: three attempts with one key, then one attempt with a new key.
	if len(keys) == 4 && keys[3] == keys[0] {
		t.Errorf("the second createPet call reused the first call's key %s", keys[0])
	}
}

func parse(t *testing.T, s string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Errorf("duration %q: %v", s, err)
	}
	return d
}

// within checks lo <= d < hi for the duration s as the log prints it (rounded to 1ms).
func within(t *testing.T, what, s string, lo, hi time.Duration) {
	t.Helper()
	d := parse(t, s)
	if d < lo || d > hi {
		t.Errorf("%s: %v, want it in [%v, %v]", what, d, lo, hi)
	}
}
