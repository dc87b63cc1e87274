package runtime

import (
	"context"
	"fmt"
	"sync"
)

// rootContext is a cancelable context under a parent that is never canceled (its Done is
// nil): what context.WithCancelCause(parent) gives, without its two allocations (the
// context and its cancel function), as it lives in its attempt. Its done channel is made
// when first asked for. Canceled, its Err is context.Canceled; context.Cause finds no
// cause of the context package's in it, and gives that error too (the attempt keeps the
// cause itself; see attempt.cause).
//
// The contexts derived from the attempt's context (net/http's own, for each request it
// sends) register with it through AfterFunc, which the context package looks for on a
// context of another package's (see attemptContext.AfterFunc), and are canceled with it.
type rootContext struct {
	context.Context // the parent, whose Done is nil

	mu       sync.Mutex
	done     chan struct{} // made by Done or cancel, closed by cancel
	canceled bool
	afters   []func()  // registered by AfterFunc, run by cancel; a stopped one is nil
	inline   [2]func() // afters' first backing array: a request and one redirect
}

// closedDone is the done channel of a rootContext canceled before anyone asked for it.
var closedDone = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

func (c *rootContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
	}
	return c.done
}

func (c *rootContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.canceled {
		return context.Canceled
	}
	return nil
}

// cancel cancels the context and runs the functions registered with AfterFunc, in the
// calling goroutine, once the lock is released: the context package registers its
// children's cancel functions, which return at once. It may be called more than once; the
// cause is the attempt's to keep.
func (c *rootContext) cancel(error) {
	c.mu.Lock()
	if c.canceled {
		c.mu.Unlock()
		return
	}
	c.canceled = true
	if c.done == nil {
		c.done = closedDone
	} else {
		close(c.done)
	}
	afters := c.afters
	c.afters = nil
	c.mu.Unlock()
	for _, f := range afters {
		if f != nil {
			f()
		}
	}
}

// AfterFunc arranges for f to run when the context is canceled, at once in a goroutine of
// its own if it is already. stop unregisters f, and reports whether it did before f ran.
func (c *rootContext) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.canceled {
		go f()
		return func() bool { return false }
	}
	if c.afters == nil {
		c.afters = c.inline[:0]
	}
	i := len(c.afters)
	c.afters = append(c.afters, f)
	return func() bool { return c.stopAfter(i) }
}

// stopAfter unregisters the i-th function AfterFunc registered, unless cancel has taken it.
func (c *rootContext) stopAfter(i int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i >= len(c.afters) || c.afters[i] == nil {
		return false
	}
	c.afters[i] = nil
	return true
}

func (c *rootContext) String() string { return fmt.Sprint(c.Context) + ".WithCancel" }
