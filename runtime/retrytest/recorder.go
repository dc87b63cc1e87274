package retrytest

import (
	"context"
	"slices"
	"sync"

	"github.com/retrygen/retrygen/runtime"
)

// Recorder is an Observer (WithObserver in a generated package) that records what it
// sees, for a test to assert on: "3 attempts, resend counts 1 and 2, stopped: exhausted".
//
//	rec := new(retrytest.Recorder)
//	c := petstore.NewClient(petstore.WithBaseURL(url), petstore.WithObserver(rec), petstore.WithHTTPClient(tr.Client()))
//	_, err := c.GetPet(ctx, 1)
//	call := rec.Calls()[0]
//	// call.ResendCounts() == []int{0, 1, 2}, call.Result.Stop == runtime.StopExhausted
//
// It is safe for concurrent use; the zero value is ready to use.
type Recorder struct {
	mu         sync.Mutex
	calls      []*RecordedCall
	suppressed []runtime.SuppressInfo
}

// RecordedCall is one call as a Recorder saw it.
type RecordedCall struct {
	Info     runtime.CallInfo
	Attempts []RecordedAttempt
	Waits    []runtime.WaitInfo
	// Result is how the call ended; Ended is false until it has.
	Result runtime.CallResult
	Ended  bool
	// Parent is the index in Calls of the call this one was made under (the walk of a
	// page's call), -1 for none.
	Parent int
}

// RecordedAttempt is one attempt of a call. Its Info holds no header: the attempt's
// header is its own, and may carry credentials.
type RecordedAttempt struct {
	Info   runtime.AttemptInfo
	Result runtime.AttemptResult
	Ended  bool
}

// ResendCounts returns the resend count of each attempt, in order: 0, 1, 2 for three.
func (c RecordedCall) ResendCounts() []int {
	counts := make([]int, len(c.Attempts))
	for i, a := range c.Attempts {
		counts[i] = a.Info.ResendCount
	}
	return counts
}

// Statuses returns the status each attempt got, 0 for none, in order.
func (c RecordedCall) Statuses() []int {
	codes := make([]int, len(c.Attempts))
	for i, a := range c.Attempts {
		codes[i] = a.Result.StatusCode
	}
	return codes
}

// Calls returns copies of the calls recorded so far, in the order they started.
func (r *Recorder) Calls() []RecordedCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]RecordedCall, len(r.calls))
	for i, c := range r.calls {
		out[i] = *c
		out[i].Attempts = slices.Clone(c.Attempts)
		out[i].Waits = slices.Clone(c.Waits)
	}
	return out
}

// Suppressions returns the answers OneRetryLayer marked X-Should-Retry: false after a
// call the Recorder saw gave up (see runtime.LayerObserver), in order.
func (r *Recorder) Suppressions() []runtime.SuppressInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.suppressed)
}

// Reset forgets what was recorded so far.
func (r *Recorder) Reset() {
	r.mu.Lock()
	r.calls, r.suppressed = nil, nil
	r.mu.Unlock()
}

type recordKey struct{ r *Recorder }

// recorded is what a Recorder's contexts carry: the call, and the attempt of it.
type recorded struct {
	call    *RecordedCall
	index   int // the call's, in r.calls
	attempt int // the attempt's, in call.Attempts; -1 outside an attempt
}

func (r *Recorder) from(ctx context.Context) *recorded {
	v, _ := ctx.Value(recordKey{r}).(*recorded)
	return v
}

// CallStart records a call.
func (r *Recorder) CallStart(ctx context.Context, info runtime.CallInfo) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &RecordedCall{Info: info, Parent: -1}
	if p := r.from(ctx); p != nil {
		c.Parent = p.index
	}
	r.calls = append(r.calls, c)
	return context.WithValue(ctx, recordKey{r}, &recorded{call: c, index: len(r.calls) - 1, attempt: -1})
}

// AttemptStart records an attempt of the call of ctx.
func (r *Recorder) AttemptStart(ctx context.Context, info runtime.AttemptInfo) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	rc := r.from(ctx)
	if rc == nil {
		return ctx
	}
	info.Header = nil
	rc.call.Attempts = append(rc.call.Attempts, RecordedAttempt{Info: info})
	return context.WithValue(ctx, recordKey{r}, &recorded{call: rc.call, index: rc.index, attempt: len(rc.call.Attempts) - 1})
}

// AttemptEnd records how the attempt of ctx ended.
func (r *Recorder) AttemptEnd(ctx context.Context, result runtime.AttemptResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rc := r.from(ctx); rc != nil && rc.attempt >= 0 {
		a := &rc.call.Attempts[rc.attempt]
		a.Result, a.Ended = result, true
	}
}

// Wait records a wait of the call of ctx.
func (r *Recorder) Wait(ctx context.Context, info runtime.WaitInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rc := r.from(ctx); rc != nil {
		rc.call.Waits = append(rc.call.Waits, info)
	}
}

// CallEnd records how the call of ctx ended.
func (r *Recorder) CallEnd(ctx context.Context, result runtime.CallResult) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if rc := r.from(ctx); rc != nil {
		rc.call.Result, rc.call.Ended = result, true
	}
}

// Suppressed records an answer OneRetryLayer marked X-Should-Retry: false.
func (r *Recorder) Suppressed(_ context.Context, info runtime.SuppressInfo) {
	r.mu.Lock()
	r.suppressed = append(r.suppressed, info)
	r.mu.Unlock()
}

var _ runtime.LayerObserver = (*Recorder)(nil)
