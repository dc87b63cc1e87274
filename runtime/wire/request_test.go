package wire

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"
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
		{map[string]int{"b": 2, "a": 1}, []member{{"a", "1"}, {"b", "2"}}},
		{point{X: 1}, []member{{"x", "1"}}},
		{&point{X: 1, Y: "z"}, []member{{"x", "1"}, {"y", "z"}}},
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

func TestPathParamStyles(t *testing.T) {
	arr := []int{3, 4}
	obj := map[string]int{"a": 1, "b": 2}
	tests := []struct {
		style PathStyle
		v     any
		want  string
	}{
		{PathSimple, 5, "5"},
		{PathSimple, arr, "3,4"},
		{PathSimple, obj, "a,1,b,2"},
		{PathSimpleExplode, arr, "3,4"},
		{PathSimpleExplode, obj, "a=1,b=2"},
		{PathLabel, 5, ".5"},
		{PathLabel, arr, ".3,4"},
		{PathLabel, obj, ".a,1,b,2"},
		{PathLabelExplode, arr, ".3.4"},
		{PathLabelExplode, obj, ".a=1.b=2"},
		{PathMatrix, 5, ";id=5"},
		{PathMatrix, arr, ";id=3,4"},
		{PathMatrix, obj, ";id=a,1,b,2"},
		{PathMatrixExplode, arr, ";id=3;id=4"},
		{PathMatrixExplode, obj, ";id=a=1;id=b=2"},
		{PathJSON, point{X: 1, Y: "a/b"}, "%7B%22x%22:1%2C%22y%22:%22a%2Fb%22%7D"},
		{PathSimple, []string{"a/b", ".."}, "a%2Fb,%2E%2E"},
	}
	for _, tt := range tests {
		r := NewRequest("GET")
		r.PathParam("id", tt.style, tt.v)
		if got := r.path.String(); got != tt.want || r.err != nil {
			t.Errorf("style %d, %v: path %q (err %v), want %q", tt.style, tt.v, got, r.err, tt.want)
		}
	}
	for _, empty := range []any{"", (*string)(nil), nil} {
		r := NewRequest("GET")
		r.PathParam("id", PathSimple, empty)
		if r.err == nil || !strings.Contains(r.err.Error(), `path parameter "id" is empty`) {
			t.Errorf("empty path value %#v: err %v", empty, r.err)
		}
	}
}

func TestQueryParamStyles(t *testing.T) {
	r := NewRequest("GET")
	r.QueryParam("a", QueryForm, []string{"1", "2"})
	r.QueryParam("b", QueryFormNoExplode, []string{"1", "2"})
	r.QueryParam("c", QuerySpaceDelimited, []string{"1", "2"})
	r.QueryParam("d", QueryPipeDelimited, []string{"1", "2"})
	r.QueryParam("e", QueryDeepObject, map[string]any{"k": "v", "n": map[string]int{"x": 1}, "l": []int{5}})
	r.QueryParam("f", QueryForm, point{X: 3})
	r.QueryParam("g", QueryFormNoExplode, point{X: 3, Y: "y"})
	r.QueryParam("h", QueryJSON, point{X: 3})
	r.QueryParam("unset", QueryForm, (*string)(nil))
	r.QueryParam("unsetJSON", QueryJSON, (*point)(nil))
	r.SetQuery("beta", "true")
	want := "a=1&a=2&b=1%2C2&beta=true&c=1+2&d=1%7C2&e%5Bk%5D=v&e%5Bl%5D%5B0%5D=5&e%5Bn%5D%5Bx%5D=1&g=x%2C3%2Cy%2Cy&h=%7B%22x%22%3A3%7D&x=3"
	if got := r.query.Encode(); got != want {
		t.Errorf("query = %s\nwant    %s", got, want)
	}
	if r.err != nil {
		t.Error(r.err)
	}
	r = NewRequest("GET")
	r.QueryParam("bad", QueryJSON, func() {})
	if r.err == nil || !strings.Contains(r.err.Error(), `query parameter "bad"`) {
		t.Errorf("a value without JSON: err %v", r.err)
	}
}

func TestHeaderAndCookieValues(t *testing.T) {
	r := NewRequest("GET")
	r.HeaderParam("X-A", HeaderSimple, []string{"a", "b"})
	r.HeaderParam("X-O", HeaderSimpleExplode, map[string]string{"k": "v"})
	r.HeaderParam("X-P", HeaderSimple, map[string]string{"k": "v"})
	r.HeaderParam("X-J", HeaderJSON, point{X: 1})
	r.HeaderParam("X-Unset", HeaderSimple, (*int)(nil))
	r.CookieParam("c", CookieForm, "v")
	r.CookieParam("l", CookieForm, []int{1, 2})
	r.CookieParam("m", CookieFormNoExplode, []int{1, 2})
	r.CookieParam("o", CookieForm, map[string]int{"k": 1})
	r.CookieParam("n", CookieFormNoExplode, map[string]int{"k": 1})
	r.CookieParam("unset", CookieForm, (*string)(nil))
	if r.err != nil {
		t.Fatal(r.err)
	}
	wantHeader := map[string]string{"X-A": "a,b", "X-O": "k=v", "X-P": "k,v", "X-J": `{"x":1}`}
	for k, v := range wantHeader {
		if got := r.header.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if len(r.header) != len(wantHeader) {
		t.Errorf("headers %v", r.header)
	}
	wantCookies := []string{"c=v", "l=1", "l=2", "m=1,2", "k=1", "n=k,1"}
	if !reflect.DeepEqual(r.cookies, wantCookies) {
		t.Errorf("cookies %q, want %q", r.cookies, wantCookies)
	}
	for _, bad := range []string{"a\rb", "a\nb", "a\x00", "a\x7f"} {
		r := NewRequest("GET")
		r.HeaderParam("X", HeaderSimple, bad)
		if r.err == nil || len(r.header) != 0 {
			t.Errorf("header value %q accepted", bad)
		}
	}
}

// Cookie values are percent-encoded where a cookie-octet cannot hold them, so that no
// value can end the cookie or inject a header, and net/http's own parser finds them.
func TestCookieValuesEncoded(t *testing.T) {
	for _, tc := range []struct{ value, wire string }{
		{`a b,c"d/é`, `a%20b%2Cc%22d/%C3%A9`},
		{"a;b", "a%3Bb"},
		{"a\r\nSet-Cookie: x", "a%0D%0ASet-Cookie:%20x"},
		{"50%", "50%25"},
		{"plain-token_1.2~", "plain-token_1.2~"},
	} {
		r := NewRequest("GET")
		r.CookieParam("session", CookieForm, tc.value)
		if r.err != nil {
			t.Fatalf("%q: %v", tc.value, r.err)
		}
		if want := []string{"session=" + tc.wire}; !reflect.DeepEqual(r.cookies, want) {
			t.Errorf("%q: cookies %q, want %q", tc.value, r.cookies, want)
		}
		req := &http.Request{Header: http.Header{"Cookie": {strings.Join(r.cookies, "; ")}}}
		c, err := req.Cookie("session")
		if err != nil {
			t.Errorf("%q: net/http finds no cookie: %v", tc.value, err)
			continue
		}
		if got, err := url.PathUnescape(c.Value); err != nil || got != tc.value {
			t.Errorf("%q: decoded %q (%v)", tc.value, got, err)
		}
	}
	r := NewRequest("GET")
	r.CookieParam("l", CookieFormNoExplode, []string{"a,b", "c"})
	if want := []string{"l=a%2Cb,c"}; !reflect.DeepEqual(r.cookies, want) {
		t.Errorf("array cookie %q, want %q", r.cookies, want)
	}
}

// The first problem is the one reported.
func TestRequestKeepsFirstError(t *testing.T) {
	r := NewRequest("GET")
	r.HeaderParam("X-A", HeaderSimple, "a\n")
	r.PathParam("id", PathSimple, "")
	if r.err == nil || !strings.Contains(r.err.Error(), `header parameter "X-A"`) {
		t.Errorf("err = %v", r.err)
	}
}

func TestRequire(t *testing.T) {
	r := NewRequest("GET")
	r.Require("query", "tags", []string{})
	r.Require("header", "X-A", map[string]int{"a": 1})
	if r.err != nil {
		t.Fatalf("values given: %v", r.err)
	}
	r.Require("query", "tags", []string(nil))
	if r.err == nil || r.err.Error() != `query parameter "tags" is required` {
		t.Errorf("nil value: %v", r.err)
	}
}
