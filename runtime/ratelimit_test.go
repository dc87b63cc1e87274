package runtime

import (
	"net/http"
	"testing"
	"time"
)

// The rate limit headers of GitHub, OpenAI, the IETF draft and its earlier fields read
// into one view; what does not parse is left out, not guessed at.
func TestParseRateLimit(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return now.Add(d) }
	tests := []struct {
		name string
		h    http.Header
		want RateLimit
	}{
		{"none", http.Header{}, RateLimit{Limit: -1, Remaining: -1, Used: -1}},
		{"github", http.Header{"X-Ratelimit-Limit": {"5000"}, "X-Ratelimit-Remaining": {"4999"}, "X-Ratelimit-Used": {"1"}, "X-Ratelimit-Reset": {"1772370000"}},
			RateLimit{Limit: 5000, Remaining: 4999, Used: 1, Reset: time.Unix(1772370000, 0)}},
		{"reset in seconds", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"30"}},
			RateLimit{Limit: -1, Remaining: 0, Used: -1, Reset: at(30 * time.Second)}},
		{"openai", http.Header{"X-Ratelimit-Limit-Requests": {"60"}, "X-Ratelimit-Remaining-Requests": {"59"}, "X-Ratelimit-Reset-Requests": {"1s"}},
			RateLimit{Limit: 60, Remaining: 59, Used: -1, Reset: at(time.Second)}},
		{"draft fields", http.Header{"Ratelimit-Limit": {"100"}, "Ratelimit-Remaining": {"7"}, "Ratelimit-Reset": {"50"}},
			RateLimit{Limit: 100, Remaining: 7, Used: -1, Reset: at(50 * time.Second)}},
		{"structured", http.Header{"Ratelimit": {`"default";r=50;t=30`}, "Ratelimit-Policy": {`"default";q=100;w=60`}},
			RateLimit{Limit: 100, Remaining: 50, Used: -1, Reset: at(30 * time.Second)}},
		{"fewest left", http.Header{"Ratelimit": {`"hour";r=500;t=3000, "minute";r=2;t=20`}, "Ratelimit-Policy": {`"hour";q=1000, "minute";q=10`}},
			RateLimit{Limit: 10, Remaining: 2, Used: -1, Reset: at(20 * time.Second)}},
		{"structured wins", http.Header{"Ratelimit": {`"d";r=1`}, "X-Ratelimit-Remaining": {"9"}},
			RateLimit{Limit: -1, Remaining: 1, Used: -1}},
		{"malformed structured falls back", http.Header{"Ratelimit": {`(x)`}, "X-Ratelimit-Remaining": {"9"}},
			RateLimit{Limit: -1, Remaining: 9, Used: -1}},
		{"negative", http.Header{"X-Ratelimit-Remaining": {"-1"}, "X-Ratelimit-Limit": {"10"}}, RateLimit{Limit: 10, Remaining: -1, Used: -1}},
		{"fraction", http.Header{"X-Ratelimit-Remaining": {"1.5"}}, RateLimit{Limit: -1, Remaining: -1, Used: -1}},
		{"twice", http.Header{"X-Ratelimit-Remaining": {"1", "2"}}, RateLimit{Limit: -1, Remaining: -1, Used: -1}},
		{"huge", http.Header{"X-Ratelimit-Remaining": {"99999999999999999999999"}}, RateLimit{Limit: -1, Remaining: -1, Used: -1}},
		{"huge reset", http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"9000000000000"}},
			RateLimit{Limit: -1, Remaining: 0, Used: -1, Reset: at(100 * 365 * 24 * time.Hour)}},
		{"bad duration", http.Header{"X-Ratelimit-Remaining-Requests": {"3"}, "X-Ratelimit-Reset-Requests": {"soon"}},
			RateLimit{Limit: -1, Remaining: 3, Used: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseRateLimit(tt.h, now)
			if got != tt.want {
				t.Errorf("ParseRateLimit = %+v, want %+v", got, tt.want)
			}
			if got.Known() != (tt.name != "none" && tt.name != "fraction" && tt.name != "twice" && tt.name != "huge") {
				t.Errorf("Known() = %v", got.Known())
			}
		})
	}
}
