package wire

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/retrygen/retrygen/runtime"
)

// EventError is an error event a stream received in place of an event; see
// runtime.EventError.
type EventError = runtime.EventError

// errorCodes maps the kinds of error that streaming APIs send (Anthropic, OpenAI, Google,
// Mistral) to the status each stands for: an overloaded server and a rate limit are
// retried, a bad request is not.
var errorCodes = []struct {
	part   string
	status int
}{
	{"overloaded", http.StatusServiceUnavailable},
	{"unavailable", http.StatusServiceUnavailable},
	{"rate_limit", http.StatusTooManyRequests},
	{"ratelimit", http.StatusTooManyRequests},
	{"too_many_requests", http.StatusTooManyRequests},
	{"resource_exhausted", http.StatusTooManyRequests},
	{"timeout", http.StatusGatewayTimeout},
	{"deadline_exceeded", http.StatusGatewayTimeout},
	{"server_error", http.StatusInternalServerError},
	{"api_error", http.StatusInternalServerError},
	{"internal", http.StatusInternalServerError},
	{"invalid_request", http.StatusBadRequest},
	{"invalid_argument", http.StatusBadRequest},
	{"bad_request", http.StatusBadRequest},
	{"authentication", http.StatusUnauthorized},
	{"unauthenticated", http.StatusUnauthorized},
	{"permission", http.StatusForbidden},
	{"not_found", http.StatusNotFound},
	{"request_too_large", http.StatusRequestEntityTooLarge},
	{"context_length", http.StatusBadRequest},
}

// codeStatus returns the status an error's kind stands for, 0 when none.
func codeStatus(code string) int {
	c := strings.ToLower(code)
	if n, err := strconv.Atoi(c); err == nil && n >= 400 && n <= 599 {
		return n
	}
	for _, e := range errorCodes {
		if strings.Contains(c, e.part) {
			return e.status
		}
	}
	return 0
}

// errorEvent returns ev as a *runtime.EventError when it is one: its type is "error" or
// errorType, or its data is a JSON object whose only member is "error". Other events
// cost a look at the first bytes of their data.
func errorEvent(ev Event, errorType string) *runtime.EventError {
	typed := ev.Type == "error" || (errorType != "" && ev.Type == errorType)
	if !typed && !startsWithErrorMember(ev.Data) {
		return nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(ev.Data, &top); err != nil {
		if !typed {
			return nil
		}
		top = nil // an error event whose data is not an object: its text is the message
	}
	if !typed && (len(top) != 1 || top["error"] == nil) {
		return nil
	}
	e := &runtime.EventError{Type: ev.Type, Data: bytes.Clone(ev.Data)}
	if top == nil {
		e.Message = string(ev.Data)
		return e
	}
	if inner := top["error"]; len(inner) > 0 {
		var obj map[string]json.RawMessage
		var msg string
		switch {
		case json.Unmarshal(inner, &obj) == nil:
			readErrorMembers(e, obj)
		case json.Unmarshal(inner, &msg) == nil:
			e.Message = msg
		}
	}
	readErrorMembers(e, top) // what the error object left unsaid
	if e.StatusCode == 0 {
		e.StatusCode = codeStatus(e.Code)
	}
	return e
}

// readErrorMembers fills what e lacks from the members of one level of an error object: the kind
// (type, code or status, the one that names a status first), a numeric status, the
// message.
func readErrorMembers(e *runtime.EventError, obj map[string]json.RawMessage) {
	for _, name := range []string{"type", "code", "status"} {
		raw, ok := obj[name]
		if !ok {
			continue
		}
		var s string
		var n float64
		switch {
		case json.Unmarshal(raw, &n) == nil && n == math.Trunc(n) && n >= 100 && n <= 999:
			if e.StatusCode == 0 && n >= 400 && n <= 599 {
				e.StatusCode = int(n)
			}
			if e.Code == "" {
				e.Code = strconv.Itoa(int(n))
			}
		case json.Unmarshal(raw, &s) == nil && s != "" && s != "error":
			if e.Code == "" || codeStatus(e.Code) == 0 && codeStatus(s) != 0 {
				e.Code = s
			}
		}
	}
	var msg string
	if e.Message == "" && json.Unmarshal(obj["message"], &msg) == nil {
		e.Message = msg
	}
}

// startsWithErrorMember reports whether data starts as a JSON object whose first member
// is "error".
func startsWithErrorMember(data []byte) bool {
	d := bytes.TrimLeft(data, " \t\r\n")
	if len(d) == 0 || d[0] != '{' {
		return false
	}
	d = bytes.TrimLeft(d[1:], " \t\r\n")
	return bytes.HasPrefix(d, []byte(`"error"`))
}
