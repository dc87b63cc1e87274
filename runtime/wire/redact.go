package wire

import (
	"context"
	"errors"
	"log/slog"
	"net/url"

	"github.com/retrygen/retrygen/runtime"
)

// RedactURL returns u with its user information and every query value hidden, e.g.
// "https://api.example.com/v1/items?api_key=REDACTED": a query may carry an API key and
// a user name a token. A URL that does not parse is hidden whole. It is runtime.RedactURL.
func RedactURL(u string) string { return runtime.RedactURL(u) }

// redactError hides the query values of the URLs in err: the *runtime.Error's and those
// of any *url.Error it wraps.
func redactError(err error) error {
	if err == nil {
		return nil
	}
	if e := asRuntimeError(err); e != nil {
		e.URL = RedactURL(e.URL)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = RedactURL(ue.URL)
	}
	return err
}

// redactEvents wraps an OnRetry hook so that the URL it sees has no query values.
func redactEvents(fn func(runtime.RetryEvent)) func(runtime.RetryEvent) {
	if fn == nil {
		return nil
	}
	return func(ev runtime.RetryEvent) {
		ev.URL = RedactURL(ev.URL)
		if ev.Err != nil {
			ev.Err = redactError(ev.Err)
		}
		fn(ev)
	}
}

// redactHandler hides the query values of the "url" attribute of the records it passes
// on, and of errors' URLs.
type redactHandler struct{ slog.Handler }

func (h redactHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		switch {
		case a.Key == "url" && a.Value.Kind() == slog.KindString:
			a.Value = slog.StringValue(RedactURL(a.Value.String()))
		case a.Key == "error" && a.Value.Kind() == slog.KindString:
			a.Value = slog.StringValue(redactText(a.Value.String()))
		}
		out.AddAttrs(a)
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return redactHandler{h.Handler.WithAttrs(as)}
}

func (h redactHandler) WithGroup(name string) slog.Handler {
	return redactHandler{h.Handler.WithGroup(name)}
}

// redactText hides the query values of the quoted URLs in an error text, as *url.Error
// writes them: Get "https://host/path?api_key=...": reason.
func redactText(s string) string {
	out := []byte(nil)
	for {
		i := indexQuoted(s)
		if i < 0 {
			return string(append(out, s...))
		}
		start := i + 1
		end := start
		for end < len(s) && s[end] != '"' {
			end++
		}
		out = append(out, s[:start]...)
		out = append(out, RedactURL(s[start:end])...)
		s = s[end:]
	}
}

// indexQuoted returns the index of the quote that opens a URL with a query in s, -1 when
// none.
func indexQuoted(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != '"' {
			j++
		}
		if j < len(s) {
			for k := i + 1; k < j; k++ {
				if s[k] == '?' {
					return i
				}
			}
		}
		i = j
	}
	return -1
}
