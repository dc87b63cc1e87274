package runtime

import "time"

// CallOption changes one call's behaviour. Generated packages re-export these so that
// their users need not import this package.
type CallOption func(*callConfig)

type callConfig struct {
	maxAttempts    int // 0: the policy's
	noRetry        bool
	idempotencyKey string
	attemptTimeout time.Duration // 0: the policy's
	header         [][2]string
}

// WithMaxAttempts overrides the policy's MaxAttempts for one call; n < 1 keeps the policy's.
// It does not make a call retry-safe: an operation that is not retried stays so.
func WithMaxAttempts(n int) CallOption { return func(c *callConfig) { c.maxAttempts = n } }

// WithoutRetry sends the request once, whatever the policy says.
func WithoutRetry() CallOption { return func(c *callConfig) { c.noRetry = true } }

// WithIdempotencyKey sends key as the idempotency key of this call instead of a random one.
// It has no effect on an operation without an idempotency key header, or on a request that
// already carries that header.
func WithIdempotencyKey(key string) CallOption {
	return func(c *callConfig) { c.idempotencyKey = key }
}

// WithAttemptTimeout overrides the policy's AttemptTimeout for one call; d <= 0 keeps the
// policy's.
func WithAttemptTimeout(d time.Duration) CallOption {
	return func(c *callConfig) { c.attemptTimeout = d }
}

// WithHeader sets a header on every attempt of one call, replacing any value the request
// has for that key. Later WithHeader options for the same key win.
func WithHeader(key, value string) CallOption {
	return func(c *callConfig) { c.header = append(c.header, [2]string{key, value}) }
}
