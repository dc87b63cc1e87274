package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/retrygen/retrygen/internal/longtest"
)

// readAll returns every event of src as "type|id|data" lines, and the error that ended
// the stream (nil at io.EOF).
func readEvents(r io.Reader) ([]string, error) {
	p := NewEventReader(r)
	var out []string
	for {
		ev, err := p.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev.Type+"|"+ev.ID+"|"+string(ev.Data))
	}
}

// The WHATWG event stream interpretation, case by case.
func TestEventReaderWHATWG(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"one event", "data: hello\n\n", []string{"||hello"}},
		{"multi-line data joined by LF", "data: a\ndata: b\ndata:\n\n", []string{"||a\nb\n"}},
		{"CRLF line ends", "data: a\r\ndata: b\r\n\r\n", []string{"||a\nb"}},
		{"CR line ends", "data: a\rdata: b\r\r", []string{"||a\nb"}},
		{"mixed line ends", "data: a\r\ndata: b\rdata: c\n\n", []string{"||a\nb\nc"}},
		{"leading BOM skipped once", "\xEF\xBB\xBFdata: a\n\n\xEF\xBB\xBFdata: b\n\n", []string{"||a"}},
		{"comments ignored", ": hi\ndata: a\n: there\n\n", []string{"||a"}},
		{"one space after colon removed, not two", "data:  a\n\n", []string{"|| a"}},
		{"no space after colon", "data:a\n\n", []string{"||a"}},
		{"field without colon has empty value", "data\n\n", []string{"||"}},
		{"event type, reset after dispatch", "event: add\ndata: 1\n\ndata: 2\n\n", []string{"add||1", "||2"}},
		{"id persists across events", "id: 7\ndata: 1\n\ndata: 2\n\n", []string{"|7|1", "|7|2"}},
		{"empty id resets", "id: 7\ndata: 1\n\nid\ndata: 2\n\n", []string{"|7|1", "||2"}},
		{"id with NUL ignored", "id: 7\ndata: 1\n\nid: 8\x009\ndata: 2\n\n", []string{"|7|1", "|7|2"}},
		// Beyond the standard: an ID that could not be sent back as Last-Event-ID is
		// ignored like one holding NUL; a tab can be sent.
		{"id with a control byte ignored", "id: 7\ndata: 1\n\nid: a\x01b\ndata: 2\n\nid: a\x7fb\ndata: 3\n\nid: a\tb\ndata: 4\n\n", []string{"|7|1", "|7|2", "|7|3", "|a\tb|4"}},
		{"event without data not dispatched", "event: x\n\ndata: 1\n\n", []string{"||1"}},
		{"unknown fields ignored", "foo: bar\ndata: 1\n\n", []string{"||1"}},
		{"unfinished event dropped at EOF", "data: 1\n\ndata: 2\n", []string{"||1"}},
		{"last line without end dropped", "data: 1\n\ndata: 2", []string{"||1"}},
		{"colon in value kept", "data: a:b\n\n", []string{"||a:b"}},
		{"blank lines between events", "\n\n\ndata: 1\n\n\n\n", []string{"||1"}},
		{"field names are case-sensitive", "Data: 1\ndata: 2\n\n", []string{"||2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readEvents(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			// One byte at a time gives the same events: no line end, BOM or CRLF
			// split across reads changes anything.
			slow, err := readEvents(iotest.OneByteReader(strings.NewReader(tc.in)))
			if err != nil || fmt.Sprintf("%q", slow) != fmt.Sprintf("%q", tc.want) {
				t.Errorf("one byte at a time: %q, %v", slow, err)
			}
		})
	}
}

func TestEventReaderRetry(t *testing.T) {
	p := NewEventReader(strings.NewReader("retry: 1500\nretry: 12x\nretry:\ndata: 1\n\n"))
	if _, err := p.Next(); err != nil {
		t.Fatal(err)
	}
	if d, ok := p.Retry(); !ok || d != 1500*time.Millisecond {
		t.Errorf("retry %v %v, want 1.5s (invalid values ignored)", d, ok)
	}
	p = NewEventReader(strings.NewReader("retry: 99999999999999999999999\ndata: 1\n\n"))
	p.Next()
	if _, ok := p.Retry(); ok {
		t.Error("an overflowing retry was taken")
	}
}

// The last event ID counts only once its event is dispatched, or at a blank line.
func TestEventReaderLastEventID(t *testing.T) {
	p := NewEventReader(strings.NewReader("id: 1\ndata: a\n\nid: 2\ndata: b"))
	if _, err := p.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Next(); err != io.EOF {
		t.Fatalf("err %v, want EOF", err)
	}
	if id := p.LastEventID(); id != "1" {
		t.Errorf("LastEventID %q, want 1: event 2 never finished", id)
	}
}

func TestEventReaderLimits(t *testing.T) {
	p := NewEventReader(strings.NewReader("data: " + strings.Repeat("x", 100) + "\n\n"))
	p.MaxEventSize = 50
	if _, err := p.Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("long line: %v", err)
	}
	p = NewEventReader(strings.NewReader(strings.Repeat("data: xxxxxxxxxx\n", 10) + "\n"))
	p.MaxEventSize = 50
	if _, err := p.Next(); !errors.Is(err, ErrEventTooLarge) {
		t.Errorf("many lines: %v", err)
	}
	p = NewEventReader(iotest.ErrReader(io.ErrUnexpectedEOF))
	if _, err := p.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read error: %v", err)
	}
}

// FuzzEventReader: any input, read whole or in pieces of any size, gives the same
// events and never panics; every event's data holds no CR, and its ID can be sent as a
// header value.
func FuzzEventReader(f *testing.F) {
	for _, s := range []string{
		"data: hello\n\n",
		"\xEF\xBB\xBFdata: a\r\n\r\n",
		"id: 1\nevent: e\ndata: a\ndata: b\nretry: 10\n\n",
		": comment\r\rdata\r\n\n",
		"data: a\rdata: b\r\r",
		"id: a\x00b\ndata: x\n\n",
		"id: a\x01b\ndata: x\n\n",
		"\xEF\xBB",
		"data: [DONE]\n\n",
		"\r\n\r\n\n\r",
	} {
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		whole, errWhole := readEvents(bytes.NewReader(in))
		pieces, errPieces := readEvents(&chunkReader{data: in, n: int(chunk%16) + 1})
		if fmt.Sprint(errWhole) != fmt.Sprint(errPieces) || fmt.Sprintf("%q", whole) != fmt.Sprintf("%q", pieces) {
			t.Fatalf("whole %q (%v), in pieces of %d %q (%v)", whole, errWhole, chunk%16+1, pieces, errPieces)
		}
		for _, ev := range whole {
			if strings.ContainsRune(ev, '\r') {
				t.Fatalf("event %q holds CR", ev)
			}
		}
		p := NewEventReader(bytes.NewReader(in))
		for {
			if _, err := p.Next(); err != nil {
				break
			}
			if id := p.LastEventID(); strings.ContainsFunc(id, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
				t.Fatalf("last event ID %q holds a control byte", id)
			}
		}
	})
}

// chunkReader returns its data n bytes at a time.
type chunkReader struct {
	data []byte
	n    int
}

func (r *chunkReader) Read(b []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(b[:min(len(b), r.n)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// eventSource repeats one event until size bytes were read, without holding them.
type eventSource struct {
	event []byte
	off   int
	left  int64
}

func (s *eventSource) Read(b []byte) (int, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(b) && s.left > 0 {
		k := copy(b[n:], s.event[s.off:])
		if int64(k) > s.left {
			k = int(s.left)
		}
		n += k
		s.left -= int64(k)
		s.off = (s.off + k) % len(s.event)
	}
	return n, nil
}

// A long stream is read in constant memory: the live heap while reading it stays where
// it was before, give or take the reader's own buffers. Under RETRYGEN_LONG=1, without
// the race detector, the stream is 2 GB. The heap is measured live, after a collection: the heap in use also holds
// the garbage a collector running late on a busy machine has not reached yet.
func TestEventReaderConstantMemory(t *testing.T) {
	size := int64(64 << 20)
	if longtest.HeavyOn() {
		size = 2 << 30
	}
	event := []byte("id: 123456\nevent: delta\ndata: {\"text\":\"" + strings.Repeat("x", 200) + "\"}\n\n")
	var before, after runtime.MemStats
	start := liveHeap()
	runtime.ReadMemStats(&before)
	p := NewEventReader(&eventSource{event: event, left: size})
	n := 0
	var peak uint64
	for {
		_, err := p.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n%(1<<16) == 0 {
			peak = max(peak, liveHeap())
		}
	}
	runtime.ReadMemStats(&after)
	if want := size / int64(len(event)); int64(n) != want {
		t.Errorf("%d events, want %d", n, want)
	}
	// Allocation per event, and the peak of the live heap, stay small: a reader that
	// kept the events would hold the whole stream, 64 MB, eight times the bound.
	allocs := after.Mallocs - before.Mallocs
	if perEvent := float64(allocs) / float64(n); perEvent > 0.01 {
		t.Errorf("%.3f allocations per event, want none in the steady state", perEvent)
	}
	if peak > start+8<<20 {
		t.Errorf("live heap peaked at %d bytes, %d more than before", peak, peak-start)
	}
	t.Logf("%d MB, %d events, %d allocations, live heap peak +%d KB", size>>20, n, allocs, (int64(peak)-int64(start))>>10)
}

// BenchmarkEventReader reports bytes and allocations per event of a typical chat
// completion chunk.
func BenchmarkEventReader(b *testing.B) {
	event := []byte("id: 42\ndata: {\"id\":\"chatcmpl-123\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"content\":\"Hello\"},\"index\":0}]}\n\n")
	b.SetBytes(int64(len(event)))
	b.ReportAllocs()
	p := NewEventReader(&eventSource{event: event, left: 1 << 62})
	for b.Loop() {
		if _, err := p.Next(); err != nil {
			b.Fatal(err)
		}
	}
}
