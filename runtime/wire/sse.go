package wire

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

// Event is one server-sent event as the WHATWG HTML standard's event stream
// interpretation dispatches it (§9.2.6).
type Event struct {
	// Type is the event's type, "" when the stream gave none (a "message" event).
	Type string
	// ID is the last event ID the stream set, at or before this event; it persists
	// across events until the stream sets another.
	ID string
	// Data is the event's data, its lines joined by "\n". It is valid until the next
	// call of EventReader.Next.
	Data []byte
}

// DefaultMaxEventSize is the most bytes one event's data may hold unless
// EventReader.MaxEventSize says otherwise.
const DefaultMaxEventSize = 16 << 20

// ErrEventTooLarge is returned by EventReader.Next for an event, or a line, larger than
// its MaxEventSize.
var ErrEventTooLarge = runtime.ErrEventTooLarge

// EventReader reads server-sent events from a text/event-stream body, following the
// WHATWG parsing rules: lines end with CRLF, LF or CR; a leading byte order mark is
// skipped; lines starting with ':' are comments; a field without a colon has an empty
// value; one space after the colon is removed; "data" lines accumulate; an "id" holding
// NUL is ignored, and so (beyond the standard, which ignores NUL because an ID goes back
// to the server as the Last-Event-ID header) is one holding any control byte a header
// value cannot carry, so that every last event ID can be sent; "retry" takes only ASCII
// digits; an event is dispatched at an empty line when it has data, and an event the
// stream ends in the middle of is dropped.
//
// It reads with a buffer of its own and keeps at most one event in memory, so a stream of
// any length is read in constant memory.
type EventReader struct {
	// MaxEventSize caps one event's data, and one line; 0 means DefaultMaxEventSize.
	MaxEventSize int
	// Lines reads the body as a stream of JSON values, one a line (see NewLineReader),
	// rather than as server-sent events.
	Lines bool

	r          io.Reader
	buf        []byte
	start, end int
	readErr    error
	started    bool // the byte order mark check is done
	skipLF     bool // the last line ended with CR: a following LF belongs to it
	line       []byte
	data       []byte
	hasData    bool
	eventType  []byte
	lastType   string // the last event type dispatched, kept so that repeats cost nothing
	idBuf      string // the last event ID buffer
	id         string // the last event ID string, set when an event is dispatched
	retry      time.Duration
	retrySet   bool
	eventCount int
}

// NewEventReader returns a reader of the events in r.
func NewEventReader(r io.Reader) *EventReader {
	return &EventReader{r: r, buf: make([]byte, 32<<10)}
}

// NewLineReader returns a reader of the JSON values in r, one a line, as
// application/x-ndjson, application/jsonl, application/json-seq and Kubernetes' watch
// streams (application/json;stream=watch) write them: each line that holds more than white
// space is one event whose Data is the line, trimmed, without the record separator (0x1E)
// json-seq puts before each value; blank lines (heartbeats) are skipped; a last line
// without its end counts. The events have no type and no ID.
func NewLineReader(r io.Reader) *EventReader {
	p := NewEventReader(r)
	p.Lines = true
	return p
}

// Retry returns the reconnection time the stream set with a "retry" field, and whether it
// set one.
func (p *EventReader) Retry() (time.Duration, bool) { return p.retry, p.retrySet }

// LastEventID returns the last event ID string: the ID in force when the last event was
// dispatched (an ID set by an event the stream has not finished does not count), "" when
// none.
func (p *EventReader) LastEventID() string { return p.id }

// SetLastEventID sets the last event ID, as a reconnection carries it over.
func (p *EventReader) SetLastEventID(id string) { p.id, p.idBuf = id, id }

// Next returns the next event. At the end of the stream it returns io.EOF; an event
// the stream ended in the middle of is dropped. Any other error is the reader's, or
// ErrEventTooLarge.
func (p *EventReader) Next() (Event, error) {
	max := p.MaxEventSize
	if max <= 0 {
		max = DefaultMaxEventSize
	}
	if p.Lines {
		return p.nextLine(max)
	}
	for {
		line, err := p.readLine(max)
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			p.id = p.idBuf
			if !p.hasData {
				p.eventType = p.eventType[:0]
				continue
			}
			data := p.data
			if n := len(data); n > 0 && data[n-1] == '\n' {
				data = data[:n-1]
			}
			ev := Event{ID: p.id, Data: data}
			if len(p.eventType) > 0 {
				if string(p.eventType) != p.lastType {
					p.lastType = string(p.eventType)
				}
				ev.Type = p.lastType
			}
			p.data = p.data[:0]
			p.hasData = false
			p.eventType = p.eventType[:0]
			p.eventCount++
			return ev, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "event":
			p.eventType = append(p.eventType[:0], value...)
		case "data":
			if len(p.data)+len(value)+1 > max+1 {
				p.discardEvent()
				return Event{}, ErrEventTooLarge
			}
			p.data = append(p.data, value...)
			p.data = append(p.data, '\n')
			p.hasData = true
		case "id":
			if string(value) != p.idBuf {
				if id := string(value); validHeaderValue(id) {
					p.idBuf = id
				}
			}
		case "retry":
			if ms, ok := digits(value); ok {
				p.retry, p.retrySet = time.Duration(ms)*time.Millisecond, true
			}
		}
	}
}

// nextLine is Next for a stream of JSON values, one a line.
func (p *EventReader) nextLine(max int) (Event, error) {
	for {
		line, err := p.readLine(max)
		if err != nil {
			return Event{}, err
		}
		if len(line) > max {
			return Event{}, ErrEventTooLarge
		}
		if line = bytes.Trim(line, " \t\x1e"); len(line) > 0 {
			p.eventCount++
			return Event{Data: line}, nil
		}
	}
}

// discardEvent drops the event being read, after an error.
func (p *EventReader) discardEvent() {
	p.data = p.data[:0]
	p.hasData = false
	p.eventType = p.eventType[:0]
}

// digits parses b as a base-10 count of milliseconds made of ASCII digits only; an
// empty value or one too large for a time.Duration is rejected.
func digits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
		if n > int64(1<<63-1)/int64(time.Millisecond)/10 {
			return 0, false
		}
	}
	return n, true
}

// readLine returns the next line without its end, valid until the next call.
func (p *EventReader) readLine(max int) ([]byte, error) {
	p.line = p.line[:0]
	for {
		if p.start == p.end {
			if p.readErr != nil {
				if p.readErr == io.EOF {
					if p.Lines && len(p.line) > 0 {
						return p.line, nil // a stream of values may end without a line end
					}
					// A last line without its end is not a line: the event is dropped.
					return nil, io.EOF
				}
				return nil, p.readErr
			}
			if err := p.fill(); err != nil {
				p.readErr = err
			}
			continue
		}
		b := p.buf[p.start:p.end]
		if p.skipLF {
			p.skipLF = false
			if b[0] == '\n' {
				p.start++
				continue
			}
		}
		if !p.started {
			if len(b) < 3 && p.readErr == nil && bytes.HasPrefix([]byte("\xEF\xBB\xBF"), b) {
				if err := p.fill(); err != nil {
					p.readErr = err
				}
				continue
			}
			p.started = true
			if bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")) {
				p.start += 3
				continue
			}
		}
		i := indexEOL(b)
		if i < 0 {
			if len(p.line)+len(b) > max {
				return nil, ErrEventTooLarge
			}
			p.line = append(p.line, b...)
			p.start = p.end
			continue
		}
		if b[i] == '\r' {
			p.skipLF = true
		}
		p.start += i + 1
		if len(p.line) == 0 {
			return b[:i], nil
		}
		if len(p.line)+i > max {
			return nil, ErrEventTooLarge
		}
		p.line = append(p.line, b[:i]...)
		return p.line, nil
	}
}

// fill reads more of the stream into the buffer, keeping what is unread.
func (p *EventReader) fill() error {
	if p.start > 0 {
		p.end = copy(p.buf, p.buf[p.start:p.end])
		p.start = 0
	}
	for range 100 {
		n, err := p.r.Read(p.buf[p.end:])
		p.end += n
		if err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
	}
	return io.ErrNoProgress
}

// indexEOL returns the index of the first CR or LF in b, -1 when none.
func indexEOL(b []byte) int {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		if j := bytes.IndexByte(b[:i], '\r'); j >= 0 {
			return j
		}
		return i
	}
	return bytes.IndexByte(b, '\r')
}

// String describes ev without its data, e.g. `event "delta" (id "42", 120 bytes)`.
func (ev Event) String() string {
	return fmt.Sprintf("event %q (id %q, %d bytes)", ev.Type, ev.ID, len(ev.Data))
}
