package retrytest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// send makes one request to h and returns the status, the replay mark and the body.
func send(h http.Handler, method, path, key, body string) (int, string, string) {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, w.Result().Header.Get(ReplayedHeader), string(b)
}

// counter answers 201 with the number of times it ran, or with next's status when set.
type counter struct {
	mu   sync.Mutex
	n    int
	next int // status of the next answer; 0 for 201
}

func (c *counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.n++
	n, status := c.n, c.next
	c.next = 0
	c.mu.Unlock()
	if status == 0 {
		status = http.StatusCreated
	}
	w.Header().Set("X-Run", string(rune('0'+n)))
	w.WriteHeader(status)
	io.WriteString(w, "run "+string(rune('0'+n)))
}

func TestIdempotent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &counter{}
		h := Idempotent(c, KeyTTL(time.Hour))
		if code, replayed, body := send(h, "POST", "/charges", "k1", `{"amount":5}`); code != 201 || replayed != "" || body != "run 1" {
			t.Fatalf("first: %d %q %q", code, replayed, body)
		}
		// The same key and request: the stored answer, marked, without running the handler.
		if code, replayed, body := send(h, "POST", "/charges", "k1", `{"amount":5}`); code != 201 || replayed != "true" || body != "run 1" {
			t.Errorf("repeat: %d %q %q, want the first answer replayed", code, replayed, body)
		}
		// The same key with another body, method or path: 422.
		for _, req := range [][3]string{{"POST", "/charges", `{"amount":6}`}, {"PUT", "/charges", `{"amount":5}`}, {"POST", "/refunds", `{"amount":5}`}} {
			if code, _, _ := send(h, req[0], req[1], "k1", req[2]); code != http.StatusUnprocessableEntity {
				t.Errorf("%v with the same key: %d, want 422", req, code)
			}
		}
		// No key: the handler runs every time.
		send(h, "POST", "/charges", "", `{}`)
		send(h, "POST", "/charges", "", `{}`)
		if h.Runs("k1") != 1 || h.Replays() != 1 || c.n != 3 {
			t.Errorf("runs %d, replays %d, handler ran %d times; want 1, 1, 3", h.Runs("k1"), h.Replays(), c.n)
		}
		// A 5xx is not stored: the retry runs the handler again, and that answer is kept.
		c.next = 503
		if code, _, _ := send(h, "POST", "/charges", "k2", "x"); code != 503 {
			t.Fatalf("503 not passed on: %d", code)
		}
		if code, replayed, _ := send(h, "POST", "/charges", "k2", "x"); code != 201 || replayed != "" || h.Runs("k2") != 2 {
			t.Errorf("after a 503: %d %q with %d runs, want a new run", code, replayed, h.Runs("k2"))
		}
		// Keys expire.
		time.Sleep(time.Hour)
		if code, replayed, _ := send(h, "POST", "/charges", "k1", `{"amount":5}`); code != 201 || replayed != "" || h.Runs("k1") != 2 {
			t.Errorf("after the TTL: %d %q, runs %d; want the handler run again", code, replayed, h.Runs("k1"))
		}
	})
}

// A repeat while the first request with the key is still running is refused with 409.
func TestIdempotentConflict(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		h := Idempotent(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-release
			w.WriteHeader(201)
		}), KeyHeader("X-Request-Key"))
		req := func() int {
			r := httptest.NewRequest("POST", "/orders", strings.NewReader("o"))
			r.Header.Set("X-Request-Key", "k")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w.Code
		}
		first := make(chan int)
		go func() { first <- req() }()
		synctest.Wait()
		if code := req(); code != http.StatusConflict {
			t.Errorf("a repeat during the first: %d, want 409", code)
		}
		close(release)
		if code := <-first; code != 201 {
			t.Errorf("first: %d", code)
		}
		if code := req(); code != 201 || h.Runs("k") != 1 || h.Replays() != 1 {
			t.Errorf("after the first: %d, runs %d, replays %d; want a replayed 201", code, h.Runs("k"), h.Replays())
		}
	})
}

// LostResponse runs the handler and fails the request as a reset.
func TestLostResponse(t *testing.T) {
	ran := 0
	tr := NewTransport(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ran++ }), LostResponse())
	req, _ := http.NewRequest("POST", "http://api.test/x", strings.NewReader("body"))
	if resp, err := tr.RoundTrip(req); err == nil || resp != nil || ran != 1 {
		t.Fatalf("RoundTrip = %v, %v after %d runs; want an error after the handler ran", resp, err, ran)
	}
	if got := tr.Requests(); len(got) != 1 || got[0].Fault != "response lost" || string(got[0].Body) != "body" {
		t.Errorf("recorded %+v", got)
	}
}

// A handler that panics did not finish its work: the key is freed, and a retry runs it.
func TestIdempotentPanicFreesTheKey(t *testing.T) {
	first := true
	h := Idempotent(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if first {
			first = false
			panic(http.ErrAbortHandler)
		}
		w.WriteHeader(201)
	}))
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the handler's panic did not go on up")
			}
		}()
		send(h, "POST", "/charges", "k", "{}")
	}()
	if code, _, body := send(h, "POST", "/charges", "k", "{}"); code != 201 || h.Runs("k") != 2 {
		t.Errorf("retry after a panic: %d %s, %d runs; want the handler run again", code, body, h.Runs("k"))
	}
}

// The query is part of the request a key stands for.
func TestIdempotentFingerprintsTheQuery(t *testing.T) {
	h := Idempotent(&counter{})
	send(h, "POST", "/charges?amount=100", "k", "")
	if code, _, _ := send(h, "POST", "/charges?amount=999", "k", ""); code != http.StatusUnprocessableEntity {
		t.Errorf("same key, another query: %d; want 422", code)
	}
}

// held returns how many keys h remembers and the bytes of the answers it holds.
func held(h *IdempotentHandler) (keys int, bytes int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.keys {
		bytes += len(e.body)
	}
	return len(h.keys), bytes
}

// answer16K answers 201 with 16 KiB.
var answer16K = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusCreated)
	w.Write(make([]byte, 16<<10))
})

// Answers expire by time, whether their keys are asked for again or not: 2,000 keys of
// 16 KiB answers with a TTL of 1ms leave one answer held, not 32 MiB, and the run counts
// of MaxKeys keys.
func TestIdempotentForgetsByTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := Idempotent(answer16K, KeyTTL(time.Millisecond), MaxKeys(500))
		for i := range 2000 {
			send(h, "POST", "/charges", strconv.Itoa(i), "")
			time.Sleep(time.Millisecond)
		}
		keys, bytes := held(h)
		if bytes > 16<<10 || keys > 501 {
			t.Errorf("%d keys, %d bytes held; want one answer at most, and 500 run counts", keys, bytes)
		}
		if h.Runs("1999") != 1 || h.Runs("1998") != 1 {
			t.Errorf("Runs of the last keys = %d, %d; want 1", h.Runs("1999"), h.Runs("1998"))
		}
	})
}

// What Idempotent keeps is bounded in bytes and in keys, whatever the TTL: past a bound the
// oldest answers go first, and a repeat of one runs the handler again, its runs counted.
func TestIdempotentBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := Idempotent(answer16K, MaxStoredBytes(1<<20))
		for i := range 200 {
			send(h, "POST", "/charges", strconv.Itoa(i), "")
		}
		if _, bytes := held(h); bytes > 1<<20 {
			t.Errorf("%d bytes of answers held; want at most 1 MiB", bytes)
		}
		if code, replayed, _ := send(h, "POST", "/charges", "199", ""); code != 201 || replayed != "true" {
			t.Errorf("the newest key: %d %q; want its answer replayed", code, replayed)
		}

		c := &counter{}
		h = Idempotent(c, MaxKeys(100))
		for i := range 1000 {
			send(h, "POST", "/charges", strconv.Itoa(i), "x")
		}
		if keys, _ := held(h); keys > 200 {
			t.Errorf("%d keys remembered; want at most 200, 100 answers and 100 counts", keys)
		}
		if _, replayed, _ := send(h, "POST", "/charges", "850", "x"); replayed != "" || h.Runs("850") != 2 {
			t.Errorf("a key whose answer was forgotten: replayed %q, runs %d; want a second run", replayed, h.Runs("850"))
		}
		if _, replayed, _ := send(h, "POST", "/charges", "999", "x"); replayed != "true" {
			t.Errorf("a kept key: replayed %q, want its answer", replayed)
		}
		big := Idempotent(answer16K, MaxStoredBytes(1024))
		send(big, "POST", "/charges", "k", "")
		if _, replayed, _ := send(big, "POST", "/charges", "k", ""); replayed != "" || big.Runs("k") != 2 {
			t.Errorf("an answer over the bound: replayed %q, runs %d; want it not kept", replayed, big.Runs("k"))
		}
	})
}
