package runtime

import (
	"strings"
	"testing"
)

// Text that quotes a relative URL, or a URL the pattern of absolute ones stops short of,
// keeps no query value: a redirect's Location may carry a signature.
func TestRedactTextRelativeAndBrokenURLs(t *testing.T) {
	for _, in := range []string{
		`failed to parse Location header "/%zz?sig=S3CRET": invalid URL escape`,
		`failed to parse Location header "http://h/%zz x?sig=S3CRET&a=S3CRET": bad`,
		`redirect to /next?token=S3CRET`,
	} {
		if got := redactText(in); strings.Contains(got, "S3CRET") {
			t.Errorf("redactText(%q) = %q", in, got)
		}
	}
	if got := redactText("no query here: 503 Service Unavailable"); got != "no query here: 503 Service Unavailable" {
		t.Errorf("text without a URL changed: %q", got)
	}
}
