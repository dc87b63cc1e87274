package model

import (
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
