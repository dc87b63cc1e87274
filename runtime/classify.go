package runtime

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
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
// and TLS trust failures, a host that does not exist, and net/http's own refusals (bad
// scheme, bad header, too many redirects).
func terminal(err error) bool {
	var (
		unknownAuthority x509.UnknownAuthorityError
		invalidCert      x509.CertificateInvalidError
		hostname         x509.HostnameError
		verification     *tls.CertificateVerificationError
		dns              *net.DNSError
	)
	switch {
	case errors.As(err, &unknownAuthority), errors.As(err, &invalidCert),
		errors.As(err, &hostname), errors.As(err, &verification):
		return true
	case errors.As(err, &dns) && dns.IsNotFound:
		return true
	}
	msg := err.Error()
	if strings.Contains(msg, "stopped after ") && strings.HasSuffix(msg, " redirects") {
		return true // CheckRedirect's limit
	}
	for _, s := range []string{
		"unsupported protocol scheme",
		"invalid header field", // a name or value net/http refuses to send
		"invalid method",
		"http: nil Request.URL",
		"http: no Host in request URL",
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
