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

// WithMaxAttempts overrides the policy's MaxAttempts for one call.
func WithMaxAttempts(n int) CallOption { return func(c *callConfig) { c.maxAttempts = n } }

// WithoutRetry sends the request once, whatever the policy says.
func WithoutRetry() CallOption { return func(c *callConfig) { c.noRetry = true } }

// WithIdempotencyKey sends key as the idempotency key of this call instead of a random one.
func WithIdempotencyKey(key string) CallOption {
	return func(c *callConfig) { c.idempotencyKey = key }
}

// WithAttemptTimeout overrides the policy's AttemptTimeout for one call.
func WithAttemptTimeout(d time.Duration) CallOption {
	return func(c *callConfig) { c.attemptTimeout = d }
}

// WithHeader adds a header to every attempt of one call.
func WithHeader(key, value string) CallOption {
	return func(c *callConfig) { c.header = append(c.header, [2]string{key, value}) }
}
