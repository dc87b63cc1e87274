package wire

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// A request made to stop at redirects ends at the first one, which Location reads: its
// Location resolved against the request's URL, or ErrNoLocation; the target is never
// asked.
func TestStopAtRedirect(t *testing.T) {
	followed := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/rel":
			w.Header().Set("Location", "../files/a.tgz?sig=1")
			w.WriteHeader(http.StatusFound)
		case "/none":
			w.WriteHeader(http.StatusTemporaryRedirect)
		default:
			followed++
		}
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	call := func(path string) (string, error) {
		r := NewRequest("GET")
		r.Path(path)
		r.StopAtRedirect()
		resp, err := c.Call(t.Context(), r, &retrying, "", nil)
		loc, err := Location(resp, err, nil)
		if loc == nil {
			return "", err
		}
		return loc.String(), err
	}
	if loc, err := call("/rel"); err != nil || loc != srv.URL+"/files/a.tgz?sig=1" {
		t.Errorf("Location %q, %v", loc, err)
	}
	if _, err := call("/none"); !errors.Is(err, ErrNoLocation) {
		t.Errorf("a redirect without Location: %v, want ErrNoLocation", err)
	}
	if followed != 0 {
		t.Errorf("the redirect was followed %d times", followed)
	}
}

// Location resolves a relative Location against the URL the request went to, query
// included and credentials left out, not against the URL the error shows; it returns
// only http and https URLs with a host and no user information, and refuses any other
// with ErrNoLocation and a one-line reason.
func TestLocationOnlyHTTP(t *testing.T) {
	var location string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Location"] = []string{location}
		w.WriteHeader(http.StatusFound)
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, WithHTTPClient(srv.Client()), WithCredential("key", APIKey("query", "api_key", "s3cretkey")))
	if err != nil {
		t.Fatal(err)
	}
	call := func() (*url.URL, error) {
		r := NewRequest("GET")
		r.Path("/archive/main")
		r.QueryParam("format", QueryForm, "zip")
		r.Security([]string{"key"})
		r.StopAtRedirect()
		resp, err := c.Call(t.Context(), r, &retrying, "", nil)
		return Location(resp, err, nil)
	}
	for loc, want := range map[string]string{
		"#top":                           srv.URL + "/archive/main?format=zip#top",
		"?page=2":                        srv.URL + "/archive/main?page=2",
		"../files/a.tgz?sig=1":           srv.URL + "/files/a.tgz?sig=1",
		"//cdn.example/a.tgz":            "http://cdn.example/a.tgz",
		"HTTPS://cdn.example/a.tgz?sig=": "https://cdn.example/a.tgz?sig=",
	} {
		location = loc
		got, err := call()
		if err != nil || got.String() != want {
			t.Errorf("Location %q: %v, %v; want %s", loc, got, err, want)
		}
	}
	for _, loc := range []string{
		"javascript:alert(document.cookie)",
		"JavaScript:alert(1)",
		"data:text/html;base64,PHNjcmlwdD4=",
		"file:///etc/passwd",
		"vbscript:msgbox(1)",
		"ftp://files.example/a.tgz",
		"https:evil.example/x",
		"http:///x",
		"https://user:pw@evil.example/x",
		"https://evil.example@cdn.example/x",
		" javascript:alert(1)",
		strings.Repeat("x", 300) + ":alert(1)",
		// net/http itself refuses these, before Location sees them.
		"java\tscript:alert(1)",
		"https://cdn.example/\x1b[31m\r\nX-Forged: 1",
	} {
		location = loc
		got, err := call()
		if err == nil || got != nil {
			t.Errorf("Location %q: %v, %v; want an error", loc, got, err)
			continue
		}
		if !errors.Is(err, ErrNoLocation) && !strings.ContainsAny(loc, "\t\x1b") {
			t.Errorf("Location %q: %v; want ErrNoLocation", loc, err)
		}
		text := err.Error()
		if len(text) > 300 || strings.ContainsAny(text, "\x1b\r\n\t") || strings.Contains(text, "pw") || strings.Contains(text, "s3cretkey") {
			t.Errorf("Location %q: error text %q", loc, text)
		}
	}
}
