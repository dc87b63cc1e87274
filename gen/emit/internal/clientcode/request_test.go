package clientcode

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/retrygen/retrygen/runtime"
)

func TestPathEscape(t *testing.T) {
	for in, want := range map[string]string{
		"../admin": "..%2Fadmin", "a/b?c#d": "a%2Fb%3Fc%23d", "%2e%2e": "%252e%252e",
		".": "%2E", "..": "%2E%2E", "...": "%2E%2E%2E", "a.b": "a.b", "a b": "a%20b",
	} {
		if got := pathEscape(in); got != want {
			t.Errorf("pathEscape(%q) = %q, want %q", in, got, want)
		}
	}
}

type status string

type point struct {
	X int    `json:"x"`
	Y string `json:"y,omitempty"`
}

func TestPlain(t *testing.T) {
	s := "v"
	var nilPtr *string
	when := time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC)
	tests := []struct {
		in   any
		want any
	}{
		{nil, nil},
		{nilPtr, nil},
		{&s, "v"},
		{status("open"), "open"},
		{int32(-7), "-7"},
		{uint8(7), "7"},
		{true, "true"},
		{2.5, "2.5"},
		{1e21, "1e+21"},
		{when, "2024-01-02T03:04:05.000000006Z"},
		{[]byte("hi"), "aGk="},
		{[]string(nil), nil},
		{[]int64{1, 2}, []any{"1", "2"}},
		{map[string]int{"b": 2, "a": 1}, []field{{"a", "1"}, {"b", "2"}}},
		{point{X: 1}, []field{{"x", "1"}}},
		{&point{X: 1, Y: "z"}, []field{{"x", "1"}, {"y", "z"}}},
	}
	for _, tt := range tests {
		got, err := plain(tt.in)
		if err != nil {
			t.Errorf("plain(%#v): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("plain(%#v) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestQueryParamStyles(t *testing.T) {
	r := newRequest("GET")
	r.queryParam("a", "form", true, []string{"1", "2"})
	r.queryParam("b", "form", false, []string{"1", "2"})
	r.queryParam("c", "spaceDelimited", false, []string{"1", "2"})
	r.queryParam("d", "pipeDelimited", false, []string{"1", "2"})
	r.queryParam("e", "deepObject", true, map[string]any{"k": "v", "n": map[string]int{"x": 1}, "l": []int{5}})
	r.queryParam("f", "form", true, point{X: 3})
	r.queryParam("g", "form", false, point{X: 3, Y: "y"})
	r.queryParam("h", "json", true, point{X: 3})
	r.queryParam("unset", "form", true, (*string)(nil))
	want := "a=1&a=2&b=1%2C2&c=1+2&d=1%7C2&e%5Bk%5D=v&e%5Bl%5D%5B0%5D=5&e%5Bn%5D%5Bx%5D=1&g=x%2C3%2Cy%2Cy&h=%7B%22x%22%3A3%7D&x=3"
	if got := r.query.Encode(); got != want {
		t.Errorf("query = %s\nwant    %s", got, want)
	}
	if r.err != nil {
		t.Error(r.err)
	}
}

func TestHeaderAndCookieValues(t *testing.T) {
	r := newRequest("GET")
	r.headerParam("X-A", "simple", false, []string{"a", "b"})
	r.headerParam("X-O", "simple", true, map[string]string{"k": "v"})
	r.cookieParam("c", "form", true, "v")
	if r.header.Get("X-A") != "a,b" || r.header.Get("X-O") != "k=v" || r.cookies[0] != "c=v" || r.err != nil {
		t.Errorf("header %v, cookies %v, err %v", r.header, r.cookies, r.err)
	}
	for _, bad := range []string{"a\rb", "a\nb", "a\x00", "a\x7f"} {
		r := newRequest("GET")
		r.headerParam("X", "simple", false, bad)
		if r.err == nil {
			t.Errorf("header value %q accepted", bad)
		}
	}
}

// seekOnly can seek but not ReadAt, so a retry must seek back.
type seekOnly struct{ r *bytes.Reader }

func (s *seekOnly) Read(p []byte) (int, error)                { return s.r.Read(p) }
func (s *seekOnly) Seek(off int64, whence int) (int64, error) { return s.r.Seek(off, whence) }

func TestReplayable(t *testing.T) {
	body := &seekOnly{bytes.NewReader([]byte("0123456789"))}
	_, _ = body.Seek(4, io.SeekStart)
	req, err := http.NewRequest("PUT", "http://x", body)
	if err != nil {
		t.Fatal(err)
	}
	if err := replayable(req, body); err != nil {
		t.Fatal(err)
	}
	if req.ContentLength != 6 || req.GetBody == nil {
		t.Fatalf("ContentLength %d, GetBody set %v", req.ContentLength, req.GetBody != nil)
	}
	for range 2 {
		b, _ := io.ReadAll(req.Body)
		if string(b) != "456789" {
			t.Fatalf("attempt body = %q", b)
		}
		req.Body, _ = req.GetBody()
	}
	pipe := io.MultiReader(strings.NewReader("x"))
	req, _ = http.NewRequest("PUT", "http://x", pipe)
	if err := replayable(req, pipe); err != nil || req.GetBody != nil {
		t.Errorf("a plain reader must stay single-use: %v", err)
	}
}

type model struct{ Msg string }

func (m model) Error() string { return m.Msg }

func TestDecodeError(t *testing.T) {
	apiErr := &runtime.Error{StatusCode: 404, Body: []byte(`{"Msg":"gone"}`)}
	err := decodeError(apiErr, func(status int) any {
		if status == 404 {
			return new(model)
		}
		return nil
	})
	var m *model
	if !errors.As(err, &m) || m.Msg != "gone" {
		t.Errorf("errors.As(*model) = %v for %v", m, err)
	}
	transport := &runtime.Error{Err: io.ErrUnexpectedEOF}
	if err := decodeError(transport, func(int) any { return new(model) }); !errors.Is(err, io.ErrUnexpectedEOF) || transport.Model != nil {
		t.Errorf("a failure without a response got a model: %v", transport.Model)
	}
}

func TestMarshalFields(t *testing.T) {
	var a *string
	b := "x"
	out, err := marshalFields([]jsonField{{"a,b", a, true}, {"", &b, true}, {"-", 3, false}})
	if err != nil || string(out) != `{"":"x","-":3}` {
		t.Errorf("marshalFields = %s, %v", out, err)
	}
	var got string
	var n int
	if err := unmarshalFields([]byte(`{"a,b":"y","-":4}`), []jsonField{{"a,b", &got, false}, {"-", &n, false}}); err != nil || got != "y" || n != 4 {
		t.Errorf("unmarshalFields: %q %d %v", got, n, err)
	}
}
