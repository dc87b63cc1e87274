package runtime

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// TestDecide checks the decision after a failed attempt on its own: no request, no clock.
func TestDecide(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	base := func() Policy { // 3 attempts, 100ms doubling to 2s, full jitter, retry-safe
		p := idempotent().resolved()
		p.StatusCodes = DefaultStatusCodes()
		return p
	}
	with := func(f func(*Policy)) Policy { p := base(); f(&p); return p }
	notIdempotent := with(func(p *Policy) { p.Idempotent = false })
	class5 := with(func(p *Policy) { p.StatusCodes = []StatusCode{Class5XX} })
	noConnErrors := with(func(p *Policy) { p.ConnectionErrors = false })
	noHints := with(func(p *Policy) { p.RetryAfter = false })
	jitterNone := with(func(p *Policy) { p.Jitter = JitterNone })

	dial := &url.Error{Op: "Get", URL: testURL, Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	reset := &url.Error{Op: "Get", URL: testURL, Err: &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}}
	timeout := &url.Error{Op: "Get", URL: testURL, Err: context.DeadlineExceeded}
	unknownCA := &url.Error{Op: "Get", URL: testURL, Err: x509.UnknownAuthorityError{}}
	noHost := &url.Error{Op: "Get", URL: testURL, Err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}}}
	dnsTimeout := &url.Error{Op: "Get", URL: testURL, Err: &net.OpError{Op: "dial", Err: &net.DNSError{Err: "timeout", Name: "x", IsTimeout: true}}}
	scheme := &url.Error{Op: "Get", URL: "ftp://x", Err: errors.New(`unsupported protocol scheme "ftp"`)}
	tooMany := &url.Error{Op: "Get", URL: testURL, Err: errTooManyRedirects}

	hdr := func(kv ...string) http.Header { return header(kv...) }
	const ms = time.Millisecond

	tests := []struct {
		name string
		s    situation
		want verdict
	}{
		// Statuses.
		{"503 retried", situation{status: 503}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"500 retried", situation{status: 500}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"429 retried", situation{status: 429}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"408 retried", situation{status: 408}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"404 final", situation{status: 404}, stop(ErrStatusNotRetried)},
		{"400 with Retry-After final", situation{status: 400, header: hdr("Retry-After", "1")}, stop(ErrStatusNotRetried)},
		{"409 not listed", situation{status: 409}, stop(ErrStatusNotRetried)},
		{"501 not listed", situation{status: 501}, stop(ErrStatusNotRetried)},
		{"200 is no failure", situation{status: 200}, verdict{}},
		{"5XX covers 599", situation{pol: &class5, status: 599}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"5XX covers 503", situation{pol: &class5, status: 503}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"5XX leaves 501", situation{pol: &class5, status: 501}, stop(ErrStatusNotRetried)},
		{"5XX leaves 505", situation{pol: &class5, status: 505}, stop(ErrStatusNotRetried)},
		{"5XX covers 507", situation{pol: &class5, status: 507}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"501 by number", situation{pol: ptr(with(func(p *Policy) { p.StatusCodes = []StatusCode{501} })), status: 501}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"5XX leaves 429", situation{pol: &class5, status: 429}, stop(ErrStatusNotRetried)},
		{"503 not retry-safe", situation{pol: &notIdempotent, status: 503}, stop(ErrNotRetrySafe)},
		{"second retry doubles", situation{status: 503, attempt: 2}, verdict{retry: true, wait: 100 * ms, backoff: 100 * ms}},
		{"no jitter waits the ceiling", situation{pol: &jitterNone, status: 503, attempt: 2}, verdict{retry: true, wait: 200 * ms, backoff: 200 * ms}},

		// Attempts.
		{"last attempt", situation{status: 503, attempt: 3}, verdict{cause: ErrExhausted}},
		{"beyond the last", situation{status: 503, attempt: 4}, verdict{cause: ErrExhausted}},
		{"single attempt", situation{status: 503, maxAttempts: 1}, verdict{cause: ErrRetriesOff}},

		// Transport errors.
		{"reset retried", situation{err: reset}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"attempt timeout retried", situation{err: timeout}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"dial failure retried", situation{err: dial}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"DNS timeout retried", situation{err: dnsTimeout}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"unexpected EOF retried", situation{err: io.ErrUnexpectedEOF}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"reset not retry-safe", situation{pol: &notIdempotent, err: reset}, stop(ErrNotRetrySafe)},
		{"dial failure not retry-safe", situation{pol: &notIdempotent, err: dial}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"connection errors off", situation{pol: &noConnErrors, err: dial}, stop(ErrConnectionErrorsOff)},
		{"caller cancelled", situation{err: &url.Error{Op: "Get", URL: testURL, Err: context.Canceled}, callerDone: true}, verdict{}},
		{"caller's deadline", situation{err: timeout, callerDone: true}, verdict{}},
		{"unknown authority", situation{err: unknownCA}, stop(ErrNotRetryable)},
		{"unknown host", situation{err: noHost}, stop(ErrNotRetryable)},
		{"unsupported scheme", situation{err: scheme}, stop(ErrNotRetryable)},
		{"redirect limit", situation{err: tooMany}, stop(ErrNotRetryable)},
		{"HTTP answer to HTTPS", situation{err: &url.Error{Op: "Get", URL: testURL, Err: errors.New("http: server gave HTTP response to HTTPS client")}}, stop(ErrNotRetryable)},
		{"not TLS at all", situation{err: &url.Error{Op: "Get", URL: testURL, Err: tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}}}, stop(ErrNotRetryable)},
		{"certificate invalid", situation{err: &url.Error{Op: "Get", URL: testURL, Err: &tls.CertificateVerificationError{Err: x509.CertificateInvalidError{Reason: x509.Expired}}}}, stop(ErrNotRetryable)},
		{"hostname mismatch", situation{err: &url.Error{Op: "Get", URL: testURL, Err: x509.HostnameError{Host: "x"}}}, stop(ErrNotRetryable)},
		{"refused redirect", situation{err: &url.Error{Op: "Get", URL: testURL, Err: &redirectRefused{err: errors.New("no")}}}, stop(ErrNotRetryable)},
		{"refused redirect, not retry-safe", situation{pol: &notIdempotent, err: &url.Error{Op: "Get", URL: testURL, Err: &redirectRefused{err: errors.New("no")}}}, stop(ErrNotRetryable)},
		{"bad Location", situation{err: &url.Error{Op: "Get", URL: testURL, Err: fmt.Errorf("failed to parse Location header %q: %w", "::", &url.Error{Op: "parse", URL: "::", Err: errors.New("missing protocol scheme")})}}, stop(ErrNotRetryable)},
		{"invalid URL", situation{err: &url.Error{Op: "parse", URL: "http://a b", Err: errors.New("invalid character")}}, stop(ErrNotRetryable)},
		{"no host", situation{err: &url.Error{Op: "Get", URL: "http:///x", Err: errors.New("http: no Host in request URL")}}, stop(ErrNotRetryable)},
		{"body net/http cannot rewind", situation{err: &url.Error{Op: "Post", URL: testURL, Err: errors.New("net/http: cannot rewind body after connection loss")}}, stop(ErrNotRetryable)},
		{"body shorter than declared", situation{err: &url.Error{Op: "Post", URL: testURL, Err: errors.New("http: ContentLength=10 with Body length 3")}}, stop(ErrNotRetryable)},
		{"body too large", situation{err: ErrBodyTooLarge}, stop(ErrNotRetryable)},
		{"resend limit is a failed attempt", situation{err: &url.Error{Op: "Get", URL: testURL, Err: errResendLimit}, attempt: 3}, verdict{cause: ErrExhausted}},
		{"header timeout retried", situation{err: &url.Error{Op: "Get", URL: testURL, Err: errResponseHeaderTimeout}}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"RetryableError false", situation{err: retryable(false)}, stop(ErrNotRetryable)},
		{"RetryableError true", situation{err: retryable(true)}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"transport error on the last attempt", situation{err: reset, attempt: 3}, verdict{cause: ErrExhausted}},

		// Retry-After.
		{"seconds", situation{status: 503, header: hdr("Retry-After", "2")}, verdict{retry: true, wait: 2*time.Second + 50*ms, backoff: 50 * ms}},
		{"milliseconds", situation{status: 429, header: hdr("Retry-After-Ms", "1500")}, verdict{retry: true, wait: 1550 * ms, backoff: 50 * ms}},
		{"HTTP-date", situation{status: 503, header: hdr("Retry-After", "Fri, 02 Jan 2026 03:04:08 GMT")}, verdict{retry: true, wait: 3*time.Second + 50*ms, backoff: 50 * ms}},
		{"RFC 850 date", situation{status: 503, header: hdr("Retry-After", "Friday, 02-Jan-26 03:04:06 GMT")}, verdict{retry: true, wait: time.Second + 50*ms, backoff: 50 * ms}},
		{"asctime date", situation{status: 503, header: hdr("Retry-After", "Fri Jan  2 03:04:07 2026")}, verdict{retry: true, wait: 2*time.Second + 50*ms, backoff: 50 * ms}},
		{"date in the past", situation{status: 503, header: hdr("Retry-After", "Fri, 02 Jan 2026 03:00:00 GMT")}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"malformed", situation{status: 503, header: hdr("Retry-After", "soon")}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"RateLimit reset", situation{status: 429, header: hdr("RateLimit", `"default";r=0;t=7`)}, verdict{retry: true, wait: 7*time.Second + 50*ms, backoff: 50 * ms}},
		{"hints off", situation{pol: &noHints, status: 503, header: hdr("Retry-After", "3600")}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"over MaxRetryAfter", situation{status: 503, header: hdr("Retry-After", "61")}, verdict{cause: ErrRetryAfterTooLong, retryAfter: 61 * time.Second}},
		{"at MaxRetryAfter", situation{status: 503, header: hdr("Retry-After", "60")}, verdict{retry: true, wait: 60*time.Second + 50*ms, backoff: 50 * ms}},
		{"huge", situation{status: 503, header: hdr("Retry-After", "99999999999999999999")}, verdict{cause: ErrRetryAfterTooLong, retryAfter: 1<<63 - 1}},
		{"hint past the deadline", situation{status: 503, header: hdr("Retry-After", "5"), deadline: t0.Add(5 * time.Second)}, verdict{cause: ErrRetryAfterTooLong, retryAfter: 5 * time.Second}},
		{"hint past MaxElapsed", situation{status: 503, header: hdr("Retry-After", "5"), elapsedEnd: t0.Add(4 * time.Second)}, verdict{cause: ErrRetryAfterTooLong, retryAfter: 5 * time.Second}},
		{"jitter cut to the deadline", situation{pol: ptr(with(func(p *Policy) { p.InitialDelay, p.MaxDelay = time.Second, time.Second })), status: 503, header: hdr("Retry-After", "2"), deadline: t0.Add(2500 * ms)},
			verdict{retry: true, wait: 2250 * ms, backoff: 250 * ms}},
		{"jitter cut to MaxElapsed", situation{pol: ptr(with(func(p *Policy) { p.InitialDelay, p.MaxDelay = time.Second, time.Second })), status: 503, header: hdr("Retry-After", "2"), elapsedEnd: t0.Add(2100 * ms), deadline: t0.Add(time.Hour)},
			verdict{retry: true, wait: 2050 * ms, backoff: 50 * ms}},
		{"jitter that fits is kept", situation{status: 503, header: hdr("Retry-After", "2"), deadline: t0.Add(2500 * ms)}, verdict{retry: true, wait: 2050 * ms, backoff: 50 * ms}},
		{"no hint, backoff past the deadline", situation{pol: ptr(with(func(p *Policy) { p.InitialDelay, p.MaxDelay = time.Second, time.Second })), status: 503, deadline: t0.Add(400 * ms)}, verdict{cause: context.DeadlineExceeded}},
		{"hint on the last attempt", situation{status: 503, header: hdr("Retry-After", "1"), attempt: 3}, verdict{cause: ErrExhausted}},

		// Deadlines.
		{"wait fits the deadline", situation{status: 503, deadline: t0.Add(51 * ms)}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"wait reaches the deadline", situation{status: 503, deadline: t0.Add(50 * ms)}, verdict{cause: context.DeadlineExceeded}},
		{"wait reaches MaxElapsed", situation{status: 503, elapsedEnd: t0.Add(50 * ms)}, verdict{cause: ErrExhausted}},
		{"deadline already passed", situation{err: reset, deadline: t0.Add(-time.Second)}, verdict{cause: context.DeadlineExceeded}},

		// The call's state.
		{"breaker open", situation{status: 503, breakerOpen: true}, verdict{cause: ErrCircuitOpen}},
		{"breaker open, final status", situation{status: 404, breakerOpen: true}, stop(ErrStatusNotRetried)},
		{"body without GetBody", situation{status: 503, mustReplay: true}, verdict{cause: ErrBodyNotReplayable}},
		{"body with GetBody", situation{status: 503, mustReplay: true, canReplay: true}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"budget refuses", situation{status: 503, budget: NewBudget(0, 0)}, verdict{cause: ErrBudgetExhausted}},
		{"budget allows", situation{status: 503, budget: NewBudget(0, 1)}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"budget not asked for a final status", situation{status: 404, budget: NewBudget(0, 0)}, stop(ErrStatusNotRetried)},

		// The server's word.
		{"server's false stops a listed status", situation{status: 503, signal: signalStop}, stop(ErrServerSaidNoRetry)},
		{"server's false before the status list", situation{status: 404, signal: signalStop}, stop(ErrServerSaidNoRetry)},
		{"server's false before retry-safety", situation{pol: &notIdempotent, status: 503, signal: signalStop}, stop(ErrServerSaidNoRetry)},
		{"server's true retries an unlisted status", situation{status: 409, signal: signalRetry}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"server's true retries a 400", situation{status: 400, signal: signalRetry}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"server's true makes it retry-safe", situation{pol: &notIdempotent, status: 503, signal: signalRetry}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"server's true under an empty status list", situation{pol: ptr(with(func(p *Policy) { p.StatusCodes = []StatusCode{} })), status: 503, signal: signalRetry}, verdict{retry: true, wait: 50 * ms, backoff: 50 * ms}},
		{"server's true on a 200 is a success", situation{status: 200, signal: signalRetry}, verdict{}},
		{"server's true on the last attempt", situation{pol: &notIdempotent, status: 503, signal: signalRetry, attempt: 3}, verdict{cause: ErrExhausted}},
		{"server's true with one attempt", situation{pol: &notIdempotent, status: 503, signal: signalRetry, maxAttempts: 1}, verdict{cause: ErrRetriesOff}},
		{"server's true, breaker open", situation{pol: &notIdempotent, status: 503, signal: signalRetry, breakerOpen: true}, verdict{cause: ErrCircuitOpen}},
		{"server's true, body without GetBody", situation{pol: &notIdempotent, status: 503, signal: signalRetry, mustReplay: true}, verdict{cause: ErrBodyNotReplayable}},
		{"server's true, budget refuses", situation{pol: &notIdempotent, status: 409, signal: signalRetry, budget: NewBudget(0, 0)}, verdict{cause: ErrBudgetExhausted}},
		{"server's true waits Retry-After", situation{pol: &notIdempotent, status: 400, signal: signalRetry, header: hdr("Retry-After", "2")}, verdict{retry: true, wait: 2*time.Second + 50*ms, backoff: 50 * ms}},
		{"server's true, hint over MaxRetryAfter", situation{pol: &notIdempotent, status: 503, signal: signalRetry, header: hdr("Retry-After", "61")}, verdict{cause: ErrRetryAfterTooLong, retryAfter: 61 * time.Second}},
		{"server's true, wait past the deadline", situation{pol: &notIdempotent, status: 503, signal: signalRetry, deadline: t0.Add(50 * ms)}, verdict{cause: context.DeadlineExceeded}},
		{"server's true, wait past MaxElapsed", situation{pol: &notIdempotent, status: 503, signal: signalRetry, elapsedEnd: t0.Add(50 * ms)}, verdict{cause: ErrExhausted}},
		{"server's true, no transport error", situation{pol: &notIdempotent, err: reset, signal: signalRetry}, stop(ErrNotRetrySafe)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.s
			if s.pol == nil {
				p := base()
				s.pol = &p
			}
			if s.attempt == 0 {
				s.attempt = 1
			}
			if s.maxAttempts == 0 {
				s.maxAttempts = s.pol.MaxAttempts
			}
			s.now = t0
			s.rnd = 0.5
			got := decide(&s)
			if got.retry != tt.want.retry || got.wait != tt.want.wait || got.backoff != tt.want.backoff ||
				!errors.Is(got.cause, tt.want.cause) || (got.cause == nil) != (tt.want.cause == nil) ||
				got.retryAfter != tt.want.retryAfter {
				t.Errorf("decide = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// decide reads no clock and changes nothing of the situation it is given: decided again
// after the bubble's clock has moved an hour past the situation's deadline and its
// Retry-After date, the same situation gives the same verdict, and is left as it was.
func TestDecideReadsNoClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := idempotent().resolved()
		now := time.Now()
		s := situation{pol: &p, attempt: 2, maxAttempts: 3, status: 503,
			header: header("Retry-After", now.Add(2*time.Second).UTC().Format(http.TimeFormat)),
			now:    now, deadline: now.Add(10 * time.Second), elapsedEnd: now.Add(20 * time.Second),
			rnd: 0.25, prevBackoff: 40 * time.Millisecond}
		// The date is 2s after s.now; the backoff of retry 2 is 0.25 of its 200ms ceiling.
		want := verdict{retry: true, wait: 2*time.Second + 50*time.Millisecond, backoff: 50 * time.Millisecond}
		before, policyBefore, headerBefore := s, p, s.header.Clone()
		for i := range 3 {
			if got := decide(&s); got != want {
				t.Fatalf("decision %d, made %v after the situation: %+v, want %+v", i+1, time.Since(now), got, want)
			}
			time.Sleep(time.Hour)
		}
		if !reflect.DeepEqual(s.header, headerBefore) || !reflect.DeepEqual(p, policyBefore) {
			t.Errorf("decide changed the header or the policy: %v, %+v", s.header, p)
		}
		s.header, before.header = nil, nil
		if !reflect.DeepEqual(s, before) {
			t.Errorf("decide changed the situation:\n%+v\nwas\n%+v", s, before)
		}
	})
}

func ptr[T any](v T) *T { return &v }
