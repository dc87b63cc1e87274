package e2e

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/retrygen/retrygen/e2e/faultapi"
	"github.com/retrygen/retrygen/examples/petstore/client"
	"github.com/retrygen/retrygen/runtime"
)

// B1: a GET answered 503, 503, 200 is retried twice and decodes the final answer; the
// waits are the document's backoff (ceilings 100ms, then 200ms) and exactly the gaps the
// server saw.
func TestGetRetriedUntilSuccess(t *testing.T) {
	bubble(t, func(t *testing.T, e *env) {
		srv := e.serve(petstoreAddr, status(503), status(503), reply(200, petJSON))
		pet, err := e.petstore().GetPet(t.Context(), 7)
		if err != nil {
			t.Fatal(err)
		}
		if pet.ID != 7 || pet.Name != "Rex" || pet.Species != client.SpeciesDog {
			t.Errorf("pet = %+v", pet)
		}
		if n := srv.count(); n != 3 {
			t.Errorf("%d arrivals, want 3", n)
		}
		ev := e.events()
		if len(ev) != 2 {
			t.Fatalf("%d retries reported, want 2", len(ev))
		}
		gaps := srv.gaps()
		for i, ceiling := range []time.Duration{100 * time.Millisecond, 200 * time.Millisecond} {
			if ev[i].Attempt != i+1 || ev[i].StatusCode != 503 || ev[i].Err != nil || ev[i].Method != "GET" {
				t.Errorf("retry %d: %+v", i+1, ev[i])
			}
			if ev[i].Wait < 0 || ev[i].Wait >= ceiling {
				t.Errorf("wait %d = %v, want [0, %v)", i+1, ev[i].Wait, ceiling)
			}
			if gaps[i] != ev[i].Wait {
				t.Errorf("gap %d = %v, but the hook reported a wait of %v", i+1, gaps[i], ev[i].Wait)
			}
		}
	})
}

// B2: Retry-After on the wire, as delay-seconds and as an HTTP-date, is a floor under the
// backoff; one too long to wait for, or past the deadline, ends the call at once; a
// backoff wait that cannot end before the deadline is not started; cancelling during a
// wait returns at once.
func TestRetryAfterOnTheWire(t *testing.T) {
	// One listPets call against a server whose first answer is first, then 200.
	gap := func(t *testing.T, first step) time.Duration {
		var g time.Duration
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, first, reply(200, "[]"))
			if _, err := e.petstore().ListPets(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
			if n := srv.count(); n != 2 {
				t.Fatalf("%d arrivals, want 2", n)
			}
			g = srv.gaps()[0]
			if ev := e.events(); len(ev) != 1 || ev[0].Wait != g {
				t.Errorf("retries reported: %+v; want one with the gap %v as its wait", ev, g)
			}
		})
		return g
	}
	t.Run("delay-seconds", func(t *testing.T) {
		if g := gap(t, status(429, "Retry-After", "1")); g < time.Second || g >= 1100*time.Millisecond {
			t.Errorf("gap %v, want 1s plus under 100ms of backoff", g)
		}
	})
	t.Run("HTTP-date", func(t *testing.T) {
		in2s := func(w http.ResponseWriter, r *http.Request, a *arrival) {
			status(503, "Retry-After", time.Now().Add(2*time.Second).UTC().Format(http.TimeFormat))(w, r, a)
		}
		if g := gap(t, in2s); g < 2*time.Second || g >= 2100*time.Millisecond {
			t.Errorf("gap %v, want 2s plus under 100ms of backoff", g)
		}
	})
	t.Run("retry-after-ms", func(t *testing.T) {
		if g := gap(t, status(503, "Retry-After-Ms", "1500")); g < 1500*time.Millisecond || g >= 1600*time.Millisecond {
			t.Errorf("gap %v, want 1.5s plus under 100ms of backoff", g)
		}
	})

	// Calls that must end at once, after one attempt, with the server's hint.
	endsAtOnce := func(t *testing.T, ctx func(context.Context) (context.Context, context.CancelFunc), first step, hint time.Duration) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, first, reply(200, petJSON))
			c, cancel := ctx(t.Context())
			defer cancel()
			start := time.Now()
			_, err := e.petstore().GetPet(c, 7)
			if d := time.Since(start); d != 0 {
				t.Errorf("the call took %v, want it to end at once", d)
			}
			apiErr := mustAPIError(t, err)
			if !errors.Is(err, client.ErrRetryAfterTooLong) || apiErr.StatusCode != 503 || apiErr.Attempts != 1 {
				t.Errorf("err = %v (attempts %d, status %d); want ErrRetryAfterTooLong after 1 attempt", err, apiErr.Attempts, apiErr.StatusCode)
			}
			if apiErr.RetryAfter != hint {
				t.Errorf("the error carries the hint %v, want the server's %v", apiErr.RetryAfter, hint)
			}
			time.Sleep(time.Hour)
			if n := srv.count(); n != 1 {
				t.Errorf("%d arrivals, want 1", n)
			}
		})
	}
	noDeadline := func(ctx context.Context) (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }
	t.Run("over maxRetryAfter", func(t *testing.T) {
		endsAtOnce(t, noDeadline, status(503, "Retry-After", "31536000"), 365*24*time.Hour)
	})
	t.Run("HTTP-date a day ahead", func(t *testing.T) {
		endsAtOnce(t, noDeadline, func(w http.ResponseWriter, r *http.Request, a *arrival) {
			status(503, "Retry-After", time.Now().Add(24*time.Hour).UTC().Format(http.TimeFormat))(w, r, a)
		}, 24*time.Hour)
	})
	t.Run("past the deadline", func(t *testing.T) {
		// 3s is under maxRetryAfter (5s) but past the call's 2s deadline.
		endsAtOnce(t, func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 2*time.Second)
		}, status(503, "Retry-After", "3"), 3*time.Second)
	})

	t.Run("backoff past the deadline is not started", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(503), reply(200, petJSON))
			c := e.petstore(client.WithPolicyOverride(func(p *client.Policy) {
				p.InitialDelay, p.MaxDelay, p.Jitter = time.Second, time.Second, "none"
			}))
			ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := c.GetPet(ctx, 7)
			if d := time.Since(start); d != 0 {
				t.Errorf("the call took %v, want it to end at once rather than wait 1s past a 500ms deadline", d)
			}
			if apiErr := mustAPIError(t, err); !errors.Is(err, context.DeadlineExceeded) || apiErr.StatusCode != 503 {
				t.Errorf("err = %v, want the 503 with context.DeadlineExceeded", err)
			}
			if n, ev := srv.count(), e.events(); n != 1 || len(ev) != 0 {
				t.Errorf("%d arrivals and %d retries, want 1 and 0", n, len(ev))
			}
		})
	})

	t.Run("cancel during the wait", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(503), reply(200, petJSON))
			c := e.petstore(client.WithPolicyOverride(func(p *client.Policy) {
				p.InitialDelay, p.MaxDelay, p.Jitter = 10*time.Second, 10*time.Second, "none"
			}))
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(time.Second, cancel)
			start := time.Now()
			_, err := c.GetPet(ctx, 7)
			if d := time.Since(start); d != time.Second {
				t.Errorf("the call returned after %v, want exactly 1s, when it was cancelled", d)
			}
			if apiErr := mustAPIError(t, err); !errors.Is(err, context.Canceled) || apiErr.Attempts != 1 {
				t.Errorf("err = %v, want context.Canceled after 1 attempt", err)
			}
			time.Sleep(time.Hour)
			if n := srv.count(); n != 1 {
				t.Errorf("%d arrivals, want 1: the cancelled call must not send again", n)
			}
		})
	})
}

// B3: PUT and DELETE are idempotent (RFC 9110 §9.2.2), so a 503 is retried; the PUT's body
// is sent byte for byte again; updatePet's 300ms attempt timeout is retried too.
func TestPutAndDeleteRetried(t *testing.T) {
	t.Run("PUT", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(503), echo)
			body := client.NewPet{Name: "Rex", Species: client.SpeciesDog, Tag: ptr("good boy")}
			pet, err := e.petstore().UpdatePet(t.Context(), 7, body)
			if err != nil {
				t.Fatal(err)
			}
			if pet.Name != "Rex" {
				t.Errorf("pet = %+v", pet)
			}
			if n := srv.count(); n != 2 {
				t.Fatalf("%d arrivals, want 2", n)
			}
			want := mustJSON(t, body)
			for i := range 2 {
				if a := srv.got(i); a.Method != "PUT" || !bytes.Equal(a.Body, want) {
					t.Errorf("arrival %d: %s %s, want PUT %s", i+1, a.Method, a.Body, want)
				}
			}
		})
	})
	t.Run("DELETE", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(503), reply(204, ""))
			if err := e.petstore().DeletePet(t.Context(), 7); err != nil {
				t.Fatal(err)
			}
			if n := srv.count(); n != 2 || srv.got(1).Method != "DELETE" {
				t.Errorf("%d arrivals, want 2 DELETEs", n)
			}
		})
	})
	t.Run("PUT attempt timeout", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, hold(time.Second, echo), echo)
			start := time.Now()
			_, err := e.petstore().UpdatePet(t.Context(), 7, client.NewPet{Name: "Rex", Species: client.SpeciesDog})
			if err != nil {
				t.Fatal(err)
			}
			ev := e.events()
			if len(ev) != 1 || !errors.Is(ev[0].Err, context.DeadlineExceeded) {
				t.Fatalf("retries: %+v; want one after the attempt timed out", ev)
			}
			if d := time.Since(start); d != 300*time.Millisecond+ev[0].Wait {
				t.Errorf("the call took %v, want the 300ms attempt timeout plus the %v wait", d, ev[0].Wait)
			}
			if n := srv.count(); n != 2 {
				t.Errorf("%d arrivals, want 2", n)
			}
		})
	})
}

// B4: a POST or PATCH with no idempotency key is sent once on a 503: the error is the 503
// itself after one attempt, saying the operation is not retry-safe, and no wait.
func TestNonIdempotentNotRetried(t *testing.T) {
	check := func(t *testing.T, e *env, srv *server, err error, method string) {
		t.Helper()
		apiErr := mustAPIError(t, err)
		if apiErr.StatusCode != 503 || apiErr.Attempts != 1 || !errors.Is(err, runtime.ErrNotRetrySafe) || errors.Is(err, client.ErrExhausted) {
			t.Errorf("err = %v (status %d, attempts %d, cause %v); want the 503 after 1 attempt, not retry-safe",
				err, apiErr.StatusCode, apiErr.Attempts, apiErr.Cause)
		}
		if n, ev := srv.count(), e.events(); n != 1 || len(ev) != 0 || srv.got(0).Method != method {
			t.Errorf("%d arrivals and %d retries, want one %s and none", n, len(ev), method)
		}
	}
	t.Run("POST", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(503), reply(200, petJSON))
			start := time.Now()
			_, err := e.petstore().FeedPet(t.Context(), 7, client.Meal{Food: "kibble"})
			check(t, e, srv, err, "POST")
			if d := time.Since(start); d != 0 {
				t.Errorf("the call took %v", d)
			}
			var problem *client.Problem
			if !errors.As(err, &problem) || problem.Code != 503 {
				t.Errorf("the error model is not reachable: %v", err)
			}
		})
	})
	t.Run("PATCH", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(faultAddr, status(503), echo)
			_, err := e.faultapi().PatchItem(t.Context(), "a", faultapi.Item{Name: ptr("a")})
			check(t, e, srv, err, "PATCH")
		})
	})
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// B5: a POST or PATCH with x-idempotency-key, answered 503, 503, 200, is sent three times
// with one key (a random UUIDv4, sent bare), the same body each time; the next call has a
// new key; a key the caller gives is sent as given.
func TestIdempotencyKeyOnEveryAttempt(t *testing.T) {
	keys := func(srv *server) []string {
		var k []string
		for i := range srv.count() {
			k = append(k, srv.got(i).Header.Get("Idempotency-Key"))
		}
		return k
	}
	sameKey := func(t *testing.T, k []string, n int) {
		t.Helper()
		if len(k) != n {
			t.Fatalf("%d arrivals, want %d", len(k), n)
		}
		for _, key := range k {
			if key != k[0] {
				t.Fatalf("keys %q: not one key per call", k)
			}
		}
	}
	t.Run("POST", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(503), status(503), reply(201, petJSON), reply(201, petJSON))
			c := e.petstore()
			body := client.NewPet{Name: "Rex", Species: client.SpeciesDog}
			if _, err := c.CreatePet(t.Context(), body); err != nil {
				t.Fatal(err)
			}
			k := keys(srv)
			sameKey(t, k, 3)
			if !uuidV4.MatchString(k[0]) {
				t.Errorf("key %q is not a UUIDv4", k[0])
			}
			for i := range 3 {
				if a := srv.got(i); !bytes.Equal(a.Body, srv.got(0).Body) {
					t.Errorf("arrival %d's body %s differs from the first's %s", i+1, a.Body, srv.got(0).Body)
				}
			}
			if _, err := c.CreatePet(t.Context(), body); err != nil {
				t.Fatal(err)
			}
			if k2 := keys(srv)[3]; k2 == k[0] || !uuidV4.MatchString(k2) {
				t.Errorf("second call's key %q; want a new UUIDv4", k2)
			}
		})
	})
	t.Run("caller's key", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(503), status(503), reply(201, petJSON))
			_, err := e.petstore().CreatePet(t.Context(), client.NewPet{Name: "Rex", Species: client.SpeciesDog},
				client.WithIdempotencyKey("order 42: \"mine\""))
			if err != nil {
				t.Fatal(err)
			}
			k := keys(srv)
			sameKey(t, k, 3)
			if k[0] != `order 42: "mine"` {
				t.Errorf("key %q, want the caller's as given", k[0])
			}
		})
	})
	t.Run("declared Idempotency-Key parameter", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(502), reply(201, `{"id":1,"petId":7,"quantity":1}`), reply(201, `{"id":2,"petId":7,"quantity":1}`))
			c := e.petstore()
			order := client.Order{PetID: 7, Quantity: 1}
			if _, err := c.PlaceOrder(t.Context(), &client.PlaceOrderParams{IdempotencyKey: "order-1"}, order); err != nil {
				t.Fatal(err)
			}
			k := keys(srv)
			sameKey(t, k, 2)
			if k[0] != "order-1" {
				t.Errorf("key %q, want order-1", k[0])
			}
			if _, err := c.PlaceOrder(t.Context(), nil, order); err != nil {
				t.Fatal(err)
			}
			if k3 := keys(srv)[2]; !uuidV4.MatchString(k3) {
				t.Errorf("a call without a key sent %q, want a random UUIDv4", k3)
			}
		})
	})
	t.Run("PATCH", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(faultAddr, status(503), status(503), echo)
			if _, err := e.faultapi().PatchProfile(t.Context(), "ann", faultapi.Item{Name: ptr("Ann")}); err != nil {
				t.Fatal(err)
			}
			k := keys(srv)
			sameKey(t, k, 3)
			if !uuidV4.MatchString(k[0]) || srv.got(2).Method != "PATCH" {
				t.Errorf("key %q on %s", k[0], srv.got(2).Method)
			}
		})
	})
}

// B6: the idempotency draft's error codes (§2.7). A 409 (the original with this key still
// in progress) is retried with the same key where the spec lists 409, as the petstore's
// createPet does; retrygen's default statuses do not include it, so placeOrder, which does
// not list it, returns it. 422 (key reused with another payload) and 400 are terminal.
func TestIdempotencyErrorCodes(t *testing.T) {
	t.Run("409 then 201", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(409), reply(201, petJSON))
			if _, err := e.petstore().CreatePet(t.Context(), client.NewPet{Name: "Rex", Species: client.SpeciesDog}); err != nil {
				t.Fatal(err)
			}
			if n := srv.count(); n != 2 || srv.got(0).Header.Get("Idempotency-Key") != srv.got(1).Header.Get("Idempotency-Key") {
				t.Errorf("%d arrivals, want 2 with one key", n)
			}
		})
	})
	for _, code := range []int{422, 400} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			bubble(t, func(t *testing.T, e *env) {
				srv := e.serve(petstoreAddr, status(code), reply(201, petJSON))
				_, err := e.petstore().CreatePet(t.Context(), client.NewPet{Name: "Rex", Species: client.SpeciesDog})
				if apiErr := mustAPIError(t, err); apiErr.StatusCode != code || apiErr.Attempts != 1 || !errors.Is(err, runtime.ErrStatusNotRetried) {
					t.Errorf("err = %v, want the %d after 1 attempt", err, code)
				}
				if n := srv.count(); n != 1 {
					t.Errorf("%d arrivals, want 1", n)
				}
			})
		})
	}
	t.Run("409 where the spec does not list it", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(409), reply(201, `{"petId":7,"quantity":1}`))
			_, err := e.petstore().PlaceOrder(t.Context(), nil, client.Order{PetID: 7, Quantity: 1})
			if apiErr := mustAPIError(t, err); apiErr.StatusCode != 409 || srv.count() != 1 {
				t.Errorf("err = %v after %d arrivals, want the 409 after 1", err, srv.count())
			}
		})
	})
}

// B17: RateLimit fields (draft-ietf-httpapi-ratelimit-headers -10 §7). Retry-After takes
// precedence over a RateLimit reset, malformed RateLimit fields are ignored, an exhausted
// quota's reset is a floor on its own, and a reset beyond maxRetryAfter ends the call at once
// as a too-long Retry-After does (A8).
func TestRateLimitFields(t *testing.T) {
	gap := func(t *testing.T, header ...string) time.Duration {
		var g time.Duration
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(429, header...), reply(200, "[]"))
			if _, err := e.petstore().ListPets(t.Context(), nil); err != nil {
				t.Fatal(err)
			}
			if n := srv.count(); n != 2 {
				t.Fatalf("%d arrivals, want 2", n)
			}
			g = srv.gaps()[0]
		})
		return g
	}
	t.Run("Retry-After takes precedence", func(t *testing.T) {
		if g := gap(t, "RateLimit", `"default";r=0;t=5`, "Retry-After", "2"); g < 2*time.Second || g >= 2100*time.Millisecond {
			t.Errorf("gap %v, want Retry-After's 2s plus under 100ms of backoff", g)
		}
	})
	t.Run("malformed RateLimit ignored", func(t *testing.T) {
		for _, v := range []string{`"default";r=-1;t=5`, `"default";r=0;t=abc`, `r=0, t=5; garbage(`} {
			if g := gap(t, "RateLimit", v, "Retry-After", "1"); g < time.Second || g >= 1100*time.Millisecond {
				t.Errorf("RateLimit %s: gap %v, want Retry-After's 1s plus under 100ms", v, g)
			}
		}
	})
	t.Run("RateLimit alone is a floor", func(t *testing.T) {
		if g := gap(t, "RateLimit", `"default";r=0;t=5`); g < 5*time.Second || g >= 5100*time.Millisecond {
			t.Errorf("gap %v, want the reset's 5s plus under 100ms of backoff", g)
		}
		if g := gap(t, "RateLimit", `"default";r=4;t=5`); g >= 100*time.Millisecond {
			t.Errorf("gap %v: a quota with requests left is no floor, want plain backoff (< 100ms)", g)
		}
	})
	t.Run("a huge reset ends the call", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(429, "RateLimit", `"default";r=0;t=1000000`), reply(200, "[]"))
			start := time.Now()
			_, err := e.petstore().ListPets(t.Context(), nil)
			apiErr := mustAPIError(t, err)
			if !errors.Is(err, client.ErrRetryAfterTooLong) || apiErr.RetryAfter != 1000000*time.Second || apiErr.Attempts != 1 {
				t.Errorf("err = %v (attempts %d, hint %v); want ErrRetryAfterTooLong with the reset after 1 attempt", err, apiErr.Attempts, apiErr.RetryAfter)
			}
			if n, el := srv.count(), time.Since(start); n != 1 || el != 0 {
				t.Errorf("%d arrivals in %v; want 1, at once", n, el)
			}
		})
	})
}

// B18: each operation makes exactly the attempts its own policy says, never a product of
// settings: 5 from an operation's x-retry, 1 with x-retry: false, 4 with none, 3 from the
// document, 2 from a path; a client-wide override or a call option replaces the count.
// Over 100 concurrent calls arrivals are exactly calls × maxAttempts, with the client's
// own *http.Client and with the default one. The retry budget is off where the counts
// must be exact; with the default budget, arrivals stay within it.
//
// A Transport that retries by itself would multiply these counts: WithHTTPClient's doc
// comment says so, and no retrying layer is used here.
func TestPerOperationPolicyWithoutAmplification(t *testing.T) {
	for _, tc := range []struct {
		name string
		want int
		call func(t *testing.T, e *env) error
	}{
		{"operation maxAttempts 5", 5, func(t *testing.T, e *env) error {
			_, err := e.faultapi(faultapi.WithoutRetryBudget()).GetHourlyReport(t.Context())
			return err
		}},
		{"x-retry false", 1, func(t *testing.T, e *env) error {
			_, err := e.faultapi(faultapi.WithoutRetryBudget()).GetLiveReport(t.Context())
			return err
		}},
		{"no extension", 4, func(t *testing.T, e *env) error {
			_, err := e.faultapi(faultapi.WithoutRetryBudget()).GetDailyReport(t.Context())
			return err
		}},
		{"document", 3, func(t *testing.T, e *env) error {
			_, err := e.petstoreAt(faultURL, client.WithoutRetryBudget()).ListPets(t.Context(), nil)
			return err
		}},
		{"path", 2, func(t *testing.T, e *env) error {
			_, err := e.petstoreAt(faultURL, client.WithoutRetryBudget()).GetInventory(t.Context())
			return err
		}},
		{"operation overriding the document", 4, func(t *testing.T, e *env) error {
			_, err := e.petstoreAt(faultURL, client.WithoutRetryBudget()).UpdatePet(t.Context(), 1, client.NewPet{})
			return err
		}},
		{"client-wide override replaces", 2, func(t *testing.T, e *env) error {
			c := e.petstoreAt(faultURL, client.WithoutRetryBudget(), client.WithPolicyOverride(func(p *client.Policy) { p.MaxAttempts = 2 }))
			_, err := c.ListPets(t.Context(), nil)
			return err
		}},
		{"call option replaces", 6, func(t *testing.T, e *env) error {
			_, err := e.petstoreAt(faultURL, client.WithoutRetryBudget()).ListPets(t.Context(), nil, client.WithMaxAttempts(6))
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bubble(t, func(t *testing.T, e *env) {
				srv := e.serve(faultAddr, status(503))
				err := tc.call(t, e)
				if apiErr := mustAPIError(t, err); apiErr.Attempts != tc.want {
					t.Errorf("error after %d attempts, want %d", apiErr.Attempts, tc.want)
				}
				if n := srv.count(); n != tc.want {
					t.Errorf("%d arrivals, want %d", n, tc.want)
				}
			})
		})
	}

	// 100 concurrent listPets calls (3 attempts each) against a server that always says 503.
	calls := func(t *testing.T, c *client.Client) {
		t.Helper()
		var wg sync.WaitGroup
		for range 100 {
			wg.Go(func() {
				if _, err := c.ListPets(t.Context(), nil); err == nil {
					t.Error("a call succeeded against a server that always fails")
				}
			})
		}
		wg.Wait()
	}
	t.Run("100 calls, the client's own http.Client", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(503))
			calls(t, e.petstore(client.WithoutRetryBudget()))
			if n := srv.count(); n != 300 {
				t.Errorf("%d arrivals, want 100 calls × 3 attempts = 300", n)
			}
		})
	})
	t.Run("100 calls, the default http.Client", func(t *testing.T) {
		// A real loopback server: http.DefaultClient dials real sockets, so this runs
		// outside a bubble, with 1ms waits. Only the counts are checked.
		var (
			mu       sync.Mutex
			arrivals int
		)
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			arrivals++
			mu.Unlock()
			w.WriteHeader(503)
		}))
		defer ts.Close()
		defer http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		c := client.NewClient(client.WithBaseURL(ts.URL+"/v1"), client.WithoutRetryBudget(), client.WithPolicyOverride(func(p *client.Policy) {
			p.InitialDelay, p.MaxDelay = time.Millisecond, time.Millisecond
		}))
		calls(t, c)
		mu.Lock()
		defer mu.Unlock()
		if arrivals != 300 {
			t.Errorf("%d arrivals, want 300", arrivals)
		}
	})
	t.Run("100 calls within the default budget", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(503))
			calls(t, e.petstore())
			// Retries may add 10% of the calls plus 10 (one a second over the 10s
			// window) to the 100 first attempts.
			if n := srv.count(); n < 100 || n > 100+10+10 {
				t.Errorf("%d arrivals, want 100 first attempts plus at most 20 retries", n)
			}
		})
	})
}

func ptr[T any](v T) *T { return &v }

// The server's word, through generated clients: x-should-retry: true makes a POST
// without a key retried (OnRetry says why), Stripe-Should-Retry: false ends a GET at
// once with ErrServerSaidNoRetry, and WithoutServerRetrySignals or the operation's
// x-retry serverSignals: false leave each call to its policy alone.
func TestServerRetrySignals(t *testing.T) {
	t.Run("true retries a POST without a key", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(503, "x-should-retry", "true"), reply(200, petJSON))
			pet, err := e.petstore().FeedPet(t.Context(), 7, client.Meal{Food: "kibble"})
			if err != nil || pet.Name != "Rex" {
				t.Fatalf("FeedPet = %+v, %v", pet, err)
			}
			ev := e.events()
			if srv.count() != 2 || len(ev) != 1 || !ev[0].ServerSaidRetry || ev[0].StatusCode != 503 {
				t.Fatalf("%d arrivals, retries %+v; want 2 and one retry the server asked for", srv.count(), ev)
			}
			if !bytes.Equal(srv.got(0).Body, srv.got(1).Body) {
				t.Errorf("the retry sent %q after %q", srv.got(1).Body, srv.got(0).Body)
			}
		})
	})
	t.Run("false ends a GET", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(503, "Stripe-Should-Retry", "false"), reply(200, petJSON))
			_, err := e.petstore().GetPet(t.Context(), 7)
			apiErr := mustAPIError(t, err)
			if srv.count() != 1 || apiErr.Attempts != 1 || apiErr.StatusCode != 503 || !errors.Is(err, client.ErrServerSaidNoRetry) {
				t.Fatalf("err = %v after %d arrivals; want the 503 after 1, ErrServerSaidNoRetry", err, srv.count())
			}
		})
	})
	t.Run("WithoutServerRetrySignals", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(petstoreAddr, status(503, "x-should-retry", "true"), reply(200, petJSON))
			_, err := e.petstore(client.WithoutServerRetrySignals()).FeedPet(t.Context(), 7, client.Meal{Food: "kibble"})
			if srv.count() != 1 || !errors.Is(err, client.ErrNotRetrySafe) {
				t.Fatalf("err = %v after %d arrivals; want ErrNotRetrySafe after 1", err, srv.count())
			}
		})
	})
	t.Run("serverSignals: false in the spec", func(t *testing.T) {
		bubble(t, func(t *testing.T, e *env) {
			srv := e.serve(faultAddr, status(503, "x-should-retry", "false"), reply(200, `{"name":"audit"}`))
			item, err := e.faultapi().GetAuditReport(t.Context())
			if err != nil || srv.count() != 2 || *item.Name != "audit" {
				t.Fatalf("GetAuditReport = %+v, %v after %d arrivals; want the report after 2", item, err, srv.count())
			}
		})
	})
}
