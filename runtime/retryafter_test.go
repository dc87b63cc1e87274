package runtime

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

// A3: delay-seconds is 1*DIGIT and nothing else.
func TestRetryAfterDelaySecondsIsDigitsOnly(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"0", 0, true},
		{"2", 2 * time.Second, true},
		{"007", 7 * time.Second, true},
		{"120", 120 * time.Second, true},
		{" 5 ", 5 * time.Second, true}, // optional whitespace around a field value
		{"99999999999999999999", math.MaxInt64, true},
		{"9223372036", 9223372036 * time.Second, true},
		{"9223372037", math.MaxInt64, true},
		{"-1", 0, false},
		{"+5", 0, false},
		{"1.5", 0, false},
		{"1e3", 0, false},
		{"0x10", 0, false},
		{"", 0, false},
		{"abc", 0, false},
		{"2 3", 0, false},
		{"2,3", 0, false},
		{"٣", 0, false}, // a non-ASCII digit
	} {
		got, ok := ParseRetryAfter(header("Retry-After", tc.in), now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Retry-After %q = (%v, %v), want (%v, %v)", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := ParseRetryAfter(http.Header{}, now); ok {
		t.Error("no header gave a hint")
	}
	// retry-after-ms, the non-standard millisecond form, wins over Retry-After.
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{header("retry-after-ms", "1500"), 1500 * time.Millisecond, true},
		{header("retry-after-ms", "250", "Retry-After", "9"), 250 * time.Millisecond, true},
		{header("retry-after-ms", "-3", "Retry-After", "9"), 9 * time.Second, true},
		{header("retry-after-ms", "1.5"), 0, false},
		{header("retry-after-ms", "99999999999999999999"), math.MaxInt64, true},
	} {
		got, ok := ParseRetryAfter(tc.h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%v = (%v, %v), want (%v, %v)", tc.h, got, ok, tc.want, tc.ok)
		}
	}
}

// A4: the three HTTP-date forms, case-sensitive, GMT only.
func TestRetryAfterHTTPDateForms(t *testing.T) {
	now := time.Date(1999, 12, 31, 23, 59, 57, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"Fri, 31 Dec 1999 23:59:59 GMT", 2 * time.Second, true},
		{"Friday, 31-Dec-99 23:59:59 GMT", 2 * time.Second, true},
		{"Fri Dec 31 23:59:59 1999", 2 * time.Second, true},
		{"Sat, 01 Jan 2000 00:00:07 GMT", 10 * time.Second, true},
		{"Sun Nov  6 08:49:37 1994", 0, true}, // space-padded day, in the past
		{"Sun, 06 Nov 1994 08:49:37 GMT", 0, true},
		{"Fri, 31 Dec 1999 23:59:60 GMT", 3 * time.Second, true}, // a leap second
		{"Fri, 32 Dec 1999 23:59:59 GMT", 0, false},
		{"Tue, 31 Nov 1999 23:59:59 GMT", 0, false},
		{"fri, 31 dec 1999 23:59:59 GMT", 0, false},
		{"Fri, 31 DEC 1999 23:59:59 GMT", 0, false},
		{"Fri, 31 Dec 1999 23:59:59 gmt", 0, false},
		{"Fri, 31 Dec 1999 23:59:59 UTC", 0, false},
		{"Fri, 31 Dec 1999 23:59:59 +0000", 0, false},
		{"Friday, 31-Dec-99 23:59:59 UTC", 0, false},
		{"Fri, 31 Dec 1999 23:59:59 GMT trailing", 0, false},
		{"Fri, 31 Dec 1999 24:00:00 GMT", 0, false},
		{"Fri, 31 Dec 1999 23:60:00 GMT", 0, false},
		{"Fri Dec 31 23:59:59 1999 ", 2 * time.Second, true}, // trailing OWS is trimmed
		{"Fri Dec 31 23:59:59 99", 0, false},
		{"Fri, 31 Dec 1999 23:59:59", 0, false},
		{"Fry, 31 Dec 1999 23:59:59 GMT", 0, false},
	} {
		got, ok := ParseRetryAfter(header("Retry-After", tc.in), now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%q = (%v, %v), want (%v, %v)", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// A5: the RFC 850 two-digit year lies within 50 years of now, unlike net/http.ParseTime.
func TestRetryAfterRFC850YearWithin50Years(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	got, ok := ParseRetryAfter(header("Retry-After", "Monday, 01-Jun-70 00:00:00 GMT"), now)
	if want := time.Date(2070, 6, 1, 0, 0, 0, 0, time.UTC).Sub(now); !ok || got != want {
		t.Errorf("-70 = (%v, %v), want 2070, %v ahead", got, ok, want)
	}
	if pt, err := http.ParseTime("Monday, 01-Jun-70 00:00:00 GMT"); err != nil || pt.Year() != 1970 {
		t.Errorf("net/http.ParseTime gives %v, %v; the documented deviation assumes 1970", pt, err)
	}
	if got, ok := ParseRetryAfter(header("Retry-After", "Sunday, 01-Jun-80 00:00:00 GMT"), now); !ok || got != 0 {
		t.Errorf("-80 = (%v, %v), want 1980, so no wait", got, ok)
	}
	// 2076-05-31 is less than 50 years ahead, 2076-06-02 more.
	if got, ok := ParseRetryAfter(header("Retry-After", "Sunday, 31-May-76 00:00:00 GMT"), now); !ok || got < 49*365*24*time.Hour {
		t.Errorf("31-May-76 = (%v, %v), want 2076", got, ok)
	}
	if got, ok := ParseRetryAfter(header("Retry-After", "Tuesday, 02-Jun-76 00:00:00 GMT"), now); !ok || got != 0 {
		t.Errorf("02-Jun-76 = (%v, %v), want 1976", got, ok)
	}
	// Near the end of a century the window reaches into the next one.
	late := time.Date(2090, 1, 1, 0, 0, 0, 0, time.UTC)
	if got, ok := ParseRetryAfter(header("Retry-After", "Monday, 01-Jan-05 00:00:00 GMT"), late); !ok || got != time.Date(2105, 1, 1, 0, 0, 0, 0, time.UTC).Sub(late) {
		t.Errorf("-05 seen in 2090 = (%v, %v), want 2105", got, ok)
	}
	// The engine takes the far-future reading to the too-long path.
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: func(int, *http.Request) (*http.Response, error) {
			return response(503, header("Retry-After", "Monday, 01-Jun-70 00:00:00 GMT"), ""), nil
		}}
		e := engineFor(s, 0.5)
		e.now = func() time.Time { return now }
		_, err := e.Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/x", nil), idempotent())
		if !errorIs(err, ErrRetryAfterTooLong) || s.count() != 1 {
			t.Fatalf("err = %v after %d attempts, want ErrRetryAfterTooLong after 1", err, s.count())
		}
	})
}

// A7: several Retry-After fields are no hint at all; the plain backoff applies.
func TestRepeatedRetryAfterIgnored(t *testing.T) {
	now := time.Now()
	if _, ok := ParseRetryAfter(header("Retry-After", "2", "Retry-After", "3"), now); ok {
		t.Fatal("two Retry-After fields gave a hint")
	}
	if _, ok := ParseRetryAfter(header("Retry-After", "2", "Retry-After", "2"), now); ok {
		t.Fatal("two equal Retry-After fields gave a hint")
	}
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: func(n int, _ *http.Request) (*http.Response, error) {
			if n == 1 {
				return response(503, header("Retry-After", "2", "Retry-After", "3"), ""), nil
			}
			return response(200, nil, "ok"), nil
		}}
		resp, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", "http://api.test/x", nil), idempotent())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if g := s.gaps(); len(g) != 1 || g[0] != 50*time.Millisecond {
			t.Fatalf("gaps = %v, want [50ms] (half the 100ms ceiling)", g)
		}
	})
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{
		"0", "2", "007", "120", "-1", "+5", "1.5", "1e3", "0x10", "", "abc", "2 3",
		"99999999999999999999", "Fri, 31 Dec 1999 23:59:59 GMT", "Friday, 31-Dec-99 23:59:59 GMT",
		"Fri Dec 31 23:59:59 1999", "Sun Nov  6 08:49:37 1994", "Fri, 32 Dec 1999 23:59:59 GMT",
		"Monday, 01-Jun-70 00:00:00 GMT", "Fri, 31 Dec 1999 23:59:60 GMT", "Saturday, 29-Feb-00 12:00:00 GMT",
	} {
		f.Add(s, "")
		f.Add("", s)
	}
	now := time.Date(1999, 12, 31, 23, 59, 57, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ra, ms string) {
		h := http.Header{}
		if ra != "" {
			h.Set("Retry-After", ra)
		}
		if ms != "" {
			h.Set("Retry-After-Ms", ms)
		}
		d, ok := ParseRetryAfter(h, now)
		if !ok && d != 0 {
			t.Fatalf("invalid hint with a duration: %v", d)
		}
		if d < 0 {
			t.Fatalf("negative hint %v", d)
		}
		if ms != "" {
			return
		}
		v := strings.Trim(ra, " \t")
		// Digits: the same number of seconds strconv reads, saturated.
		if n, err := strconv.ParseUint(v, 10, 64); err == nil && v[0] != '+' {
			want := time.Duration(math.MaxInt64)
			if n <= math.MaxInt64/uint64(time.Second) {
				want = time.Duration(n) * time.Second
			}
			if !ok || d != want {
				t.Fatalf("%q = (%v, %v), want (%v, true)", ra, d, ok, want)
			}
			return
		}
		// An IMF-fixdate that net/http accepts must agree with it.
		if pt, err := time.Parse(http.TimeFormat, v); err == nil && pt.Format(http.TimeFormat) == v {
			want := max(pt.Sub(now), 0)
			if !ok || d != want {
				t.Fatalf("%q = (%v, %v), want (%v, true)", ra, d, ok, want)
			}
		}
	})
}

// B17 at the unit level: RateLimit (draft-ietf-httpapi-ratelimit-headers-10) gives a floor
// only without a valid Retry-After, only for an exhausted quota, and only when well formed.
func TestRateLimitReset(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
		ok     bool
	}{
		{"exhausted", http.Header{"Ratelimit": {`"default";r=0;t=5`}}, 5 * time.Second, true},
		{"token name", http.Header{"Ratelimit": {`default;r=0;t=7`}}, 7 * time.Second, true},
		{"quota left", http.Header{"Ratelimit": {`"default";r=3;t=5`}}, 0, false},
		{"no reset", http.Header{"Ratelimit": {`"default";r=0`}}, 0, false},
		{"longest exhausted", http.Header{"Ratelimit": {`"a";r=0;t=5, "b";r=9;t=60, "c";r=0;t=30`}}, 30 * time.Second, true},
		{"over two lines", http.Header{"Ratelimit": {`"a";r=1;t=5`, `"b";r=0;t=12`}}, 12 * time.Second, true},
		{"other parameters", http.Header{"Ratelimit": {`"a";r=0;t=4;pk=:cHJvamVjdC0xMjM=:`}}, 4 * time.Second, true},
		{"quoted separators", http.Header{"Ratelimit": {`"a,b;c";r=0;t=3`}}, 3 * time.Second, true},
		{"Retry-After wins", http.Header{"Ratelimit": {`"default";r=0;t=5`}, "Retry-After": {"2"}}, 2 * time.Second, true},
		{"huge reset", http.Header{"Ratelimit": {`"default";r=0;t=1000000`}}, 1000000 * time.Second, true},
		{"negative r", http.Header{"Ratelimit": {`"default";r=-1;t=5`}}, 0, false},
		{"non-integer t", http.Header{"Ratelimit": {`"default";r=0;t=abc`}}, 0, false},
		{"fraction", http.Header{"Ratelimit": {`"default";r=0;t=1.5`}}, 0, false},
		{"missing r", http.Header{"Ratelimit": {`"default";t=5`}}, 0, false},
		{"not a list", http.Header{"Ratelimit": {`r=0, t=5; garbage(`}}, 0, false},
		{"one bad member voids all", http.Header{"Ratelimit": {`"a";r=0;t=5, (x)`}}, 0, false},
		{"16 digits", http.Header{"Ratelimit": {`"a";r=0;t=1234567890123456`}}, 0, false},
		{"uppercase key", http.Header{"Ratelimit": {`"a";R=0;t=5`}}, 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseRetryAfter(tt.header, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: ParseRetryAfter = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzRateLimit(f *testing.F) {
	for _, s := range []string{
		`"default";r=0;t=5`, `default;r=0;t=7`, `"a";r=0;t=5, "b";r=9;t=60`, `"a,b;c";r=0;t=3`,
		`"a";r=0;t=4;pk=:cHJvamVjdC0xMjM=:`, `"default";r=-1;t=5`, `r=0, t=5; garbage(`, `"\"";r=0;t=1`,
	} {
		f.Add(s)
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := ParseRetryAfter(http.Header{"Ratelimit": {v}}, now)
		switch {
		case !ok && d != 0:
			t.Fatalf("invalid field with a duration: %v", d)
		case d < 0:
			t.Fatalf("negative reset %v", d)
		case ok && !strings.Contains(v, "r=0"):
			t.Fatalf("a reset from %q, which has no exhausted quota", v)
		}
	})
}
