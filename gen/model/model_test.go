package model

import (
	"strings"
	"testing"

	"github.com/retrygen/retrygen/runtime"
)

func TestStatusText(t *testing.T) {
	for _, tt := range []struct {
		in   runtime.StatusCode
		want string
	}{
		{503, "503"},
		{runtime.Class4XX, "4XX"},
		{runtime.Class5XX, "5XX"},
		{runtime.Class1XX, "1XX"},
	} {
		if got := StatusText(tt.in); got != tt.want {
			t.Errorf("StatusText(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := StatusTexts(nil); got == nil || len(got) != 0 {
		t.Errorf("StatusTexts(nil) = %#v, want an empty list", got)
	}
}

// Each option is declared once, under a doc comment that begins with its name.
func TestOptions(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range append(ClientOptions(), CallOptions()...) {
		if seen[o.Name] {
			t.Errorf("%s is declared twice", o.Name)
		}
		seen[o.Name] = true
		if !strings.HasPrefix(o.Doc, o.Name+" ") {
			t.Errorf("the doc of %s does not begin with its name: %q", o.Name, o.Doc)
		}
	}
}
