package runtime

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/retrygen/retrygen/runtime/internal/shown"
)

// EventError is an error event a stream received in place of its events: an event of type
// "error" (Anthropic's overloaded_error, for one), an event whose data is a JSON object
// whose only member is "error" (OpenAI's form), or the error event the spec declares.
// It is never delivered as an ordinary event: before the first event it is that
// connection's failure, retried like the status it stands for; after it, it ends the
// stream (a stream error that errors.As reaches it through) unless the stream resumes.
type EventError struct {
	// Type is the event's type: "error", or "" for the data-only form.
	Type string
	// Code is the error's kind as the server names it ("overloaded_error",
	// "rate_limit_exceeded", "invalid_request_error"), or its numeric code as text; "" when
	// it names none.
	Code string
	// Message is the server's message, as it sent it.
	Message string
	// StatusCode is the HTTP status the error stands for (503 for an overloaded server, 429
	// for a rate limit, 400 for an invalid request, a status the error names itself), or 0
	// when it names none: such an error is not retried.
	StatusCode int
	// Data is the event's data, as received.
	Data []byte
	// Model is Data decoded into the error model the spec declares for StatusCode (or for
	// the stream's error event), with the request's credentials hidden in its strings; nil
	// when it declares none or the data does not decode. errors.As reaches it.
	Model any
}

// Unwrap returns Model when it is an error, as a generated error model is, so that
// errors.As reaches it.
func (e *EventError) Unwrap() error {
	err, _ := e.Model.(error)
	return err
}

// AnswerStatus returns StatusCode: an EventError is a FailedAnswer.
func (e *EventError) AnswerStatus() int { return e.StatusCode }

func (e *EventError) Error() string {
	var b strings.Builder
	b.WriteString("error event")
	if e.Code != "" {
		b.WriteString(" ")
		b.WriteString(shown.Excerpt(e.Code, 64))
	}
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, " (as %d %s)", e.StatusCode, http.StatusText(e.StatusCode))
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(shown.Excerpt(e.Message, 300))
	}
	return b.String()
}
