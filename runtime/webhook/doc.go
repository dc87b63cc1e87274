// Package webhook receives the webhooks an API sends: it verifies each delivery's
// signature over the body as received, processes each delivery once however often the
// sender repeats it, and answers so that the sender retries, waits or stops as it should.
//
// A client that retrygen generates for a spec with webhooks (OpenAPI 3.1 webhooks, 3.0
// callbacks) declares a WebhookHandler interface, with a method per webhook, and
// NewWebhookReceiver, which builds this package's receiver from the spec's routes:
//
//	h, err := openai.NewWebhookReceiver(myHandler{}, openai.WithWebhookSecret(os.Getenv("OPENAI_WEBHOOK_SECRET")))
//	http.Handle("/webhooks/openai", h)
//
// How deliveries are signed and identified comes from the spec (x-webhook-signature,
// x-webhook-id), which an overlay can add to a spec one does not own. Handlers return
// nil, RetryAfter, Gone or another error; see RetryAfter for what each answers.
//
// The package uses the standard library only.
package webhook
