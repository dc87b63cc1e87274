package wire

import "github.com/retrygen/retrygen/runtime"

// NewIdempotencyKey returns a fresh idempotency key (a random UUIDv4) for a method whose
// key is a property of the request body: the method puts it into the body once, when the
// caller left the property empty, and the body, encoded once, carries the same key on
// every attempt.
func NewIdempotencyKey() string { return runtime.NewIdempotencyKey() }
