package runtime

import (
	"net/http"
	"strings"
	"time"
)

// RateLimit is what a response says of the caller's rate limit, read from the headers
// that APIs commonly send. A count the response does not give is -1; a reset it does not
// give is the zero time.
type RateLimit struct {
	// Limit is the number of requests the window allows, e.g. 5000.
	Limit int64
	// Remaining is the number of requests left in the window; 0 means the next request
	// would be refused until Reset.
	Remaining int64
	// Used is the number of requests made in the window, when the response says it.
	Used int64
	// Reset is when the window starts again and Remaining goes back to Limit.
	Reset time.Time
}

// Known reports whether the response said anything of its rate limit.
func (r RateLimit) Known() bool {
	return r.Limit >= 0 || r.Remaining >= 0 || r.Used >= 0 || !r.Reset.IsZero()
}

// RateLimit returns the rate limit the last response's header describes (see
// ParseRateLimit), a reset in seconds counted from the response's Date, else from now: on
// a 429, when the quota comes back.
func (e *Error) RateLimit() RateLimit {
	return ParseRateLimit(e.Header, ResponseTime(e.Header))
}

// ResponseTime returns when the response whose header is h was made: its Date, else now.
func ResponseTime(h http.Header) time.Time {
	if t, err := http.ParseTime(h.Get("Date")); err == nil {
		return t
	}
	return time.Now()
}

// ParseRateLimit reads the rate limit a response's header h describes; now is when the
// response arrived, which a reset given in seconds counts from. It reads, the first that
// the response has:
//
//	RateLimit: "default";r=50;t=30        draft-ietf-httpapi-ratelimit-headers-10 (with RateLimit-Policy: "default";q=100;w=60)
//	RateLimit-Remaining: 50               the draft's earlier fields, RateLimit-Limit and RateLimit-Reset (seconds) too
//	X-RateLimit-Remaining: 50             GitHub, Twitter and many others; X-RateLimit-Limit, -Used and -Reset
//	X-RateLimit-Remaining-Requests: 50    OpenAI; X-RateLimit-Limit-Requests and -Reset-Requests ("6m0s")
//
// X-RateLimit-Reset is a Unix time when it is past 2001 (1e9 seconds), as GitHub sends
// it, and a number of seconds from now otherwise. Where a RateLimit field lists several
// quotas, the one with the fewest requests left is read. A value that does not parse (a
// negative or fractional count, a field sent twice) is left out, not guessed at.
func ParseRateLimit(h http.Header, now time.Time) RateLimit {
	rl := RateLimit{Limit: -1, Remaining: -1, Used: -1}
	switch {
	case len(h["Ratelimit"]) > 0 && rateLimitField(&rl, h, now):
	case h["Ratelimit-Remaining"] != nil || h["Ratelimit-Limit"] != nil:
		rl.Limit = headerCount(h, "Ratelimit-Limit")
		rl.Remaining = headerCount(h, "Ratelimit-Remaining")
		if s := headerCount(h, "Ratelimit-Reset"); s >= 0 {
			rl.Reset = afterSeconds(now, s)
		}
	case h["X-Ratelimit-Remaining"] != nil || h["X-Ratelimit-Limit"] != nil:
		rl.Limit = headerCount(h, "X-Ratelimit-Limit")
		rl.Remaining = headerCount(h, "X-Ratelimit-Remaining")
		rl.Used = headerCount(h, "X-Ratelimit-Used")
		if s := headerCount(h, "X-Ratelimit-Reset"); s >= 1e9 {
			rl.Reset = time.Unix(s, 0)
		} else if s >= 0 {
			rl.Reset = afterSeconds(now, s)
		}
	case h["X-Ratelimit-Remaining-Requests"] != nil || h["X-Ratelimit-Limit-Requests"] != nil:
		rl.Limit = headerCount(h, "X-Ratelimit-Limit-Requests")
		rl.Remaining = headerCount(h, "X-Ratelimit-Remaining-Requests")
		if v, ok := single(h, "X-Ratelimit-Reset-Requests"); ok {
			if d, err := time.ParseDuration(v); err == nil && d >= 0 {
				rl.Reset = now.Add(d)
			}
		}
	}
	return rl
}

// rateLimitField reads the RateLimit field into rl, with the quota of RateLimit-Policy
// of the same name as Limit, and reports whether it is well formed.
func rateLimitField(rl *RateLimit, h http.Header, now time.Time) bool {
	name, found := "", false
	for _, member := range splitOutsideQuotes(strings.Join(h["Ratelimit"], ","), ',') {
		item, r, t, ok := sfMember(member, "r", "t")
		if !ok || r < 0 {
			return false
		}
		if !found || r < rl.Remaining {
			name, found = item, true
			rl.Remaining, rl.Reset = r, time.Time{}
			if t >= 0 {
				rl.Reset = afterSeconds(now, t)
			}
		}
	}
	if !found {
		return false
	}
	for _, member := range splitOutsideQuotes(strings.Join(h["Ratelimit-Policy"], ","), ',') {
		if item, q, _, ok := sfMember(member, "q", "w"); ok && item == name && q >= 0 {
			rl.Limit = q
		}
	}
	return true
}

// sfMember parses one member of a Structured Fields list such as `"default";r=50;t=30`:
// its item, and the integer parameters a and b (-1 when absent).
func sfMember(member, a, b string) (item string, x, y int64, ok bool) {
	params := splitOutsideQuotes(member, ';')
	item = strings.Trim(params[0], " \t")
	if !validSFItem(item) {
		return "", 0, 0, false
	}
	x, y = -1, -1
	for _, p := range params[1:] {
		key, value, hasValue := strings.Cut(strings.TrimLeft(p, " "), "=")
		if !validSFKey(key) {
			return "", 0, 0, false
		}
		if key != a && key != b {
			continue
		}
		n, ok := sfInteger(value)
		if !hasValue || !ok {
			return "", 0, 0, false
		}
		if key == a {
			x = n
		} else {
			y = n
		}
	}
	return item, x, y, true
}

// headerCount returns the one value of the canonical header key as a count, -1 when it
// is absent, repeated or not 1*DIGIT of at most 18 digits.
func headerCount(h http.Header, key string) int64 {
	v, ok := single(h, key)
	if !ok || len(v) > 18 {
		return -1
	}
	n, ok := parseDigits(v)
	if !ok {
		return -1
	}
	return n
}

// afterSeconds returns now plus s seconds, saturating far in the future.
func afterSeconds(now time.Time, s int64) time.Time {
	const most = 100 * 365 * 24 * 3600 // a century: no window lasts longer
	return now.Add(time.Duration(min(s, most)) * time.Second)
}
