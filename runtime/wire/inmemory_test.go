package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"reflect"
	"strings"
	"testing"

	"github.com/retrygen/retrygen/runtime/internal/membody"
)

// A body the engine read whole decodes as one read through a json.Decoder: its one value,
// nothing for an empty body, the Decoder's errors, and ErrTrailingData, at the byte where
// the text after the value starts, where a Decoder would leave it unread.
func TestDecodeOneInMemoryIsTheDecoders(t *testing.T) {
	type item struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}
	for _, tt := range []struct {
		in string
		at int // the byte where text after the value starts; 0 for none
	}{
		{`{"id":1,"name":"Rex"}`, 0},
		{" \n{\"id\":1}\n\r\t ", 0},
		{``, 0},
		{`   `, 0},
		{`{"id":1} trailing`, 9},
		{`{"id":1}{"id":2}`, 8},
		{"{\"name\":\"x\"}\n{\"name\":\"y\"}\n", 13},
		{`{"id":1}]`, 8},
		{`{"id":1}` + strings.Repeat(" ", 2000) + `x`, 2008},
		{`{"id":"one","name":"Rex"}`, 0},
		{`{"id":1,`, 0},
		{`{bad}`, 0},
		{`null`, 0},
		{`[1,2]`, 0},
		{`123abc`, 0},
	} {
		t.Run(fmt.Sprintf("%.40q", tt.in), func(t *testing.T) {
			var want, got, streamed item
			dec := json.NewDecoder(strings.NewReader(tt.in))
			wantErr := dec.Decode(&want)
			if tt.at > 0 {
				wantErr = fmt.Errorf("%w, at byte %d (a stream of JSON values is read by a stream method)", ErrTrailingData, tt.at)
			}
			var body membody.Body
			body.Set([]byte(tt.in))
			gotErr := decodeOne(&body, &got)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || got != want || tt.at > 0 && !errors.Is(gotErr, ErrTrailingData) {
				t.Errorf("decodeOne = %+v, %v; want %+v, %v", got, gotErr, want, wantErr)
			}
			streamErr := decodeOne(io.NopCloser(strings.NewReader(tt.in)), &streamed)
			if fmt.Sprint(streamErr) != fmt.Sprint(gotErr) || streamed != got {
				t.Errorf("streamed: %+v, %v; in memory: %+v, %v", streamed, streamErr, got, gotErr)
			}
		})
	}
}

// mediaType's shortcut for a bare type/subtype gives what mime.ParseMediaType gives.
func TestMediaTypeShortcutIsMimes(t *testing.T) {
	for _, ct := range []string{
		"application/json", "application/problem+json", "application/vnd.api.v1+json",
		"text/plain", "text/event-stream", "application/x-ndjson", "image/svg+xml",
		"Application/JSON", "application/json; charset=utf-8", " application/json",
		"application/json ", "application", "application/", "/json", "a/b/c", "a b/c",
		"application/json;", "text/*", "*/*", "", "application/x_y", "x/y.z-1",
	} {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil && !errors.Is(err, mime.ErrInvalidMediaParameter) {
			mt = ""
		}
		if got := mediaType(ct); got != mt {
			t.Errorf("mediaType(%q) = %q; mime gives %q", ct, got, mt)
		}
	}
}

// A body read whole is returned as it is by ReadBody and DecodeText, without another copy.
func TestReadWholeInMemory(t *testing.T) {
	data := []byte("id,name\n1,Rex\n")
	var body membody.Body
	body.Set(data)
	got, err := readWhole(&body)
	if err != nil || !bytes.Equal(got, data) || &got[0] != &data[0] {
		t.Errorf("readWhole = %q, %v; want the body's own bytes", got, err)
	}
	if rest, _ := readWhole(&body); len(rest) != 0 || !reflect.DeepEqual(rest, []byte{}) {
		t.Errorf("a second readWhole = %#v; want an empty body", rest)
	}
}

// scalar, plain's shortcut for the common parameter types, gives plain's string.
func TestScalarIsPlain(t *testing.T) {
	for _, v := range []any{"", "a b/c", int64(-9007199254740993), int64(1), 42, int32(-7), true, false} {
		s, ok := scalar(v)
		want, err := plain(v)
		if !ok || err != nil || s != want {
			t.Errorf("scalar(%#v) = %q, %v; plain gives %#v, %v", v, s, ok, want, err)
		}
	}
	type named int64
	for _, v := range []any{named(1), 1.5, nil, []string{"a"}, (*int64)(nil)} {
		if _, ok := scalar(v); ok {
			t.Errorf("scalar(%#v) took it; plain reduces it", v)
		}
	}
}

// A path keeps its pieces until the call joins them after the base URL's path, however
// many there are.
func TestPathTextJoinsItsPieces(t *testing.T) {
	var p pathText
	want := ""
	for i := range 10 {
		piece := fmt.Sprintf("/%d", i)
		p.WriteString(piece)
		p.WriteString("")
		want += piece
		if got := p.after("/v1"); got != "/v1"+want {
			t.Fatalf("after %d pieces: %q; want %q", i+1, got, "/v1"+want)
		}
	}
	if p.String() != want {
		t.Errorf("String() = %q; want %q", p.String(), want)
	}
	var empty pathText
	if empty.after("/v1") != "/v1" || empty.String() != "" {
		t.Errorf("an empty path: %q, %q", empty.after("/v1"), empty.String())
	}
}
