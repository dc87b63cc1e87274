package retrytest

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Event is one server-sent event of a scripted stream (see Events).
type Event struct {
	Type  string        // the event's type; "" sends no event: field
	ID    string        // its id; "" sends no id: field
	Data  string        // its data; each line is sent as a data: field
	Retry time.Duration // a retry: interval sent with it; 0 sends none
}

// ErrorEvent returns an error event as streaming AI APIs send one in place of their
// events, e.g. ErrorEvent(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`).
func ErrorEvent(data string) Event { return Event{Type: "error", Data: data} }

// Events answers with a 200 text/event-stream response that holds events, then ends.
func Events(events ...Event) Fault {
	return eventsFault("event stream of "+strconv.Itoa(len(events)), -1, events)
}

// EventsCut answers as Events does, but cuts the connection after the first n events, as
// a server that drops the stream does: the body ends with an unexpected EOF.
func EventsCut(n int, events ...Event) Fault {
	return eventsFault("event stream cut after "+strconv.Itoa(n), max(n, 0), events)
}

func eventsFault(name string, cut int, events []Event) Fault {
	var b strings.Builder
	for i, ev := range events {
		if i == cut {
			break
		}
		writeEvent(&b, ev)
	}
	text := b.String()
	return Fault{name: name, apply: func(req *http.Request) (*http.Response, error) {
		resp := response(req, http.StatusOK, http.Header{"Content-Type": {"text/event-stream"}}, text)
		resp.ContentLength = -1
		if cut >= 0 && cut < len(events) {
			resp.Body = &cutBody{r: strings.NewReader(text), body: io.NopCloser(nil)}
		}
		return resp, nil
	}}
}

// writeEvent writes ev in the text/event-stream format.
func writeEvent(b *strings.Builder, ev Event) {
	if ev.Type != "" {
		b.WriteString("event: " + ev.Type + "\n")
	}
	if ev.ID != "" {
		b.WriteString("id: " + ev.ID + "\n")
	}
	if ev.Retry > 0 {
		b.WriteString("retry: " + strconv.FormatInt(ev.Retry.Milliseconds(), 10) + "\n")
	}
	for line := range strings.SplitSeq(ev.Data, "\n") {
		b.WriteString("data: " + line + "\n")
	}
	b.WriteString("\n")
}
