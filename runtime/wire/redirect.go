package wire

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/internal/sent"
	"github.com/retrygen/retrygen/runtime/internal/shown"
)

// ErrNoLocation is the cause of the error Location returns for a redirect without a
// usable Location header.
var ErrNoLocation = runtime.ErrNoLocation

// Location returns where the redirect that ended a call made with Request.StopAtRedirect
// points: its Location header, resolved against the URL the request went to (without its
// credentials), for the caller to fetch. Only an http or https URL with a host and no
// user information is returned; any other Location (javascript:, data:, file:, a URL
// that does not parse) is an error with cause ErrNoLocation. An answer that is not a
// redirect is an error as usual: a 2xx one is Undeclared(resp, pick), since the operation
// declares redirects only, and err, another status, goes through DecodeError(err, pick).
func Location(resp *http.Response, err error, pick func(status int) any) (*url.URL, error) {
	if err == nil {
		return nil, Undeclared(resp, pick)
	}
	var e *runtime.Error
	if !errors.As(err, &e) || e.StatusCode < 300 || e.StatusCode > 399 {
		return nil, DecodeError(err, pick)
	}
	loc, cause := location(e)
	if cause != nil {
		e.Cause = cause
		return nil, e
	}
	return loc, nil
}

// schemeShown is the most of a Location's scheme that an error shows, in bytes.
const schemeShown = 20

// location resolves the Location of the redirect e reports against the URL its request
// went to, and checks that it is a URL to fetch; when it is not, the error says why and
// wraps ErrNoLocation.
func location(e *runtime.Error) (*url.URL, error) {
	raw := e.Header.Get("Location")
	if raw == "" {
		return nil, ErrNoLocation
	}
	ref, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: it is not a URL", ErrNoLocation)
	}
	base := sent.URL(e)
	if base == nil { // an Error the engine did not make
		if base, err = url.Parse(e.URL); err != nil {
			return nil, fmt.Errorf("%w: no request URL to resolve it against", ErrNoLocation)
		}
	}
	loc := base.ResolveReference(ref)
	switch {
	case !strings.EqualFold(loc.Scheme, "http") && !strings.EqualFold(loc.Scheme, "https"):
		return nil, fmt.Errorf("%w: its scheme is %q, not http or https", ErrNoLocation, shown.Excerpt(loc.Scheme, schemeShown))
	case loc.Opaque != "" || loc.Host == "":
		return nil, fmt.Errorf("%w: it has no host", ErrNoLocation)
	case loc.User != nil:
		return nil, fmt.Errorf("%w: it has user information", ErrNoLocation)
	}
	return loc, nil
}
