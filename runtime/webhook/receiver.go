package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrygen/retrygen/runtime/internal/dedupe"
	"github.com/retrygen/retrygen/runtime/internal/giveup"
)

// DefaultMaxBody caps the body of a delivery unless WithMaxBody says otherwise; a larger
// one is answered 413 unread. OpenAI's and Stripe's events fit; GitHub's may reach 25 MB.
const DefaultMaxBody = 1 << 20

// maxID bounds a delivery id: the ids senders use are some 30 bytes.
const maxID = 256

// Route is one webhook a receiver accepts, as generated code declares it: how deliveries
// of it are recognised, signed and identified. Handle gives it its handler.
type Route struct {
	// Name is the webhook's name in the spec, e.g. "batch_cancelled".
	Name string
	// Method is the request's method, e.g. "POST".
	Method string
	// Member and Event recognise the webhook's deliveries by a member of the payload: the
	// webhook's are those whose Member (e.g. "type") is Event (e.g. "batch.cancelled").
	Member, Event string
	// Path recognises them by the end of the request's path, e.g. "/data", when Member is
	// "".
	Path string
	// Signature is how the sender signs them; nil when the spec says nothing of it.
	Signature *Signature
	// ID says where a delivery's id is, by which repeats are recognised.
	ID ID
	// TTL is how long a processed delivery is remembered; 0 means runtime.DefaultDedupeTTL.
	TTL time.Duration
	// VersionMember is the payload's member that holds the API version it was written
	// for, e.g. "api_version", and APIVersion the version of the spec: a delivery of
	// another version is logged, and decoded all the same.
	VersionMember, APIVersion string

	decode func(body []byte) (call func(context.Context) error, err error)
}

// ID says where a delivery's id is: a header or a member of the payload. With neither,
// repeats are not recognised.
type ID struct {
	Header string // e.g. "webhook-id"
	Member string // e.g. "id"
}

// Handle returns r with the handler f, which gets the payload decoded as a T. The decoding
// is lenient, as encoding/json's is: members the payload type does not declare are
// skipped, and a union keeps a variant it does not know as raw JSON; the whole body stays
// in the Delivery of the handler's context.
func Handle[T any](r Route, f func(context.Context, T) error) Route {
	r.decode = func(body []byte) (func(context.Context) error, error) {
		var v T
		if err := json.Unmarshal(body, &v); err != nil {
			return nil, err
		}
		return func(ctx context.Context) error { return f(ctx, v) }, nil
	}
	return r
}

// Option configures a receiver.
type Option func(*options)

type options struct {
	secrets []string
	store   dedupe.Store
	ttl     time.Duration
	log     *slog.Logger
	maxBody int64
}

// WithSecret gives the secrets the sender signs with; a delivery signed by any of them is
// accepted, so that a secret can be rotated without refusing deliveries: give the new and
// the old until the sender signs with the new alone.
func WithSecret(secrets ...string) Option {
	return func(o *options) { o.secrets = append(o.secrets, secrets...) }
}

// WithDedupeStore sets where the ids of processed deliveries are kept; by default a
// runtime.MemoryDedupeStore of runtime.DefaultDedupeIDs ids, which each receiver has its
// own of. A receiver that runs in several processes needs a store they share.
func WithDedupeStore(s dedupe.Store) Option {
	return func(o *options) { o.store = s }
}

// WithDedupeTTL sets how long a processed delivery is remembered, for every webhook,
// instead of what the spec says (x-webhook-id's ttl) or runtime.DefaultDedupeTTL.
func WithDedupeTTL(d time.Duration) Option {
	return func(o *options) { o.ttl = d }
}

// WithLogger has the receiver log what it refuses and the answers it gives: never a
// header, a body or a secret.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.log = l }
}

// WithMaxBody caps the bytes of a delivery's body; 0 or less means DefaultMaxBody.
func WithMaxBody(n int64) Option {
	return func(o *options) { o.maxBody = n }
}

// receiver is the http.Handler NewReceiver returns.
type receiver struct {
	routes   []*route
	byEvent  map[string]*route // by Member and Event, joined by a NUL
	members  []string          // the Members of the routes
	common   *Verifier         // the verifier of every route, for a delivery no route takes
	unsigned bool              // every route is unsigned
	methods  []string
	store    dedupe.Store
	log      *slog.Logger
	maxBody  int64

	vmu      sync.Mutex
	versions map[string]bool // the API versions logged
}

// route is a Route with its verifier.
type route struct {
	Route
	verify *Verifier // nil when unsigned
	ttl    time.Duration
}

// NewReceiver returns the http.Handler that receives the webhooks of routes: it verifies
// each delivery's signature over the body as received (before anything else reads it),
// recognises repeats by the delivery's id and answers them without calling the handler
// again, and answers so that the sender retries, waits or stops as it should (see
// RetryAfter). It refuses routes that are signed when no secret is given, and secrets
// when no route is signed, which would otherwise check nothing.
func NewReceiver(routes []Route, opts ...Option) (http.Handler, error) {
	o := options{}
	for _, opt := range opts {
		opt(&o)
	}
	if len(routes) == 0 {
		return nil, errors.New("webhook: no webhooks to receive")
	}
	rc := &receiver{store: o.store, log: o.log, maxBody: o.maxBody, byEvent: map[string]*route{}, unsigned: true, versions: map[string]bool{}}
	if rc.store == nil {
		rc.store = dedupe.NewMemory(0)
	}
	if rc.maxBody <= 0 {
		rc.maxBody = DefaultMaxBody
	}
	verifiers := map[*Signature]*Verifier{}
	for i := range routes {
		r := &route{Route: routes[i], ttl: routes[i].TTL}
		if r.decode == nil {
			return nil, fmt.Errorf("webhook: %s has no handler (webhook.Handle)", r.Name)
		}
		if o.ttl > 0 {
			r.ttl = o.ttl
		}
		if r.ttl <= 0 {
			r.ttl = dedupe.DefaultTTL
		}
		if r.Signature != nil {
			rc.unsigned = false
			v, ok := verifiers[r.Signature]
			if !ok {
				var err error
				if v, err = NewVerifier(*r.Signature, o.secrets...); err != nil {
					return nil, fmt.Errorf("%w (webhook %s)", err, r.Name)
				}
				verifiers[r.Signature] = v
			}
			r.verify = v
		}
		if !slices.Contains(rc.methods, r.Method) {
			rc.methods = append(rc.methods, r.Method)
		}
		rc.routes = append(rc.routes, r)
	}
	if rc.unsigned && len(o.secrets) > 0 {
		return nil, errors.New("webhook: secrets given, but the spec declares no x-webhook-signature, so none would be checked: declare it (an overlay can) or leave the secrets out")
	}
	if len(verifiers) == 1 && !slices.ContainsFunc(rc.routes, func(r *route) bool { return r.verify == nil }) {
		for _, v := range verifiers {
			rc.common = v
		}
	}
	for _, r := range rc.routes {
		if r.Member != "" {
			rc.byEvent[r.Member+"\x00"+r.Event] = r
			if !slices.Contains(rc.members, r.Member) {
				rc.members = append(rc.members, r.Member)
			}
		}
	}
	return rc, nil
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !slices.Contains(rc.methods, r.Method) {
		w.Header().Set("Allow", strings.Join(rc.methods, ", "))
		rc.answer(w, r, nil, http.StatusMethodNotAllowed, "method not allowed", nil)
		return
	}
	body, err := readBody(w, r, rc.maxBody)
	if err != nil {
		status := http.StatusBadRequest
		if errors.As(err, new(*http.MaxBytesError)) {
			status = http.StatusRequestEntityTooLarge
		}
		rc.answer(w, r, nil, status, "body not read", err)
		return
	}
	var members map[string]json.RawMessage
	if bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("{")) {
		_ = json.Unmarshal(body, &members) // a payload that is no object has none
	}
	rt := rc.route(r, members)
	verify := rc.common
	if rt != nil {
		verify = rt.verify
	} else if verify == nil && !rc.unsigned {
		rc.answer(w, r, nil, http.StatusNotFound, "no webhook of the spec takes the delivery, and its signature cannot be checked", nil)
		return
	}
	if verify != nil {
		if err := verify.Verify(r.Header, body, time.Now()); err != nil {
			status := http.StatusBadRequest
			if errors.Is(err, ErrNotSigned) {
				status = http.StatusUnauthorized
			}
			rc.answer(w, r, rt, status, "signature refused", err)
			return
		}
	}
	if rt == nil {
		rc.answer(w, r, nil, http.StatusOK, "no webhook of the spec takes the delivery: acknowledged, not handled", nil)
		return
	}
	id := rt.id(r, members)
	if len(id) > maxID {
		rc.answer(w, r, rt, http.StatusBadRequest, "delivery id longer than 256 bytes", nil)
		return
	}
	call, err := rt.decode(body)
	if err != nil {
		rc.answer(w, r, rt, http.StatusBadRequest, "payload does not decode", err)
		return
	}
	rc.checkVersion(rt, members)
	d := &Delivery{Webhook: rt.Name, ID: id, Body: body, Header: r.Header}
	if id == "" {
		rc.run(w, r, rt, d, call, nil)
		return
	}
	first, err := rc.store.Reserve(r.Context(), id, rt.ttl)
	switch {
	case errors.Is(err, dedupe.ErrInProgress):
		rc.answer(w, r, rt, http.StatusConflict, "repeat of a delivery in progress", nil)
	case err != nil:
		rc.answer(w, r, rt, http.StatusServiceUnavailable, "dedupe store failed", err)
	case !first:
		rc.answer(w, r, rt, http.StatusOK, "repeat of a delivery processed: not handled again", nil)
	default:
		rc.run(w, r, rt, d, call, func(done bool) error {
			ctx := context.WithoutCancel(r.Context())
			if done {
				return rc.store.Complete(ctx, id)
			}
			return rc.store.Release(ctx, id)
		})
	}
}

// run calls the handler and answers by what it returns; end, when the delivery has an id,
// completes or releases it.
func (rc *receiver) run(w http.ResponseWriter, r *http.Request, rt *route, d *Delivery, call func(context.Context) error, end func(done bool) error) {
	ctx, tracker := giveup.With(context.WithValue(r.Context(), deliveryKey{}, d))
	finish := func(done bool) {
		if end == nil {
			return
		}
		if err := end(done); err != nil {
			rc.logf(r, rt, slog.LevelError, "dedupe store failed", err)
		}
	}
	ended := false
	defer func() {
		if !ended {
			finish(false) // the handler panicked: let the sender's next attempt run it again
		}
	}()
	err := call(ctx)
	ended = true
	var a *answer
	switch {
	case err == nil, errors.Is(err, ErrNotHandled):
		finish(true)
		rc.answer(w, r, rt, http.StatusOK, "delivered", err)
	case errors.As(err, &a):
		finish(false)
		if a.status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", seconds(a.after))
		}
		rc.answer(w, r, rt, a.status, "handler asked", nil)
	case tracker.GaveUp():
		finish(false)
		if hint := tracker.Hint(); hint > 0 {
			w.Header().Set("Retry-After", seconds(hint))
		}
		rc.answer(w, r, rt, http.StatusServiceUnavailable, "handler failed: a call it made gave up for load reasons", err)
	default:
		finish(false)
		rc.answer(w, r, rt, http.StatusInternalServerError, "handler failed", err)
	}
}

// route returns the route that takes a delivery: the one whose Event its member names,
// else the one whose Path ends the request's path (the longest); nil when none does.
func (rc *receiver) route(r *http.Request, members map[string]json.RawMessage) *route {
	if len(rc.routes) == 1 {
		rt := rc.routes[0]
		if rt.Member != "" {
			if ev, ok := stringMember(members, rt.Member); ok && ev != rt.Event {
				return nil
			}
		}
		return rt
	}
	for _, m := range rc.members {
		if ev, ok := stringMember(members, m); ok {
			if rt := rc.byEvent[m+"\x00"+ev]; rt != nil {
				return rt
			}
		}
	}
	var best *route
	for _, rt := range rc.routes {
		if rt.Path != "" && strings.HasSuffix(r.URL.Path, rt.Path) && (best == nil || len(rt.Path) > len(best.Path)) {
			best = rt
		}
	}
	return best
}

// id returns the delivery's id, "" when the route names none or the delivery has none.
func (rt *route) id(r *http.Request, members map[string]json.RawMessage) string {
	if rt.ID.Header != "" {
		return r.Header.Get(rt.ID.Header)
	}
	if rt.ID.Member != "" {
		if s, ok := stringMember(members, rt.ID.Member); ok {
			return s
		}
		if raw, ok := members[rt.ID.Member]; ok && len(raw) <= maxID {
			return string(raw) // a number
		}
	}
	return ""
}

// checkVersion logs, once per value, a delivery written for another API version than the
// spec's; the first 16 values, so that deliveries cannot grow what the receiver holds.
func (rc *receiver) checkVersion(rt *route, members map[string]json.RawMessage) {
	if rt.VersionMember == "" || rc.log == nil {
		return
	}
	v, ok := stringMember(members, rt.VersionMember)
	if !ok || v == rt.APIVersion {
		return
	}
	rc.vmu.Lock()
	seen := rc.versions[v] || len(rc.versions) >= 16
	if !seen {
		rc.versions[v] = true
	}
	rc.vmu.Unlock()
	if !seen {
		rc.log.Warn("webhook: payload of another API version, decoded leniently: what the client does not know is in the delivery's body only",
			"webhook", rt.Name, "payload_version", v, "spec_version", rt.APIVersion)
	}
}

// answer writes status with an empty body and logs why.
func (rc *receiver) answer(w http.ResponseWriter, r *http.Request, rt *route, status int, why string, err error) {
	w.Header().Set("Content-Length", "0")
	w.WriteHeader(status)
	level := slog.LevelInfo
	switch {
	case status >= 500:
		level = slog.LevelError
	case status < 300:
		level = slog.LevelDebug
	}
	rc.logf(r, rt, level, why, err, "status", status)
}

func (rc *receiver) logf(r *http.Request, rt *route, level slog.Level, msg string, err error, attrs ...any) {
	if rc.log == nil {
		return
	}
	if rt != nil {
		attrs = append(attrs, "webhook", rt.Name)
	}
	if err != nil {
		attrs = append(attrs, "error", err.Error())
	}
	rc.log.Log(r.Context(), level, "webhook: "+msg, attrs...)
}

// readBody reads the request's body, at most max bytes.
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	if r.ContentLength > max {
		return nil, &http.MaxBytesError{Limit: max}
	}
	var buf bytes.Buffer
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, max))
	return buf.Bytes(), err
}

// stringMember returns the string value of the member name.
func stringMember(members map[string]json.RawMessage, name string) (string, bool) {
	raw, ok := members[name]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// seconds writes d as a Retry-After in whole seconds, rounded up.
func seconds(d time.Duration) string {
	s := int64(d / time.Second) // not (d+time.Second-1)/time.Second, which overflows near the largest Duration
	if d%time.Second != 0 {
		s++
	}
	return strconv.FormatInt(s, 10)
}
