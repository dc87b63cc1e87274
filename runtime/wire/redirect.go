package wire

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/retrygen/retrygen/runtime"
)

// ErrNoLocation is the cause of the error Location returns for a redirect without a
// usable Location header.
var ErrNoLocation = runtime.ErrNoLocation

// Location returns where the redirect that ended a call made with Request.StopAtRedirect
// points: its Location header, resolved against the request's URL. An answer that is not
// a redirect is an error as usual: a 2xx one is Undeclared(resp, pick), since the
// operation declares redirects only, and err, another status, goes through
// DecodeError(err, pick).
func Location(resp *http.Response, err error, pick func(status int) any) (*url.URL, error) {
	if err == nil {
		return nil, Undeclared(resp, pick)
	}
	var e *runtime.Error
	if !errors.As(err, &e) || e.StatusCode < 300 || e.StatusCode > 399 {
		return nil, DecodeError(err, pick)
	}
	loc, perr := url.Parse(e.Header.Get("Location"))
	if perr != nil || e.Header.Get("Location") == "" {
		e.Cause = ErrNoLocation
		if perr != nil {
			e.Cause = fmt.Errorf("%w: %v", ErrNoLocation, perr)
		}
		return nil, e
	}
	if base, berr := url.Parse(e.URL); berr == nil {
		loc = base.ResolveReference(loc)
	}
	return loc, nil
}
