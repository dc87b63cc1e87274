package runtime

import "time"

// Jitter names how a backoff step is randomised.
type Jitter string

const (
	// JitterFull waits uniform [0, ceiling). It spreads clients that failed together best.
	JitterFull Jitter = "full"
	// JitterEqual waits ceiling/2 + uniform [0, ceiling/2).
	JitterEqual Jitter = "equal"
	// JitterDecorrelated waits min(MaxDelay, uniform [InitialDelay, 3 × the previous wait)).
	JitterDecorrelated Jitter = "decorrelated"
	// JitterNone waits the ceiling itself.
	JitterNone Jitter = "none"
)

// StatusCode is an HTTP status code, or a class of them: the single digits 1 to 5 stand for
// 1XX to 5XX.
type StatusCode int

// Status classes, for Policy.StatusCodes.
const (
	Class1XX StatusCode = 1
	Class2XX StatusCode = 2
	Class3XX StatusCode = 3
	Class4XX StatusCode = 4
	Class5XX StatusCode = 5
)

// Policy says how one operation is retried. Generated clients hold one per operation as a
// package-level literal; the zero value of a field means its default, as documented.
type Policy struct {
	// MaxAttempts is the number of attempts in total, the first included.
	MaxAttempts int
	// InitialDelay is the backoff ceiling of the first retry.
	InitialDelay time.Duration
	// MaxDelay caps one backoff step.
	MaxDelay time.Duration
	// Multiplier grows the ceiling from one step to the next.
	Multiplier float64
	// Jitter randomises each step; "" means JitterFull.
	Jitter Jitter
	// StatusCodes are the response statuses that are retried.
	StatusCodes []StatusCode
	// ConnectionErrors retries transport failures (reset, refused, timeout).
	ConnectionErrors bool
	// AttemptTimeout bounds each attempt; 0 means none.
	AttemptTimeout time.Duration
	// MaxElapsed bounds the whole call across attempts and waits; 0 leaves it to the context.
	MaxElapsed time.Duration
	// RetryAfter honours Retry-After and retry-after-ms as a floor under the backoff.
	RetryAfter bool
	// MaxRetryAfter is the longest server hint the engine waits for; a longer one ends the call.
	MaxRetryAfter time.Duration
	// Idempotent reports that the request may be repeated after it may have reached the
	// server: the method is safe or idempotent, or the operation carries an idempotency key.
	// When false only attempts whose connection could not be opened are retried.
	Idempotent bool
	// IdempotencyKey is the header that carries the call's idempotency key; "" sends none.
	IdempotencyKey string
}
