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
}

// FixedNames returns the identifiers of the fixed part of generated code, in new slices
// the caller may change. The names of the options are ClientOptions' and CallOptions'.
func FixedNames() Reserved {
	r := Reserved{
		Package: []string{
			"APIError", "CallOption", "Client", "Date", "DateOf",
			"ErrBodyNotReplayable", "ErrBodyTooLarge", "ErrBudgetExhausted", "ErrCircuitOpen",
			"ErrConnectionErrorsOff", "ErrContentType", "ErrExhausted", "ErrManyVariants", "ErrNoLocation", "ErrNoVariant", "ErrNotRetrySafe", "ErrNotRetryable",
			"ErrOptionDoesNotApply", "ErrPageLink", "ErrPageLoop", "ErrRequestBody", "ErrRetriesOff", "ErrRetryAfterTooLong", "ErrServerSaidNoRetry",
			"ErrStatusNotRetried", "ErrStreamClosed", "ErrUndeclaredStatus",
			"EventStream", "File", "NewClient", "Null", "Nullable", "Option", "PageError", "ParseDate", "Policy", "Ptr",
			"ResponseInfo", "RetryEvent", "Some", "StreamError", "callOptions", "noCompare",
		},
		ClientMembers: []string{"wire"},
		Imports:       []string{"context", "http", "io", "iter", "json", "runtime", "slog", "time", "wire"},
		Locals:        []string{"c", "ctx", "params", "body", "opts", "r", "resp", "err", "out", "w", "stream", "pg"},
	}
	for _, o := range slices.Concat(clientOptions, callOptions) {
		r.Package = append(r.Package, o.Name)
	}
	return r
}
