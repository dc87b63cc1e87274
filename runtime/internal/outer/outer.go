// Package outer marks, in a context, an observed call that engine calls are part of: an
// event stream, whose connections are each an engine call and, for the observer, attempts
// of one call. runtime/wire's streams set it; runtime's engine reads it, and then reports
// attempts and waits but neither starts nor ends a call of its own.
package outer

import (
	"context"
	"sync/atomic"
)

// Call is an observed call that engine calls are part of. The engine calls run one after
// the other, on the goroutine that reads the stream; the stream's Close, on any other,
// reads Attempts when it ends the call.
type Call struct {
	// Attempts counts the attempts of every engine call made so far: the next attempt's
	// resend count.
	Attempts atomic.Int64
}

type key struct{}

// With returns ctx marked with c.
func With(ctx context.Context, c *Call) context.Context { return context.WithValue(ctx, key{}, c) }

// From returns the call ctx is marked with, nil when none.
func From(ctx context.Context) *Call {
	c, _ := ctx.Value(key{}).(*Call)
	return c
}
