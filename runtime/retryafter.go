package runtime

import (
	"math"
	"net/http"
	"strings"
	"time"
)

// ParseRetryAfter returns the wait a response's header asks for, and whether it asks for one.
//
// It reads the non-standard retry-after-ms (a non-negative integer of milliseconds) first,
// being the more precise, then Retry-After (RFC 9110 §10.2.3): delay-seconds (1*DIGIT) or an
// HTTP-date in any of the three forms RFC 9110 §5.6.7 makes recipients accept:
//
//	Sun, 06 Nov 1994 08:49:37 GMT    IMF-fixdate
//	Sunday, 06-Nov-94 08:49:37 GMT   obsolete RFC 850 form
//	Sun Nov  6 08:49:37 1994         obsolete asctime form
//
// A date counts from now; one in the past asks for no wait (0, true). The RFC 850 form's
// two-digit year is read as the year within 50 years of now, as RFC 9110 requires (a year
// that would lie more than 50 years ahead is taken from the previous century). This differs
// from net/http.ParseTime, which pins 69-99 to the 1900s.
//
// A field given more than once, a negative, fractional or signed number, a date in any other
// form (lowercase names, a zone other than GMT, trailing text) and anything else is ignored.
// A number too large for a Duration gives the largest Duration; it is valid, and the engine
// ends the call rather than wait that long.
//
// Without a valid Retry-After it reads the RateLimit field
// (draft-ietf-httpapi-ratelimit-headers-10 §4): when a quota has no requests left (r=0), its
// reset t (delay-seconds) is the wait; with several such quotas, the longest. Retry-After
// takes precedence, as the draft's §7 requires, and a malformed RateLimit field is ignored
// whole. With none of these it returns (0, false).
func ParseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if d, ok := parseRetryAfter(h, now); ok {
		return d, true
	}
	return rateLimitReset(h["Ratelimit"])
}

func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v, ok := single(h, "Retry-After-Ms"); ok {
		if n, ok := parseDigits(v); ok {
			if n > math.MaxInt64/int64(time.Millisecond) {
				return math.MaxInt64, true
			}
			return time.Duration(n) * time.Millisecond, true
		}
	}
	v, ok := single(h, "Retry-After")
	if !ok {
		return 0, false
	}
	if n, ok := parseDigits(v); ok {
		if n > math.MaxInt64/int64(time.Second) {
			return math.MaxInt64, true
		}
		return time.Duration(n) * time.Second, true
	}
	t, ok := parseHTTPDate(v, now)
	if !ok {
		return 0, false
	}
	d := t.Sub(now) // saturates at the Duration bounds
	return max(d, 0), true
}

// rateLimitReset returns the longest reset of the exhausted quotas in RateLimit field
// lines: a Structured Fields List (RFC 9651) of items such as `"default";r=0;t=30`, where r
// (remaining, required) and t (reset, optional) are non-negative integers. Any syntax error
// voids the whole field.
func rateLimitReset(lines []string) (time.Duration, bool) {
	if len(lines) == 0 {
		return 0, false
	}
	var (
		reset time.Duration
		found bool
	)
	for _, member := range splitOutsideQuotes(strings.Join(lines, ","), ',') {
		params := splitOutsideQuotes(member, ';')
		if !validSFItem(strings.Trim(params[0], " \t")) {
			return 0, false
		}
		r, t := int64(-1), int64(-1) // absent
		for _, p := range params[1:] {
			key, value, hasValue := strings.Cut(strings.TrimLeft(p, " "), "=")
			if !validSFKey(key) {
				return 0, false
			}
			switch key {
			case "r", "t":
				n, ok := sfInteger(value)
				if !hasValue || !ok {
					return 0, false
				}
				if key == "r" {
					r = n
				} else {
					t = n
				}
			}
		}
		if r < 0 {
			return 0, false // r is required
		}
		if r == 0 && t >= 0 {
			d := time.Duration(math.MaxInt64)
			if t <= math.MaxInt64/int64(time.Second) {
				d = time.Duration(t) * time.Second
			}
			reset, found = max(reset, d), true
		}
	}
	return reset, found
}

// splitOutsideQuotes splits s at sep where sep is not inside a quoted string.
func splitOutsideQuotes(s string, sep byte) []string {
	var (
		parts   []string
		start   int
		quoted  bool
		escaped bool
	)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case escaped:
			escaped = false
		case quoted && c == '\\':
			escaped = true
		case c == '"':
			quoted = !quoted
		case !quoted && c == sep:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// validSFItem reports whether s is a quoted string or a token, the bare items RateLimit
// policies are named by.
func validSFItem(s string) bool {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		for i := 1; i < len(s)-1; i++ {
			if c := s[i]; c < 0x20 || c > 0x7e {
				return false
			}
		}
		return true
	}
	if s == "" || !(s[0] == '*' || s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if c <= 0x20 || c >= 0x7f || strings.IndexByte(`"(),;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validSFKey reports whether s is a Structured Fields parameter key: lcalpha or "*", then
// lcalpha, digits, "_", "-", "." or "*".
func validSFKey(s string) bool {
	if s == "" || !(s[0] == '*' || s[0] >= 'a' && s[0] <= 'z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("_-.*", c) >= 0) {
			return false
		}
	}
	return true
}

// sfInteger parses a non-negative Structured Fields integer: 1 to 15 digits.
func sfInteger(s string) (int64, bool) {
	if len(s) > 15 {
		return 0, false
	}
	return parseDigits(s)
}

// single returns the one value of a canonical header key, trimmed of optional whitespace.
func single(h http.Header, key string) (string, bool) {
	vs := h[key]
	if len(vs) != 1 {
		return "", false
	}
	return strings.Trim(vs[0], " \t"), true
}

// parseDigits parses 1*DIGIT, saturating at math.MaxInt64.
func parseDigits(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (math.MaxInt64-int64(c-'0'))/10 {
			n = math.MaxInt64
			continue
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

var (
	dayNames  = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	longDays  = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	monthAbbr = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// parseHTTPDate parses the three HTTP-date forms exactly and case-sensitively.
func parseHTTPDate(s string, now time.Time) (time.Time, bool) {
	// IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT"
	if len(s) == 29 && s[3] == ',' && s[4] == ' ' && s[7] == ' ' && s[11] == ' ' && s[16] == ' ' &&
		s[25:] == " GMT" && oneOf(s[:3], dayNames) {
		day, ok1 := num(s[5:7])
		mon, ok2 := month(s[8:11])
		year, ok3 := num(s[12:16])
		if ok1 && ok2 && ok3 {
			return build(year, mon, day, s[17:25])
		}
		return time.Time{}, false
	}
	// rfc850-date: "Sunday, 06-Nov-94 08:49:37 GMT"
	if i := strings.IndexByte(s, ','); i > 0 && oneOf(s[:i], longDays) {
		r := s[i:]
		if len(r) != 24 || r[1] != ' ' || r[4] != '-' || r[8] != '-' || r[11] != ' ' || r[20:] != " GMT" {
			return time.Time{}, false
		}
		day, ok1 := num(r[2:4])
		mon, ok2 := month(r[5:8])
		yy, ok3 := num(r[9:11])
		if !ok1 || !ok2 || !ok3 {
			return time.Time{}, false
		}
		t, ok := build(now.UTC().Year()/100*100+yy, mon, day, r[12:20])
		if !ok {
			return time.Time{}, false
		}
		// Keep the year within 50 years of now (RFC 9110 §5.6.7).
		if t.After(now.AddDate(50, 0, 0)) {
			t = t.AddDate(-100, 0, 0)
		} else if t.Before(now.AddDate(-50, 0, 0)) {
			t = t.AddDate(100, 0, 0)
		}
		return t, true
	}
	// asctime-date: "Sun Nov  6 08:49:37 1994" (day padded with a space)
	if len(s) == 24 && s[3] == ' ' && s[7] == ' ' && s[10] == ' ' && s[19] == ' ' && oneOf(s[:3], dayNames) {
		dd := s[8:10]
		if dd[0] == ' ' {
			dd = "0" + dd[1:]
		}
		day, ok1 := num(dd)
		mon, ok2 := month(s[4:7])
		year, ok3 := num(s[20:24])
		if ok1 && ok2 && ok3 {
			return build(year, mon, day, s[11:19])
		}
	}
	return time.Time{}, false
}

// build checks "hh:mm:ss" and the calendar and returns the UTC time.
func build(year int, mon time.Month, day int, hms string) (time.Time, bool) {
	if len(hms) != 8 || hms[2] != ':' || hms[5] != ':' {
		return time.Time{}, false
	}
	hh, ok1 := num(hms[0:2])
	mm, ok2 := num(hms[3:5])
	ss, ok3 := num(hms[6:8])
	// Second 60 is a leap second (RFC 9110 §5.6.7); it normalises to the next minute.
	if !ok1 || !ok2 || !ok3 || hh > 23 || mm > 59 || ss > 60 || day < 1 {
		return time.Time{}, false
	}
	t := time.Date(year, mon, day, hh, mm, ss, 0, time.UTC)
	if t.Day() != day && ss != 60 { // 31 Nov and the like normalise into the next month
		return time.Time{}, false
	}
	if ss == 60 && time.Date(year, mon, day, 0, 0, 0, 0, time.UTC).Day() != day {
		return time.Time{}, false
	}
	return t, true
}

// num parses a fixed-width run of digits.
func num(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, s != ""
}

func month(s string) (time.Month, bool) {
	for i, m := range monthAbbr {
		if s == m {
			return time.Month(i + 1), true
		}
	}
	return 0, false
}

func oneOf(s string, set []string) bool {
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}
