package runtime

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

// engineAllocs is what Engine.Do allocates on a call answered at once with a 2xx, beyond
// http.Client.Do's own allocations for the same request: the attempt (one allocation that
// holds its state, its copy of the request, its cancelable context and the context's
// values, its trace and its response body) and the attempt's two trace hooks (GetConn,
// which counts net/http's own re-sends, and WroteRequest, which starts the response header
// timeout). The policy, the call options and the outcome stay on the stack.
const engineAllocs = 3

// Engine.Do costs engineAllocs allocations more than http.Client.Do with the default
// budget, and little more with every per-call feature on: breaker, the body read within
// the attempt and an attempt timeout. The counts are deterministic in memory, and
// http.Client.Do's own are measured alongside, so the first bound has no margin; the
// second allows one for a change in the context package.
func TestEngineAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	client := &http.Client{Transport: memTransport{}}
	ctx := context.Background()
	call := func(e *Engine, p *Policy) func() {
		return func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", "http://api.test/pets/1", nil)
			resp, err := e.Do(ctx, req, p)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	bare := testing.AllocsPerRun(100, func() {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://api.test/pets/1", nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	})

	p := benchGetPolicy()
	got := testing.AllocsPerRun(100, call(&Engine{HTTPClient: client, Budget: DefaultBudget()}, &p))
	if extra := got - bare; extra > engineAllocs {
		t.Errorf("Engine.Do with the default budget: %v allocations, %v more than http.Client.Do; want %d more", got, extra, engineAllocs)
	}

	full := benchGetPolicy()
	full.ReadBody, full.AttemptTimeout = true, 10*time.Second
	got = testing.AllocsPerRun(100, call(&Engine{HTTPClient: client, Budget: DefaultBudget(), Breaker: NewBreaker(5, time.Minute)}, &full))
	// The attempt timeout takes what context.WithTimeout takes (4 allocations), which is
	// then the attempt's cancelable context; the body read whole takes its buffer (1), in
	// place of the caller's own read.
	const timeout, read = 4, 1
	if extra := got - bare; extra > engineAllocs+timeout+read+1 {
		t.Errorf("Engine.Do with every feature: %v allocations, %v more than http.Client.Do; want %d more", got, extra, engineAllocs+timeout+read)
	}
}

// A call copies its request once, for its attempt, whatever it changes: a context other
// than the request's costs nothing more, and an idempotency key of the engine's own costs
// its header map and the key, 2 allocations more than the same key set by the caller.
func TestEngineCopiesTheRequestOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	e := &Engine{HTTPClient: &http.Client{Transport: memTransport{}}, Budget: DefaultBudget()}
	ctx := context.Background()
	other, cancel := context.WithCancel(ctx)
	defer cancel()
	call := func(method string, reqCtx context.Context, p *Policy, key string) func() {
		return func() {
			req, _ := http.NewRequestWithContext(reqCtx, method, "http://api.test/pets", nil)
			if key != "" {
				req.Header.Set("Idempotency-Key", key)
			}
			resp, err := e.Do(ctx, req, p)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
	}
	p := benchGetPolicy()
	same := testing.AllocsPerRun(100, call("GET", ctx, &p, ""))
	if got := testing.AllocsPerRun(100, call("GET", other, &p, "")); got != same {
		t.Errorf("a request built with another context: %v allocations; want %v, as with the call's", got, same)
	}
	keyed := benchGetPolicy()
	keyed.IdempotencyKey = "Idempotency-Key"
	callers := testing.AllocsPerRun(100, call("POST", ctx, &keyed, "8e03978e-40d5-43e8-bc93-6894a57f9324"))
	if got := testing.AllocsPerRun(100, call("POST", ctx, &keyed, "")); got-callers > 2 {
		t.Errorf("a key of the engine's own: %v allocations, %v more than the caller's key; want 2 more", got, got-callers)
	}
}

// Under a caller's context that can be canceled, an attempt's context is the context
// package's cancel context, which takes 2 allocations more (the context and its cancel
// function); the margin of one allows for a change in the context package.
func TestEngineAllocationsUnderACancelableContext(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	client := &http.Client{Transport: memTransport{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	do := func(send func(*http.Request) (*http.Response, error)) func() {
		return func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", "http://api.test/pets/1", nil)
			resp, err := send(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	bare := testing.AllocsPerRun(100, do(client.Do))
	e := &Engine{HTTPClient: client, Budget: DefaultBudget()}
	p := benchGetPolicy()
	got := testing.AllocsPerRun(100, do(func(req *http.Request) (*http.Response, error) { return e.Do(ctx, req, &p) }))
	const cancelContext = 2
	if extra := got - bare; extra > engineAllocs+cancelContext+1 {
		t.Errorf("Engine.Do under a cancelable context: %v allocations, %v more than http.Client.Do; want %d more", got, extra, engineAllocs+cancelContext)
	}
}
