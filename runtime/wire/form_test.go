package wire

import (
	"io"
	"testing"
)

// StyledFormBody writes each property in the style given, as a query parameter of that
// style would be written; properties without one are exploded.
func TestStyledFormBody(t *testing.T) {
	type form struct {
		CSV   []int             `json:"csv"`
		Pipes []string          `json:"pipes"`
		SSV   []string          `json:"ssv"`
		Multi []string          `json:"multi"`
		Obj   map[string]string `json:"obj"`
		Deep  map[string]string `json:"deep"`
		Name  string            `json:"name"`
	}
	r := NewRequest("POST")
	r.StyledFormBody("application/x-www-form-urlencoded", form{
		CSV: []int{1, 2}, Pipes: []string{"a", "b"}, SSV: []string{"c", "d"}, Multi: []string{"e", "f"},
		Obj: map[string]string{"k": "v"}, Deep: map[string]string{"x": "y"}, Name: "n",
	},
		FormStyle{Name: "csv", Style: QueryFormNoExplode},
		FormStyle{Name: "pipes", Style: QueryPipeDelimited},
		FormStyle{Name: "ssv", Style: QuerySpaceDelimited},
		FormStyle{Name: "obj", Style: QueryFormNoExplode},
		FormStyle{Name: "deep", Style: QueryDeepObject},
	)
	data, _ := io.ReadAll(r.body)
	want := "csv=1%2C2&deep%5Bx%5D=y&multi=e&multi=f&name=n&obj=k%2Cv&pipes=a%7Cb&ssv=c+d"
	if string(data) != want {
		t.Errorf("form body\n%s, want\n%s", data, want)
	}
}
