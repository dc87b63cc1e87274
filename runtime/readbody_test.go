package runtime

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// cutBody yields part of a body, then fails as a connection closed mid-body does.
type cutBody struct{ r io.Reader }

func (b *cutBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

func (b *cutBody) Close() error { return nil }

// cutShortThenWhole answers 200 with a body cut short on the first attempt, whole after.
func cutShortThenWhole(n int, _ *http.Request) (*http.Response, error) {
	resp := response(200, nil, `{"id":7,"name":"Rex"}`)
	if n == 1 {
		resp.Body = &cutBody{r: strings.NewReader(`{"id":7,"na`)}
	}
	return resp, nil
}

// RFC 9112 §8: a body cut short is an incomplete message. With ReadBody it is a failed
// attempt: retried when the operation is retry-safe, reported otherwise.
func TestReadBodyCutShort(t *testing.T) {
	t.Run("retry-safe", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := &stub{fn: cutShortThenWhole}
			p := idempotent()
			p.ReadBody = true
			resp, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil || string(b) != `{"id":7,"name":"Rex"}` || s.count() != 2 {
				t.Fatalf("body %q, %v after %d attempts; want the whole body after 2", b, err, s.count())
			}
		})
	})
	t.Run("not retry-safe", func(t *testing.T) {
		s := &stub{fn: cutShortThenWhole}
		p := idempotent()
		p.ReadBody, p.Idempotent = true, false
		_, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "POST", testURL, nil), p)
		if e := mustError(t, err); e.Attempts != 1 || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("err = %v after %d attempts; want io.ErrUnexpectedEOF after 1", err, e.Attempts)
		}
	})
	t.Run("off: the body streams to the caller", func(t *testing.T) {
		s := &stub{fn: cutShortThenWhole}
		resp, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), idempotent())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if _, err := io.ReadAll(resp.Body); !errors.Is(err, io.ErrUnexpectedEOF) || s.count() != 1 {
			t.Fatalf("read error %v after %d attempts; want the cut-short body handed over after 1", err, s.count())
		}
	})
}

// slowBody sends nothing until its request's context ends.
type slowBody struct{ ctx context.Context }

func (b *slowBody) Read([]byte) (int, error) { <-b.ctx.Done(); return 0, b.ctx.Err() }
func (b *slowBody) Close() error             { return nil }

// With ReadBody the attempt timeout covers the body too: a body that outlasts it is a
// timed-out attempt, retried, and the caller's context is untouched.
func TestReadBodyAttemptTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &stub{fn: func(n int, r *http.Request) (*http.Response, error) {
			resp := response(200, nil, "ok")
			if n == 1 {
				resp.Body = &slowBody{ctx: r.Context()}
			}
			return resp, nil
		}}
		p := idempotent()
		p.ReadBody, p.AttemptTimeout = true, time.Second
		start := time.Now()
		resp, err := engineFor(s, 0.5).Do(t.Context(), newRequest(t, t.Context(), "GET", testURL, nil), p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if el := time.Since(start); el != time.Second+50*time.Millisecond || s.count() != 2 {
			t.Fatalf("%d attempts in %v; want 2 in 1s + 50ms", s.count(), el)
		}
	})
}
