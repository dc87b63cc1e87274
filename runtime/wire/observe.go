package wire

import (
	"context"
	"net/http"
	"sync/atomic"

	"github.com/retrygen/retrygen/runtime"
	"github.com/retrygen/retrygen/runtime/internal/outer"
)

// WithObserver reports every call, attempt and wait of the client to o, and why each
// call stopped (see runtime.Observer): an event stream as one call whose connections are
// its attempts, a paginated walk as one call with each page a call under it.
func WithObserver(o runtime.Observer) Option {
	return func(c *Client) { c.engine.Observer = o }
}

// Operation names the operation of the API description the request is for: its
// operationId ("" when the spec gives none) and the path template it is sent on, e.g.
// "/pets/{petId}", for the client's observer and runtime.CallInfoFrom.
func (r *Request) Operation(id, template string) {
	r.op.ID, r.op.Template = id, template
}

// KeyInBody says that the request's body carries the call's idempotency key, which the
// generated method filled, for the client's observer (runtime.CallInfo.KeySent).
func (r *Request) KeyInBody() { r.op.KeyInBody = true }

// observation is a call made of several engine calls, an event stream or a paginated
// walk, as the client's Observer sees it: one call, started with its first request.
type observation struct {
	kind runtime.CallKind
	o    runtime.Observer
	ctx  context.Context // CallStart's
	// mark makes a stream's engine calls report their attempts as the stream's, counted
	// there.
	mark  *outer.Call
	ended *atomic.Bool // once the call is reported ended; a stream's Close may race its Next
}

// context returns the context an engine call of the observed call is made under: ctx,
// the first time, started as the observed call with req, then what that gave.
func (ob *observation) context(ctx context.Context, c *Client, op runtime.Operation, req *http.Request, p *runtime.Policy, opts []runtime.CallOption) context.Context {
	if ob.o != nil {
		return ob.ctx
	}
	ob.o = c.engine.Observer
	info := c.engine.CallInfo(op, req, p, opts...)
	info.Kind = ob.kind
	if ob.kind == runtime.KindWalk {
		info.URL = "" // each page has its own
	}
	if ob.ctx = ob.o.CallStart(ctx, info); ob.ctx == nil {
		ob.ctx = ctx
	}
	ob.ended = new(atomic.Bool)
	if ob.kind == runtime.KindStream {
		ob.mark = new(outer.Call)
		ob.ctx = outer.With(ob.ctx, ob.mark)
	}
	return ob.ctx
}

// attempts returns the attempts the observed call made.
func (ob *observation) attempts() int {
	if ob.mark == nil {
		return 0
	}
	return int(ob.mark.Attempts.Load())
}

// end reports how the observed call ended, after attempts, with err; nothing when it was
// never started or has ended already.
func (ob *observation) end(attempts int, err error, gaveUp bool) {
	if ob.o == nil || !ob.ended.CompareAndSwap(false, true) {
		return
	}
	r := runtime.CallResult{Attempts: attempts, Stop: runtime.StopReasonOf(err), Err: err, GaveUp: gaveUp}
	if e := asRuntimeError(err); e != nil {
		r.StatusCode = e.StatusCode
	}
	ob.o.CallEnd(ob.ctx, r)
}

// wait reports a wait of the observed call.
func (ob *observation) wait(w runtime.WaitInfo) {
	if ob.o != nil {
		ob.o.Wait(ob.ctx, w)
	}
}

// layerObserver returns the client's observer for OneRetryLayer, nil when it has none
// that hears of it.
func (c *Client) layerObserver() any {
	if o, ok := c.engine.Observer.(runtime.LayerObserver); ok {
		return o
	}
	return nil
}
