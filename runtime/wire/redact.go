package wire

import "github.com/retrygen/retrygen/runtime"

// RedactURL returns u with its user information and every query value hidden, e.g.
// "https://api.example.com/v1/items?api_key=REDACTED": a query may carry an API key and
// a user name a token. A URL that does not parse is hidden whole. It is runtime.RedactURL;
// the engine shows every URL in errors, events and logs so.
func RedactURL(u string) string { return runtime.RedactURL(u) }
