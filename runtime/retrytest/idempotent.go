package retrytest

import (
	"bytes"
	"container/list"
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

// The bounds of what Idempotent keeps unless told otherwise: at most DefaultMaxKeys keys,
// and at most DefaultMaxStoredBytes of their answers (bodies and headers).
const (
	DefaultMaxKeys        = 10_000
	DefaultMaxStoredBytes = 64 << 20
)

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

// MaxKeys sets of how many keys at most Idempotent keeps the answers, and of how many more
// the run counts (DefaultMaxKeys by default); n < 1 means the default.
func MaxKeys(n int) IdempotentOption {
	return func(h *IdempotentHandler) {
		if n > 0 {
			h.maxKeys = n
		}
	}
}

// MaxStoredBytes sets how many bytes of answers Idempotent keeps at most
// (DefaultMaxStoredBytes by default): their bodies and headers. n < 1 means the
// default.
func MaxStoredBytes(n int64) IdempotentOption {
	return func(h *IdempotentHandler) {
		if n > 0 {
			h.maxBytes = n
		}
	}
}

// IdempotentHandler is the handler Idempotent returns.
type IdempotentHandler struct {
	next     http.Handler
	header   string
	ttl      time.Duration
	maxKeys  int
	maxBytes int64

	mu sync.Mutex
	// keys holds every key remembered: running (its handler runs), stored (its answer is
	// kept, in stored by when it expires) or counted (only its runs are kept, in counted
	// from the oldest).
	keys    map[keyHash]*keyEntry
	stored  list.List
	counted list.List
	bytes   int64 // what the stored answers hold
	replays int
}

// keyHash is a key as the server remembers it: by its hash, so that what it keeps of a
// key does not grow with the key's length.
type keyHash [sha256.Size]byte

func hashKey(key string) keyHash { return sha256.Sum256([]byte(key)) }

// keyEntry is what the server holds for one key: the request it was first used with, its
// answer once the handler has given it, and how often the handler ran for it.
type keyEntry struct {
	key         keyHash
	fingerprint [sha256.Size]byte
	running     bool
	runs        int
	expires     time.Time
	status      int
	header      http.Header
	body        []byte
	size        int64         // the bytes of the answer, against maxBytes
	in          *list.List    // stored or counted; nil while running
	at          *list.Element // in in
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
//   - A key's answer is forgotten KeyTTL after it was stored, whether the key is asked for
//     again or not: a request with the key then runs h again.
//   - A handler that panics did not finish the work: its key is freed, and the panic goes
//     on up.
//
// What it keeps is bounded: the answers of at most MaxKeys keys, and at most MaxStoredBytes
// of them (bodies and headers; by default DefaultMaxKeys and DefaultMaxStoredBytes); a key
// is kept by its hash, whatever its length.
// Past a bound the answers that would expire first are forgotten first, as if their time
// had come, and an answer larger than MaxStoredBytes alone is not kept. Besides the answers,
// the run counts of at most MaxKeys keys are kept, the oldest forgotten first. Keys whose
// handler is running are never forgotten. Expired answers are dropped as requests come,
// with no goroutine of its own.
//
// h answers into a recorder, so that its answer can be stored: it cannot hijack the
// connection or flush a stream early.
//
// Runs and Replays say what happened, so that a test can check that the work was done once.
// It is safe for concurrent use.
func Idempotent(h http.Handler, opts ...IdempotentOption) *IdempotentHandler {
	ih := &IdempotentHandler{next: h, header: "Idempotency-Key", ttl: DefaultKeyTTL,
		maxKeys: DefaultMaxKeys, maxBytes: DefaultMaxStoredBytes, keys: map[keyHash]*keyEntry{}}
	for _, o := range opts {
		o(ih)
	}
	return ih
}

// Runs returns how many times the wrapped handler ran for key, expiries included; 0 for a
// key it never saw or no longer remembers (see Idempotent).
func (h *IdempotentHandler) Runs(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e := h.keys[hashKey(key)]; e != nil {
		return e.runs
	}
	return 0
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
	h.expire(time.Now())
	e := h.keys[hashKey(key)]
	switch {
	case e == nil:
		e = &keyEntry{key: hashKey(key)}
		h.keys[e.key] = e
		fallthrough
	case !e.running && e.in != &h.stored: // new, or with no answer kept
		h.leave(e)
		e.fingerprint, e.running = fp, true
		e.runs++
	case e.fingerprint != fp:
		h.mu.Unlock()
		problem(w, http.StatusUnprocessableEntity, "the Idempotency-Key was used with another request")
		return
	case e.running:
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
	var res *http.Response
	defer func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		e.running = false
		if res != nil && res.StatusCode < 500 && res.StatusCode != http.StatusTooManyRequests {
			h.store(e, res.StatusCode, res.Header.Clone(), rec.Body.Bytes(), time.Now())
		} else { // a 5xx, a 429 or a panic: not done, and the key may be used again
			h.count(e)
		}
	}()
	h.next.ServeHTTP(rec, r)
	res = rec.Result()
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(res.StatusCode)
	w.Write(rec.Body.Bytes())
}

// store keeps the answer of e, whose handler has ended, until a TTL after now, and forgets
// the answers that expire first while the bounds are passed. h.mu is held.
func (h *IdempotentHandler) store(e *keyEntry, status int, header http.Header, body []byte, now time.Time) {
	e.status, e.header, e.body, e.expires = status, header, body, now.Add(h.ttl)
	e.size = int64(len(body))
	for k, vs := range header {
		for _, v := range vs {
			e.size += int64(len(k) + len(v))
		}
	}
	e.in, e.at = &h.stored, h.stored.PushBack(e)
	h.bytes += e.size
	for h.stored.Len() > h.maxKeys || h.bytes > h.maxBytes {
		h.count(h.stored.Front().Value.(*keyEntry))
	}
}

// expire forgets the answers expired at now. The TTL is the same for all, so they expire
// in the order they were stored. h.mu is held.
func (h *IdempotentHandler) expire(now time.Time) {
	for f := h.stored.Front(); f != nil && !now.Before(f.Value.(*keyEntry).expires); f = h.stored.Front() {
		h.count(f.Value.(*keyEntry))
	}
}

// count keeps of e only its run count, as the newest of the counted keys, and forgets the
// oldest counted keys past MaxKeys. h.mu is held.
func (h *IdempotentHandler) count(e *keyEntry) {
	h.leave(e)
	e.header, e.body = nil, nil
	e.in, e.at = &h.counted, h.counted.PushBack(e)
	for h.counted.Len() > h.maxKeys {
		old := h.counted.Front().Value.(*keyEntry)
		h.leave(old)
		delete(h.keys, old.key)
	}
}

// leave takes e out of the list it is in, if any. h.mu is held.
func (h *IdempotentHandler) leave(e *keyEntry) {
	if e.in == nil {
		return
	}
	if e.in == &h.stored {
		h.bytes -= e.size
	}
	e.in.Remove(e.at)
	e.in, e.at = nil, nil
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
