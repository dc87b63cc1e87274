package runtime

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrorBodyLimit is the most of a final non-2xx response's body that Error.Body holds. The
// rest is not read; the connection is then closed rather than reused.
const ErrorBodyLimit = 64 << 10

// Sentinel causes, reachable with errors.Is on an *Error.
var (
	// ErrExhausted: every allowed attempt failed, or MaxElapsed left no time for another.
	ErrExhausted = errors.New("retry attempts exhausted")
	// ErrBudgetExhausted: the client's retry budget allowed no further retry.
	ErrBudgetExhausted = errors.New("retry budget exhausted")
	// ErrCircuitOpen: the client's circuit breaker is open.
	ErrCircuitOpen = errors.New("circuit breaker open")
	// ErrBodyNotReplayable: the request body cannot be sent again (no GetBody).
	ErrBodyNotReplayable = errors.New("request body cannot be replayed")
	// ErrRequestBody: reading the request body failed while an attempt sent it (its
	// reader, or the GetBody net/http calls for a redirect, returned an error, which the
	// error wraps too). The failure is the caller's: never retried, and the breaker does
	// not count it.
	ErrRequestBody = errors.New("request body failed")

	// The causes that generated clients report besides the engine's own (runtime/wire
	// names them too), declared here so that a generated package can re-export them.

	// ErrContentType: a response's Content-Type is not one the method decodes (an HTML
	// error page from a proxy where JSON was declared, say), rather than a JSON syntax
	// error.
	ErrContentType = errors.New("response Content-Type is not what the method decodes")
	// ErrTrailingData: a JSON response holds more than one value (text after the first),
	// which decoding the first alone would drop in silence.
	ErrTrailingData = errors.New("response holds text after its JSON value")
	// ErrUndeclaredStatus: the response has a 2xx status the operation does not declare;
	// the response (status, headers, body) is in the *Error, with the `default`
	// response's model when the spec declares one.
	ErrUndeclaredStatus = errors.New("response status not declared by the API description")
	// ErrStreamClosed: an event stream's Close ended it before it ended by itself.
	ErrStreamClosed = errors.New("event stream closed")
	// ErrEventTooLarge: an event of a stream held more data than its bound allows (see
	// WithMaxEventSize in a generated package).
	ErrEventTooLarge = errors.New("server-sent event too large")
	// ErrStreamIdle: an event stream's connection was cut because nothing arrived for its
	// idle timeout, or its first event did not arrive in time (see WithStreamIdleTimeout
	// and WithFirstEventTimeout in a generated package). The error says how long it
	// waited.
	ErrStreamIdle = errors.New("event stream idle")
	// ErrNoLocation: a redirect that an operation answers with has no usable Location:
	// none, or not an http or https URL to fetch.
	ErrNoLocation = errors.New("redirect without a usable Location")
	// ErrNoVariant: a union with no variant set, not read from JSON, cannot be sent.
	ErrNoVariant = errors.New("a union value with no variant set")
	// ErrManyVariants: a union with more than one variant set cannot be sent, as which one
	// the API would receive cannot be told.
	ErrManyVariants = errors.New("a union value with more than one variant set")
	// ErrRetryAfterTooLong: the server asked for a wait longer than MaxRetryAfter, the
	// context deadline or MaxElapsed allows.
	ErrRetryAfterTooLong = errors.New("server asked to retry later than allowed")
	// ErrStatusNotRetried: the response's status is not one the operation retries.
	ErrStatusNotRetried = errors.New("status not retried by the operation's policy")
	// ErrNotRetrySafe: the request may have reached the server, and the operation is not
	// retry-safe (not idempotent, no idempotency key); see WithIdempotencyKey and
	// WithIdempotent for one call.
	ErrNotRetrySafe = errors.New("not retried: the operation is not idempotent and its policy has no idempotency key")
	// ErrOutcomeUnknown: a transport failure after the request may have reached the server
	// (a reset, a timeout, a lost answer), for an operation that is not retry-safe: the
	// server may or may not have done the work, and repeating it could do it twice. It is
	// an ErrNotRetrySafe: errors.Is(err, ErrNotRetrySafe) holds too.
	ErrOutcomeUnknown error = outcomeUnknown{}
	// ErrRetriesOff: the policy or the call allows one attempt (MaxAttempts 1,
	// WithoutRetry), so a failure that could have been retried ends the call.
	ErrRetriesOff = errors.New("not retried: one attempt allowed")
	// ErrNotRetryable: the failure would happen again (a bad certificate, an HTTP answer
	// to an HTTPS request, a refused redirect, an unknown host, an invalid URL), or is the
	// caller's (a request body that failed: ErrRequestBody).
	ErrNotRetryable = errors.New("not retried: the same request would fail again")
	// ErrConnectionErrorsOff: a transport failure, and the policy does not retry those.
	ErrConnectionErrorsOff = errors.New("not retried: the policy does not retry connection errors")
	// ErrBodyTooLarge: a body read whole (Policy.ReadBody) exceeded Engine.MaxBodySize.
	// The call ends without a retry; Error.StatusCode and Header describe the response.
	ErrBodyTooLarge = errors.New("response body too large")
	// ErrServerSaidNoRetry: the response said x-should-retry: false (or
	// Stripe-Should-Retry: false), so the call ends with it whatever the policy retries;
	// see Policy.IgnoreServerSignals.
	ErrServerSaidNoRetry = errors.New("not retried: the server said not to (should-retry: false)")
	// ErrPageLoop: the next page of a paginated walk would be asked for with a cursor (or
	// link) the walk has already used, so the walk ends instead of going round forever.
	ErrPageLoop = errors.New("pagination loop: the next page's cursor repeats an earlier one")
	// ErrPageLink: the next page of a paginated walk is a link outside the API (another
	// scheme, host or port than the client's base URL, or a path outside its base path),
	// so the walk ends without sending anything there, credentials included.
	ErrPageLink = errors.New("next-page link outside the API not followed")
	// ErrTooManyPages: a paginated walk reached its page bound without a last page (a
	// server that hands out a fresh cursor forever), so the walk ends instead of going on
	// without end. The bound is wire.DefaultMaxPages unless the call's WithMaxPages sets
	// another, which ends the walk without an error.
	ErrTooManyPages = errors.New("paginated walk reached its page bound without a last page")
)

// PageError ends a paginated walk (a generated <Op>All or <Op>Pages method) at the page
// it could not get: Page counts from 1, Cursor is what that page was to be asked with
// ("" for the first page of a walk), and Err is why: the page's call failed (an *Error,
// a context error) or the walk refused to go on (ErrPageLoop, ErrPageLink,
// ErrTooManyPages). Giving Cursor
// to the generated WithCursor option resumes the walk at that page. The pages before it
// were delivered.
type PageError struct {
	Page   int
	Cursor string
	Err    error
}

// Error says which page failed and why; it does not show the cursor, which may be a URL.
func (e *PageError) Error() string { return "page " + strconv.Itoa(e.Page) + ": " + e.Err.Error() }

// Unwrap returns Err, so that errors.As reaches the page's *Error.
func (e *PageError) Unwrap() error { return e.Err }

// Error is the error Engine.Do returns for a failed call: a transport failure, a non-2xx
// final response, or a retry loop that stopped early. errors.As reaches the last attempt's
// error (Err) and errors.Is the reason the engine stopped (Cause).
type Error struct {
	Method string // e.g. "GET"
	// URL is the request URL as shown: no user information, no fragment, and each query
	// value replaced by REDACTED ("https://api.test/pets?api_key=REDACTED").
	URL string
	// Attempts is the number of attempts made; 0 when none was (the context was done, the
	// breaker open or the policy invalid).
	Attempts int
	// StatusCode, Header and Body describe the last response; StatusCode is 0 when the last
	// attempt got none. Body holds at most ErrorBodyLimit bytes; when the call ended during
	// a wait it holds what was drained of that response.
	StatusCode int
	Header     http.Header
	Body       []byte
	// RetryAfter is the wait the last response asked for (Retry-After, retry-after-ms or an
	// exhausted RateLimit quota), whether or not it ended the call; 0 when none.
	RetryAfter time.Duration
	// Err is the last attempt's transport error, or nil when it got a response; for a 2xx
	// answer that a WithAnswerCheck failed, the check's error. With no attempt made it may
	// hold why (an invalid policy, a failing GetBody). URLs in it are
	// redacted like URL: the URL of each *url.Error in its chain, and its text.
	Err error
	// Cause is why the engine stopped: one of the sentinels (ErrStatusNotRetried,
	// ErrNotRetrySafe, ErrNotRetryable and ErrServerSaidNoRetry when the last outcome was
	// not one to retry), or
	// the context's error when it was cancelled or its deadline left no room for the next
	// wait. It is nil only when the caller's cancellation ended the call, which Err says.
	Cause error
	// Model is the decoded error body, set by generated code when the spec declares one.
	Model any

	// hide is what the error keeps of its request without showing it: the credentials
	// its text hides, the URL a redirect's Location resolves against. nil for an Error
	// the engine did not make.
	hide *sentRequest
}

// Error formats e as, for example,
//
//	GET https://api.example.com/pets: 503 Service Unavailable: Overloaded (request id req_1) after 4 attempts: retry attempts exhausted
//	GET https://api.example.com/pets/7: 404 Not Found: No such pet (request id req_2)
//
// After the status come the server's message and the response's request id, when it sent
// them. The message is read from a non-2xx body that is a JSON object, whatever its
// Content-Type: the first non-blank string among its "message", "error"."message",
// "error_description", "error", "detail", "title" and "errors"[0]."message" that does not
// just repeat the status text. The request id is the X-Request-Id, Request-Id or
// X-GitHub-Request-Id header, in that order. Both are put on one line, without control,
// bidi or zero-width characters, and cut (with "…") after 200 and 100 bytes; URLs and
// query values in the message are redacted as in URL, and so are the credentials the
// call sent wherever the server repeats them: the values (and each word of them) of the
// headers a redirect off the origin would drop, the request's own and those WithHeader set
// (the idempotency key is not one), the password of an HTTP Basic Authorization, every
// query value (URL shows them all REDACTED) and the URL's password, from 8 bytes on, as
// they were sent and percent-encoded.
//
// Other text that a peer may have written gets the same treatment: a transport error's
// (a certificate's names, a proxy's answer) and the cause's, cut after 300 bytes. The URL
// is cut after 500.
//
// A status the operation's policy does not retry, answered on the first attempt, is shown
// with nothing more: no retry could have happened. Otherwise the number of attempts and
// why the engine stopped follow.
//
// It never includes other header values, the rest of the body or the error model's text.
// The body is read each time Error is called, and the error is left unchanged.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Method)
	b.WriteByte(' ')
	b.WriteString(excerpt(e.URL, urlLimit))
	b.WriteString(": ")
	e.writeOutcome(&b)
	e.writeServerText(&b)
	if e.Attempts <= 1 && errors.Is(e.Cause, ErrStatusNotRetried) {
		return b.String()
	}
	if e.Attempts > 0 {
		b.WriteString(" after ")
		b.WriteString(strconv.Itoa(e.Attempts))
		if e.Attempts == 1 {
			b.WriteString(" attempt")
		} else {
			b.WriteString(" attempts")
		}
	}
	if e.Cause != nil {
		b.WriteString(": ")
		b.WriteString(peerText(e.Cause.Error(), causeLimit, false, e.hide))
		if e.RetryAfter > 0 {
			b.WriteString(" (Retry-After ")
			b.WriteString(e.RetryAfter.String())
			b.WriteByte(')')
		}
	}
	return b.String()
}

// writeOutcome writes what the last attempt got: a status, a transport error, or, when
// there was no attempt, that.
func (e *Error) writeOutcome(b *strings.Builder) {
	switch {
	case e.StatusCode != 0:
		b.WriteString(strconv.Itoa(e.StatusCode))
		if t := http.StatusText(e.StatusCode); t != "" {
			b.WriteByte(' ')
			b.WriteString(t)
		}
		if e.StatusCode < 300 && e.Err != nil { // an answer its check failed
			b.WriteString(": ")
			b.WriteString(peerText(e.Err.Error(), transportLimit, false, e.hide))
		}
	case e.Err != nil:
		// net/http's *url.Error repeats the method and URL; keep what it wraps, with any
		// URL it quotes redacted. Its text may quote a peer (a certificate's names, a
		// proxy's answer): it is shown as the server's message is.
		b.WriteString(peerText(unwrapURLError(e.Err).Error(), transportLimit, false, e.hide))
	case e.Attempts == 0:
		b.WriteString("no attempt made")
	default: // a response without a status code, from a RoundTripper of the caller's
		b.WriteString("no status code")
	}
}

// writeServerText writes the server's message and the request id, when the response has
// them. A message that only repeats the status text is left out, and so is the message of
// a 2xx body: that is a result, not an error.
func (e *Error) writeServerText(b *strings.Builder) {
	if e.StatusCode >= 300 {
		if msg := serverMessage(e.Body, http.StatusText(e.StatusCode), e.hide); msg != "" {
			b.WriteString(": ")
			b.WriteString(msg)
		}
	}
	if id := requestID(e.Header, e.hide); id != "" {
		b.WriteString(" (request id ")
		b.WriteString(id)
		b.WriteByte(')')
	}
}

// errNoJSONBody is what DecodeBody returns for a body that is empty or not one JSON value
// (an HTML page from a proxy, a body cut at ErrorBodyLimit).
var errNoJSONBody = errors.New("the error response's body is not one JSON value")

// DecodeBody decodes Body, the last response's body as the error kept it (at most
// ErrorBodyLimit bytes; nothing more is read), as JSON into v, as json.Unmarshal would: it
// reads the server's message and code, {"error": {"message": "...", "code": "..."}} say,
// where the spec declares no error model for the status (Model nil). The request's
// credentials are REDACTED in the strings decoded, as in the error's text, wherever the
// server repeats them. A body that is empty or not one JSON value is an error, and
// v is left as it was; a JSON value v cannot hold gives json.Unmarshal's error.
func (e *Error) DecodeBody(v any) error {
	body, ok := e.hide.hideJSON(e.Body)
	if !ok || !json.Valid(body) {
		return errNoJSONBody
	}
	return json.Unmarshal(body, v)
}

// Unwrap returns the cause, the last attempt's error and the error model, whichever are set.
func (e *Error) Unwrap() []error {
	var errs []error
	for _, err := range []error{e.Cause, e.Err} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if m, ok := e.Model.(error); ok {
		errs = append(errs, m)
	}
	return errs
}

// outcomeUnknown is ErrOutcomeUnknown, a kind of ErrNotRetrySafe.
type outcomeUnknown struct{}

func (outcomeUnknown) Error() string {
	return "not retried: the request may have reached the server, so its outcome is unknown, and the operation is not idempotent and its policy has no idempotency key"
}

func (outcomeUnknown) Is(target error) bool { return target == ErrNotRetrySafe }
