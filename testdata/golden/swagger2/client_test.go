package swagger2

// These tests run against the generated client of this case (want.go, copied next to them
// by gen's TestGoldenCompiles) and a server that records what it receives.

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// A formData array goes out as its collectionFormat says: csv (the default) as one
// comma-separated value, pipes with |, multi as one pair per item.
func TestFormDataCollectionFormats(t *testing.T) {
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	c := NewClient(WithBaseURL(srv.URL))
	err := c.TagUsers(context.Background(), &TagUsersRequest{IDs: []int64{1, 2}, Tags: []string{"a", "b"}, Notes: []string{"x", "y"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "ids=1%2C2&notes=x&notes=y&tags=a%7Cb"; string(body) != want {
		t.Errorf("sent %s, want %s", body, want)
	}
	// Required formData parameters make a required body: a value, not a pointer.
	if err := c.Login(context.Background(), LoginRequest{Username: "u", Password: "p"}); err != nil {
		t.Fatal(err)
	}
	if want := "password=p&username=u"; string(body) != want {
		t.Errorf("sent %s, want %s", body, want)
	}
}
