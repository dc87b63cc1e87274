package wire

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/internal/longtest"
	"github.com/retrygen/retrygen/runtime"
)

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// streamClient returns a client whose every request is answered 200 with body().
func streamClient(t testing.TB, body func() io.Reader) *Client {
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
			Body: io.NopCloser(body()), Request: r}, nil
	})}
	c, err := NewClient("http://api.example.com", WithHTTPClient(hc), WithoutRetryBudget())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type chunk struct {
	ID      string `json:"id"`
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
	} `json:"choices"`
}

var getPolicy = runtime.Policy{MaxAttempts: 3, Multiplier: 2, Idempotent: true, ConnectionErrors: true}

// A stream ends at its sentinel, and text events take the data as is.
func TestStreamSentinelAndText(t *testing.T) {
	c := streamClient(t, func() io.Reader { return strings.NewReader("data: a b\n\ndata: [STOP]\n\ndata: c\n\n") })
	s, err := OpenStream[string](context.Background(), c, NewRequest("GET"), &getPolicy, StreamConfig{Sentinel: "[STOP]", Text: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for s.Next() {
		got = append(got, s.Current())
	}
	if s.Err() != nil || len(got) != 1 || got[0] != "a b" || s.Delivered() != 1 {
		t.Fatalf("got %q, err %v", got, s.Err())
	}
}

// A stream whose Content-Type has a parameter that does not parse is still an event
// stream: the media type decides.
func TestStreamContentTypeParameters(t *testing.T) {
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream; charset"}},
			Body: io.NopCloser(strings.NewReader("data: a\n\n")), Request: r}, nil
	})}
	c, err := NewClient("http://api.example.com", WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenStream[string](context.Background(), c, NewRequest("GET"), &getPolicy, StreamConfig{Text: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Next() || s.Current() != "a" {
		t.Fatalf("no event: %v", s.Err())
	}
}

// BenchmarkStreamEvent reports the bytes and allocations of one typed event of a chat
// completion stream: reading, splitting and decoding its JSON into a struct.
func BenchmarkStreamEvent(b *testing.B) {
	event := "data: {\"id\":\"chatcmpl-123\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"content\":\"Hello\"},\"index\":0}]}\n\n"
	c := streamClient(b, func() io.Reader { return &eventSource{event: []byte(event), left: 1 << 62} })
	s, err := OpenStream[chunk](context.Background(), c, NewRequest("GET"), &getPolicy, StreamConfig{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.SetBytes(int64(len(event)))
	b.ReportAllocs()
	for b.Loop() {
		if !s.Next() {
			b.Fatal(s.Err())
		}
	}
}

// A long typed stream is consumed in constant memory: the heap in use does not grow
// with the events read. Under RETRYGEN_LONG=1, without the race detector, the stream is
// 2 GB.
func TestStreamConstantMemory(t *testing.T) {
	size := int64(32 << 20)
	if longtest.HeavyOn() {
		size = 2 << 30
	}
	event := "id: 7\ndata: {\"id\":\"chatcmpl-123\",\"choices\":[{\"delta\":{\"content\":\"" + strings.Repeat("x", 300) + "\"}}]}\n\n"
	c := streamClient(t, func() io.Reader { return &eventSource{event: []byte(event), left: size} })
	live := liveHeap
	before := live()
	s, err := OpenStream[chunk](context.Background(), c, NewRequest("GET"), &getPolicy, StreamConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var peak uint64
	for s.Next() {
		if s.Delivered()%(1<<14) == 0 {
			peak = max(peak, live())
		}
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	if want := size / int64(len(event)); int64(s.Delivered()) != want {
		t.Errorf("%d events, want %d", s.Delivered(), want)
	}
	if peak > before+8<<20 {
		t.Errorf("live heap peaked %d KB above the start", (peak-before)>>10)
	}
	t.Logf("%d MB in %d events; live heap peak +%d KB", size>>20, s.Delivered(), (int64(peak)-int64(before))>>10)
}

// A 2xx answer that is not an event stream (JSON, because the request did not ask for a
// stream) is an error that says so and wraps ErrContentType, not a stream that silently
// ends.
func TestStreamWrongContentType(t *testing.T) {
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{"text":"whole"}`)), Request: r}, nil
	})}
	c, err := NewClient("http://api.example.com", WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	r := NewRequest("POST")
	r.Path("/chat")
	_, err = OpenStream[chunk](context.Background(), c, r, &getPolicy, StreamConfig{}, nil)
	if !errors.Is(err, ErrContentType) || !strings.Contains(err.Error(), `POST /chat: response Content-Type is not what the method decodes: "application/json", not an event stream`) {
		t.Fatalf("err = %v", err)
	}
}
