package runtime

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// failure says what a transport error allows.
type failure uint8

const (
	// failTerminal: retrying cannot help (bad certificate, bad URL, caller cancelled).
	failTerminal failure = iota
	// failNotSent: the connection could not be opened, so no byte of the request left.
	failNotSent
	// failMaybeSent: the request may have reached the server (reset, timeout, EOF).
	failMaybeSent
)

// classify sorts the transport error of one attempt. callerDone reports that the caller's
// context is done: the failure is then the caller's and never retried, while an attempt's
// own timeout is.
func classify(err error, callerDone bool) failure {
	if callerDone {
		return failTerminal
	}
	var re interface{ RetryableError() bool }
	if errors.As(err, &re) {
		if re.RetryableError() {
			return failMaybeSent
		}
		return failTerminal
	}
	if terminal(err) {
		return failTerminal
	}
	var op *net.OpError
	if errors.As(err, &op) && (op.Op == "dial" || op.Op == "proxyconnect") {
		return failNotSent
	}
	return failMaybeSent
}

// terminal reports transport errors that the same request would meet again: certificate
// and TLS trust failures, a plain-HTTP answer to an HTTPS request, a host that does not
// exist, a redirect the caller's CheckRedirect refused (or net/http's limit), a body too
// large or that cannot be replayed, a request body that failed, and net/http's own
// refusals (bad URL, bad scheme, bad header, bad method).
func terminal(err error) bool {
	var (
		unknownAuthority x509.UnknownAuthorityError
		invalidCert      x509.CertificateInvalidError
		hostname         x509.HostnameError
		verification     *tls.CertificateVerificationError
		recordHeader     tls.RecordHeaderError
		dns              *net.DNSError
	)
	switch {
	case errors.As(err, &unknownAuthority), errors.As(err, &invalidCert),
		errors.As(err, &hostname), errors.As(err, &verification), errors.As(err, &recordHeader):
		return true
	case errors.As(err, &dns) && dns.IsNotFound:
		return true
	case errors.Is(err, ErrBodyTooLarge), errors.Is(err, ErrBodyNotReplayable):
		return true
	case callerSide(err):
		return true
	}
	return strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")
}

// callerSide reports failures that come from the request or the caller's own settings
// rather than from the server or the network: a redirect the caller's CheckRedirect
// refused, an invalid URL, a request body that failed (ErrRequestBody), and net/http's
// refusals to send. They are never retried, and the breaker does not count them.
func callerSide(err error) bool {
	var refused *redirectRefused
	if errors.As(err, &refused) || errors.Is(err, ErrRequestBody) {
		return true
	}
	if parseError(err) {
		return true
	}
	msg := err.Error()
	if strings.Contains(msg, "stopped after ") && strings.HasSuffix(msg, " redirects") {
		return true // net/http's redirect limit
	}
	for _, s := range []string{
		"unsupported protocol scheme",
		"invalid header field", // a name or value net/http refuses to send
		"invalid method",
		"http: nil Request.URL",
		"http: no Host in request URL",
		"failed to parse Location header",
		"cannot rewind body",   // net/http could not replay a body itself
		"http: ContentLength=", // a body shorter or longer than declared
		"invalid URL",
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// parseError reports whether err's chain holds a URL parse error (*url.Error with Op
// "parse"), such as a redirect's unparseable Location.
func parseError(err error) bool {
	for err != nil {
		if ue, ok := err.(*url.Error); ok && ue.Op == "parse" {
			return true
		}
		switch x := err.(type) {
		case interface{ Unwrap() error }:
			err = x.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range x.Unwrap() {
				if parseError(e) {
					return true
				}
			}
			return false
		default:
			return false
		}
	}
	return false
}

// signal is what a response says of repeating its request, in the header fields
// x-should-retry (OpenAI's and other Stainless-generated APIs) or Stripe-Should-Retry.
type signal uint8

const (
	signalNone  signal = iota // no field, only values that are neither true nor false, or ignored
	signalRetry               // true: repeating the request is safe and worth it
	signalStop                // false: the request must not be repeated
)

// signalFields are the header fields serverSignal reads, canonical.
var signalFields = [...]string{"X-Should-Retry", "Stripe-Should-Retry"}

// serverSignal reads h's x-should-retry and Stripe-Should-Retry: true or false in any
// case, blanks around it ignored. Values that disagree, in one field repeated, in both
// fields or in a comma-joined list, mean false: the server's word is followed only where
// it is unanimous for a retry. Any other value is ignored.
func serverSignal(h http.Header) signal {
	sig := signalNone
	for _, name := range signalFields {
		for _, v := range h[name] {
			for part := range strings.SplitSeq(v, ",") {
				switch p := strings.TrimSpace(part); {
				case strings.EqualFold(p, "false"):
					return signalStop
				case strings.EqualFold(p, "true"):
					sig = signalRetry
				}
			}
		}
	}
	return sig
}
