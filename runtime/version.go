package runtime

// SupportPackageIsVersion7 is referenced by every file retrygen generates. A generated
// client that needs a newer runtime than the one it is built against fails to compile with
// this name in the message, instead of misbehaving at run time. Version 7 clients are made
// by wire.New, which reports a bad option at the first call, take call options as client
// options (wire.WithCallDefaults), call wire.DoJSON and wire.DoRaw, get OAuth 2 tokens
// (wire.ClientCredentials, wire.RefreshToken, wire.TokenSource), stream uploads
// (wire.Reopen), accumulate streams (wire.Stream.Accumulate) and read rate limits
// (wire.ResponseInfo.RateLimit). They also report to an Observer (wire.WithObserver),
// open streams of JSON values one a line (wire.StreamConfig.Lines), and receive webhooks
// (package webhook, DedupeStore).
const SupportPackageIsVersion7 = true

// SupportPackageIsVersion6 is referenced by clients generated for version 6, which
// document APIError's DecodeBody (Error.DecodeBody), which their callers use to read an
// error body the spec gives no model; they still build against this runtime.
const SupportPackageIsVersion6 = true

// SupportPackageIsVersion5 is referenced by clients generated for version 5, which read and
// write their unions and objects with wire.Marshal and wire.Unmarshal, which follow the
// types' struct tags, re-export EventError, ErrEventTooLarge, ErrOutcomeUnknown and
// ErrTooManyPages, offer WithMaxEventSize, and fill idempotency keys in bodies with
// wire.NewIdempotencyKey; they still build against this runtime.
const SupportPackageIsVersion5 = true

// SupportPackageIsVersion4 is referenced by clients generated for version 4, which walk
// their pages with wire.Items, which yields pointers to object items, and call
// wire.MarshalUnion, wire.MarshalVariant and wire.MarshalObject; they still build against
// this runtime.
const SupportPackageIsVersion4 = true

// SupportPackageIsVersion3 is referenced by clients generated for version 3, which call
// the text, form-style, one-variant and error-model helpers of runtime/wire
// (wire.DecodeText, wire.StyledFormBody, wire.OneVariant, wire.Model) and wire.All; they
// still build against this runtime.
const SupportPackageIsVersion3 = true

// SupportPackageIsVersion2 is referenced by clients generated for version 2, the first
// whose clients call the helper package runtime/wire instead of carrying their own copy;
// they still build against this runtime. Version 1 clients must be regenerated.
const SupportPackageIsVersion2 = true
