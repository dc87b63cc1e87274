package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/retrygen/retrygen/internal/longtest"
	"github.com/retrygen/retrygen/runtime"
)

// zeros reads n zero bytes, as a large file would, without holding them.
type zeros struct{ left int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), z.left)
	clear(p[:n])
	z.left -= n
	return int(n), nil
}

// opener returns a Reopen body of text, and counts its opens and closes.
func opener(text string, opens, closes *atomic.Int32) io.Reader {
	return Reopen(func() (io.ReadCloser, error) {
		opens.Add(1)
		return &closeCounter{Reader: strings.NewReader(text), closes: closes}, nil
	})
}

type closeCounter struct {
	io.Reader
	closes *atomic.Int32
}

func (c *closeCounter) Close() error { c.closes.Add(1); return nil }

// A streamed multipart body is byte for byte what multipart.Writer writes with the same
// boundary, whatever its files' readers: in memory, seeking, reopened, or plain, short
// or longer than the client buffers; the standard library's reader reads its parts back.
func TestMultipartStreamsTheWritersBytes(t *testing.T) {
	long := strings.Repeat("0123456789", BufferedBodyLimit/10+7)
	var opens, closes atomic.Int32
	files := []struct {
		name, text string
		body       io.Reader
	}{
		{"strings", "in memory", strings.NewReader("in memory")},
		{"seeker", "seek only", &seekOnly{bytes.NewReader([]byte("seek only"))}},
		{"plain", "a plain reader", io.MultiReader(strings.NewReader("a plain reader"))},
		{"reopened", "opened again", opener("opened again", &opens, &closes)},
		{"long", long, io.MultiReader(strings.NewReader(long))},
	}
	m := NewMultipart()
	m.Field("purpose", "dispute_evidence")
	for _, f := range files {
		m.File(f.name, "", &File{Name: f.name + ".bin", Body: f.body})
		m.Field("after_"+f.name, "x")
	}
	r := NewRequest("POST")
	r.MultipartBody(m)

	var want bytes.Buffer
	w := multipart.NewWriter(&want)
	w.SetBoundary(m.w.Boundary())
	w.WriteField("purpose", "dispute_evidence")
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="`+f.name+`"; filename="`+f.name+`.bin"`)
		h.Set("Content-Type", "application/octet-stream")
		part, _ := w.CreatePart(h)
		io.WriteString(part, f.text)
		w.WriteField("after_"+f.name, "x")
	}
	w.Close()

	rt := &recorder{}
	resp, err := newTestClient(t, rt).Call(t.Context(), r, &retrying, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if rt.bodies[0] != want.String() {
		t.Fatalf("sent %d bytes, multipart.Writer writes %d; they differ", len(rt.bodies[0]), want.Len())
	}
	if rt.reqs[0].ContentLength != -1 || opens.Load() != 1 || closes.Load() != 1 {
		t.Errorf("ContentLength %d (a reopened file has none), %d opens, %d closes", rt.reqs[0].ContentLength, opens.Load(), closes.Load())
	}
	mr := multipart.NewReader(strings.NewReader(rt.bodies[0]), m.w.Boundary())
	for _, f := range append([]string{"purpose"}, "strings", "after_strings") {
		p, err := mr.NextPart()
		if err != nil || p.FormName() != f {
			t.Fatalf("part %v, %v; want %s", p, err, f)
		}
	}
}

// Files that can be sent again are, byte for byte, on every attempt: a reopened one is
// opened for each and closed; with one that cannot, the call is sent once and says its
// body cannot be replayed.
func TestMultipartRetries(t *testing.T) {
	for _, tc := range []struct {
		name    string
		body    func(opens, closes *atomic.Int32) io.Reader
		replays bool
		length  int64 // the request's ContentLength, -1 unknown
	}{
		{"seeker", func(_, _ *atomic.Int32) io.Reader { return &seekOnly{bytes.NewReader([]byte("seek"))} }, true, 0},
		{"reopened", func(o, c *atomic.Int32) io.Reader { return opener("again", o, c) }, true, -1},
		{"small plain", func(_, _ *atomic.Int32) io.Reader { return io.MultiReader(strings.NewReader("small")) }, true, 0},
		{"long plain", func(_, _ *atomic.Int32) io.Reader { return &zeros{left: BufferedBodyLimit + 1} }, false, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opens, closes atomic.Int32
			m := NewMultipart()
			m.File("file", "", &File{Body: tc.body(&opens, &closes)})
			r := NewRequest("POST")
			r.MultipartBody(m)
			rt := &recorder{statuses: []int{503, 503}}
			resp, err := newTestClient(t, rt).Call(t.Context(), r, &retrying, "", nil)
			if !tc.replays {
				if !errors.Is(err, runtime.ErrBodyNotReplayable) || len(rt.bodies) != 1 || rt.reqs[0].ContentLength != -1 {
					t.Errorf("err = %v after %d attempts", err, len(rt.bodies))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if len(rt.bodies) != 3 || rt.bodies[0] != rt.bodies[1] || rt.bodies[1] != rt.bodies[2] {
				t.Errorf("attempts sent %d bodies, not all the same", len(rt.bodies))
			}
			if want := tc.length; want == 0 && rt.reqs[0].ContentLength != int64(len(rt.bodies[0])) || want < 0 && rt.reqs[0].ContentLength != -1 {
				t.Errorf("ContentLength %d for %d bytes", rt.reqs[0].ContentLength, len(rt.bodies[0]))
			}
			if tc.name == "reopened" && (opens.Load() != 3 || closes.Load() != 3) {
				t.Errorf("%d opens, %d closes for 3 attempts", opens.Load(), closes.Load())
			}
		})
	}
}

// A Reopen body whose opening fails fails the call before anything is sent.
func TestReopenFails(t *testing.T) {
	r := NewRequest("PUT")
	r.RawBody("application/octet-stream", Reopen(func() (io.ReadCloser, error) { return nil, os.ErrNotExist }))
	rt := &recorder{}
	_, err := newTestClient(t, rt).Call(t.Context(), r, &retrying, "", nil)
	if !errors.Is(err, os.ErrNotExist) || len(rt.reqs) != 0 {
		t.Errorf("err = %v after %d requests", err, len(rt.reqs))
	}
}

// discard is a transport that reads each request's body to its end, calling each for
// every MiB, and answers 200.
type discard struct{ each func() }

func (d discard) RoundTrip(req *http.Request) (*http.Response, error) {
	buf := make([]byte, 32<<10)
	var read int64
	for {
		n, err := req.Body.Read(buf)
		if read/(1<<20) != (read+int64(n))/(1<<20) && d.each != nil {
			d.each()
		}
		read += int64(n)
		if err != nil {
			break
		}
	}
	req.Body.Close()
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
}

// upload sends a multipart body whose file is size zero bytes of a plain reader.
func upload(t testing.TB, hc *http.Client, size int64) {
	c, err := NewClient("https://api.example.com", WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	m := NewMultipart()
	m.Field("purpose", "backup")
	m.File("file", "", &File{Name: "disk.img", Body: &zeros{left: size}})
	r := NewRequest("POST")
	r.MultipartBody(m)
	resp, err := c.Call(t.Context(), r, &runtime.Policy{MaxAttempts: 1}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// An upload streams: the live heap while a large file is sent stays within the buffer
// of one read-ahead, 16 MiB above the start at most. Under RETRYGEN_LONG=1, without the
// race detector, the file is 1 GiB.
func TestUploadConstantMemory(t *testing.T) {
	size := int64(64 << 20)
	if longtest.HeavyOn() {
		size = 1 << 30
	}
	live := liveHeap
	before := live()
	var peak uint64
	n := 0
	upload(t, &http.Client{Transport: discard{each: func() {
		if n++; n%8 == 0 {
			peak = max(peak, live())
		}
	}}}, size)
	if peak > before+16<<20 {
		t.Errorf("live heap peaked %d KB above the start", (peak-before)>>10)
	}
	t.Logf("%d MB uploaded; live heap peak +%d KB", size>>20, (int64(peak)-int64(before))>>10)
}

// BenchmarkUpload1GiB sends a 1 GiB file in a multipart body: its B/op is the memory
// the client takes for it, the read-ahead of BufferedBodyLimit and a few buffers.
func BenchmarkUpload1GiB(b *testing.B) {
	b.ReportAllocs()
	hc := &http.Client{Transport: discard{}}
	for b.Loop() {
		upload(b, hc, 1<<30)
	}
}

// A call that fails before anything is sent (here, its credential) closes what a Reopen
// body opened for it.
func TestReopenClosedWhenTheCallFails(t *testing.T) {
	var opens, closes atomic.Int32
	c := New(WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: &recorder{}}),
		WithCredential("key", APIKeyFunc("header", "X-Key", func(context.Context) (string, error) { return "", errors.New("no key") })))
	r := NewRequest("PUT")
	r.Security([]string{"key"})
	r.RawBody("application/octet-stream", opener("data", &opens, &closes))
	if _, err := c.Call(t.Context(), r, &retrying, "", nil); err == nil || opens.Load() != 1 || closes.Load() != 1 {
		t.Errorf("err = %v, %d opens, %d closes", err, opens.Load(), closes.Load())
	}
}
