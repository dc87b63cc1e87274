package retrytest

import (
	"bytes"
	"crypto/sha256"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"time"
)

// The failure that makes retries dangerous is the lost answer: the server did the work, the
// response never arrived, and the client sends the request again. A server that keeps
// idempotency keys turns that repeat into a replay of the first answer. Idempotent is such a
// server, for tests, and LostResponse is the fault.

// DefaultKeyTTL is how long Idempotent keeps a key's answer unless told otherwise.
const DefaultKeyTTL = 24 * time.Hour

// ReplayedHeader marks an answer that Idempotent replayed from a stored one.
const ReplayedHeader = "Idempotent-Replayed"

// IdempotentOption configures Idempotent.
type IdempotentOption func(*IdempotentHandler)

// KeyHeader names the request header that carries the key: "Idempotency-Key" by default.
func KeyHeader(name string) IdempotentOption {
	return func(h *IdempotentHandler) { h.header = http.CanonicalHeaderKey(name) }
}

// KeyTTL sets how long a key's answer is kept after it was stored: DefaultKeyTTL by default.
// Inside a synctest bubble the time is virtual.
func KeyTTL(d time.Duration) IdempotentOption {
	return func(h *IdempotentHandler) { h.ttl = d }
}

// IdempotentHandler is the handler Idempotent returns.
type IdempotentHandler struct {
	next   http.Handler
	header string
	ttl    time.Duration

	mu      sync.Mutex
	keys    map[string]*keyEntry
	runs    map[string]int
	replays int
}

// keyEntry is what the server holds for one key: the request it was first used with, and
// its answer once the handler has given it.
type keyEntry struct {
	fingerprint [sha256.Size]byte
	done        bool
	expires     time.Time
	status      int
	header      http.Header
	body        []byte
}

// Idempotent wraps h in a server that keeps idempotency keys, as the IETF Idempotency-Key
// draft describes it:
//
//   - A request without the key header (or with an empty key) goes to h.
//   - The first request with a key runs h, and its answer is stored under the key. A 5xx or
//     a 429 answer is not stored: it says the work was not done, and a retry with the same
//     key runs h again.
//   - A repeat with the same key, method, path, query and body gets the stored answer again, marked
//     Idempotent-Replayed: true, without running h.
//   - The same key with another method, path, query or body is refused with 422.
//   - A repeat while the first request with the key is still running is refused with 409.
//   - A key is forgotten KeyTTL after its answer was stored.
//   - A handler that panics did not finish the work: its key is freed, and the panic goes
//     on up.
//
// h answers into a recorder, so that its answer can be stored: it cannot hijack the
// connection or flush a stream early.
//
// Runs and Replays say what happened, so that a test can check that the work was done once.
// It is safe for concurrent use.
func Idempotent(h http.Handler, opts ...IdempotentOption) *IdempotentHandler {
	ih := &IdempotentHandler{next: h, header: "Idempotency-Key", ttl: DefaultKeyTTL,
		keys: map[string]*keyEntry{}, runs: map[string]int{}}
	for _, o := range opts {
		o(ih)
	}
	return ih
}

// Runs returns how many times the wrapped handler ran for key.
func (h *IdempotentHandler) Runs(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runs[key]
}

// Replays returns how many answers were replayed from a stored one, all keys together.
func (h *IdempotentHandler) Replays() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.replays
}

// ServeHTTP serves r as the server Idempotent describes.
func (h *IdempotentHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get(h.header)
	if key == "" {
		h.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "retrytest: reading the request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	fp := fingerprint(r, body)

	h.mu.Lock()
	e := h.keys[key]
	if e != nil && e.done && !time.Now().Before(e.expires) {
		delete(h.keys, key)
		e = nil
	}
	switch {
	case e == nil:
		e = &keyEntry{fingerprint: fp}
		h.keys[key] = e
		h.runs[key]++
	case e.fingerprint != fp:
		h.mu.Unlock()
		problem(w, http.StatusUnprocessableEntity, "the Idempotency-Key was used with another request")
		return
	case !e.done:
		h.mu.Unlock()
		problem(w, http.StatusConflict, "a request with this Idempotency-Key is still being processed")
		return
	default:
		h.replays++
		status, header, stored := e.status, e.header.Clone(), e.body
		h.mu.Unlock()
		for k, v := range header {
			w.Header()[k] = v
		}
		w.Header().Set(ReplayedHeader, "true")
		w.WriteHeader(status)
		w.Write(stored)
		return
	}
	h.mu.Unlock()

	rec := httptest.NewRecorder()
	stored := false
	defer func() {
		if !stored { // a 5xx, a 429 or a panic: not done, and the key may be used again
			h.mu.Lock()
			delete(h.keys, key)
			h.mu.Unlock()
		}
	}()
	h.next.ServeHTTP(rec, r)
	res := rec.Result()
	if res.StatusCode < 500 && res.StatusCode != http.StatusTooManyRequests {
		h.mu.Lock()
		e.done, e.expires = true, time.Now().Add(h.ttl)
		e.status, e.header, e.body = res.StatusCode, res.Header.Clone(), rec.Body.Bytes()
		h.mu.Unlock()
		stored = true
	}
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(res.StatusCode)
	w.Write(rec.Body.Bytes())
}

// fingerprint identifies the request a key was used with: its method, path, query and
// body.
func fingerprint(r *http.Request, body []byte) [sha256.Size]byte {
	sum := sha256.New()
	io.WriteString(sum, r.Method+" "+r.URL.RequestURI()+"\n")
	sum.Write(body)
	var out [sha256.Size]byte
	sum.Sum(out[:0])
	return out
}

// problem answers with status and an RFC 9457 problem document.
func problem(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	io.WriteString(w, `{"title":"`+http.StatusText(status)+`","status":`+strconv.Itoa(status)+`,"detail":"`+detail+`"}`)
}
