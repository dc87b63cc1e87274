package wire

import (
	"errors"
	"net/http"
	"net/http/httptest"
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
