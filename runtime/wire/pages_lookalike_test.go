package wire

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/retrygen/retrygen/runtime"
)

// A next link whose path a normalizing server reads as "../admin" is refused: the
// characters NFKC normalization makes dots (U+2025, U+2026) or slashes (U+FF0F, U+FF3C),
// and overlong UTF-8 dots (%C0%AE), which old decoders read as ".".
func TestWalkRefusesNormalizingLookalikes(t *testing.T) {
	for _, link := range []string{
		"https://api.example.com/v1/%E2%80%A5/admin/keys",
		"https://api.example.com/v1/\u2025;x/admin/keys",
		"https://api.example.com/v1/%E2%80%A6/admin/keys",
		"https://api.example.com/v1/..%EF%BC%8Fadmin/keys",
		"https://api.example.com/v1/..%EF%BC%BCadmin/keys",
		"https://api.example.com/v1/%C0%AE%C0%AE/admin/keys",
	} {
		s := &pageServer{answer: func(n int, req *http.Request) (int, http.Header, string) {
			return 200, http.Header{"Link": {"<" + link + `>; rel="next"`}}, body([]string{"a"})
		}}
		_, _, err := collect(walk(pageClient(t, s, WithRequestEditor(func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer secret")
			return nil
		})), &Pager{Kind: PageLink}, nil, WithMaxPages(3)))
		if !errors.Is(err, runtime.ErrPageLink) || len(s.urls()) != 1 {
			t.Errorf("%s: followed with the credentials (%d requests: %q), err %v; want ErrPageLink", link, len(s.urls()), s.urls(), err)
		}
	}
}
