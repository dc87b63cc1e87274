package model

import "slices"

// Reserved lists the identifiers every generated file declares or imports by itself, so
// that the naming pass keeps spec-derived names clear of them. The emitter declares
// exactly these; a test of the emitter checks that the two agree.
type Reserved struct {
	// Package are the package-level identifiers of the fixed client surface, e.g.
	// "Client", "NewClient", "WithHeader".
	Package []string
	// ClientMembers are the fields and methods of Client, e.g. "wire".
	ClientMembers []string
	// Imports are the package names generated code may refer to, e.g. "http", "wire".
	Imports []string
	// Locals are the fixed local names of generated methods, e.g. "ctx", "params".
	Locals []string
	// Webhook are the package-level identifiers of the surface of a client whose spec has
	// webhooks, e.g. "WebhookHandler": reserved for every spec, so that adding a webhook
	// renames nothing. Its code names the package runtime/webhook at the package level
	// only, where no spec name is a local.
	Webhook []string
}

// FixedNames returns the identifiers of the fixed part of generated code, in new slices
// the caller may change. The options are ClientOptions and CallOptions; the errors,
// Sentinels.
func FixedNames() Reserved {
	r := Reserved{
		Package: []string{
			"APIError", "CallOption", "Client", "Date", "DateOf", "Deref", "EventError", "EventStream", "File", "NewClient",
			"Null", "Nullable", "OAuth2Token", "OAuth2TokenSource", "Observer", "Option", "PageError", "ParseDate", "Path",
			"Policy", "Ptr", "RateLimitStatus", "Reopen", "ResponseInfo", "RetryEvent", "Some", "StreamError",
			"callOptions", "clientOption", "endpoint", "noCompare",
		},
		ClientMembers: []string{"Do", "DoRaw", "Err", "wire"},
		Imports:       []string{"context", "http", "io", "iter", "json", "runtime", "slog", "time", "wire"},
		Locals:        []string{"c", "ctx", "params", "body", "opts", "r", "resp", "err", "out", "w", "stream", "pg"},
		Webhook: []string{
			"DedupeStore", "ErrDeliveryInProgress", "ErrWebhookBadSignature", "ErrWebhookNotHandled", "ErrWebhookNotSigned",
			"ErrWebhookTooNew", "ErrWebhookTooOld", "NewWebhookReceiver", "UnimplementedWebhookHandler", "WebhookDelivery",
			"WebhookDeliveryFrom", "WebhookGone", "WebhookHandler", "WebhookOption", "WebhookRetryAfter", "WithDedupeStore",
			"WithDedupeTTL", "WithWebhookLogger", "WithWebhookMaxBody", "WithWebhookSecret",
		},
	}
	for _, o := range slices.Concat(clientOptions, callOptions) {
		r.Package = append(r.Package, o.Name)
	}
	r.Package = append(r.Package, sentinels...)
	return r
}

// Sentinels returns the runtime's errors.Is targets, which the generated package
// re-exports under the same names, in a new slice the caller may change.
func Sentinels() []string { return slices.Clone(sentinels) }

var sentinels = []string{
	"ErrExhausted", "ErrBudgetExhausted", "ErrCircuitOpen", "ErrBodyNotReplayable", "ErrRetryAfterTooLong",
	"ErrStatusNotRetried", "ErrNotRetrySafe", "ErrNotRetryable", "ErrConnectionErrorsOff", "ErrBodyTooLarge",
	"ErrOptionDoesNotApply", "ErrRetriesOff", "ErrServerSaidNoRetry", "ErrRequestBody",
	"ErrContentType", "ErrTrailingData", "ErrUndeclaredStatus", "ErrStreamClosed", "ErrNoLocation", "ErrNoVariant", "ErrManyVariants",
	"ErrPageLoop", "ErrPageLink", "ErrTooManyPages", "ErrEventTooLarge", "ErrOutcomeUnknown", "ErrStreamIdle",
}
