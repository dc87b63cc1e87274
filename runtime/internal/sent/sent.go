// Package sent lets runtime/wire reach what a *runtime.Error keeps of its request
// without showing it: the credentials the request carried and the URL it went to.
// Package runtime sets the functions as it is initialised; they take the *runtime.Error
// as an error, so that this package needs none of runtime's types.
package sent

import (
	"net/http"
	"net/url"
)

var (
	// URL returns the URL the request of err, a *runtime.Error, went to, without its
	// credentials (user information, query credentials) or fragment; nil when err keeps
	// none.
	URL func(err error) *url.URL

	// HideJSON returns body, a JSON text, with the credentials the request of err
	// carried replaced by REDACTED in its strings, as err's text hides them; body itself
	// when err keeps none. ok is false when there are some and body is not one JSON value.
	HideJSON func(err error, body []byte) (out []byte, ok bool)

	// HideRequestJSON is HideJSON for the credentials req carried (its query values
	// included).
	HideRequestJSON func(req *http.Request, body []byte) (out []byte, ok bool)

	// HideText returns text with the credentials req carried (its query values
	// included) replaced by REDACTED, as an error's text hides them.
	HideText func(req *http.Request, text string) string

	// Keep makes err keep req out of sight, as the engine's errors do, unless it keeps
	// a request already; every query parameter of req counts as a credential.
	Keep func(err error, req *http.Request)
)
