package webhook

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// What a handler returns decides the receiver's answer, and so what the sender does next:
//
//   - nil: 200, the delivery is done and the sender stops;
//   - RetryAfter(d): 503 with Retry-After, the sender comes back later, as Standard
//     Webhooks asks senders to honour;
//   - Gone(): 410, the receiver wants no more deliveries (Standard Webhooks' senders
//     disable the endpoint);
//   - ErrNotHandled (what UnimplementedWebhookHandler returns): 200, nothing to do;
//   - any other error: 500, the sender tries again on its schedule; or, when a call the
//     handler made through a generated client gave up for load reasons (its retries ran
//     out, the budget or the breaker refused, the server said not to retry), 503 with the
//     Retry-After that call was sent (cut to its policy's MaxRetryAfter): the upstream
//     is overloaded, and the sender should wait rather than add to it.

// ErrNotHandled is what a handler returns for a webhook it does not handle: the receiver
// acknowledges the delivery (200), so that the sender does not repeat it.
var ErrNotHandled = errors.New("webhook not handled")

// answer is an error that asks for a status: RetryAfter's and Gone's.
type answer struct {
	status int
	after  time.Duration
}

func (a *answer) Error() string {
	if a.status == http.StatusGone {
		return "webhook: gone, no more deliveries"
	}
	return "webhook: retry after " + a.after.String()
}

// RetryAfter returns the error a handler returns to have the delivery sent again after d:
// the receiver answers 503 with a Retry-After of d in seconds, rounded up (at least 1).
func RetryAfter(d time.Duration) error {
	return &answer{status: http.StatusServiceUnavailable, after: max(d, time.Second)}
}

// Gone returns the error a handler returns to stop the deliveries: the receiver answers
// 410 Gone, which Standard Webhooks' senders take as a request to disable the endpoint.
func Gone() error { return &answer{status: http.StatusGone} }

// Delivery describes the delivery a handler is called for; DeliveryFrom reads it from the
// handler's context.
type Delivery struct {
	// Webhook is the webhook's name in the spec, e.g. "batch_cancelled".
	Webhook string
	// ID is the delivery's id (x-webhook-id), "" when the spec names none.
	ID string
	// Body is the payload as received and verified: the members and union variants the
	// spec does not know (an API version newer than the client's) are there.
	Body []byte
	// Header is the request's header.
	Header http.Header
}

type deliveryKey struct{}

// DeliveryFrom returns the delivery a webhook handler's context was made for.
func DeliveryFrom(ctx context.Context) (Delivery, bool) {
	d, ok := ctx.Value(deliveryKey{}).(*Delivery)
	if !ok {
		return Delivery{}, false
	}
	return *d, true
}
